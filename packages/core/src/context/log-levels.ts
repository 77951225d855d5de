// The levels live in @gantry/protocol, shared with the client.
export { isLoggingLevel, LOG_LEVELS } from '@gantry/protocol';
