// Small helpers the Client's modules share: shape checks and the errors they raise.
import { GantryError, isLoggingLevel, LOG_LEVELS, LocalErrorCode } from '@gantry/protocol';

/** The states of a Client's connection. */
export type ClientState = 'idle' | 'connecting' | 'connected' | 'closed';

export { isObject } from '@gantry/protocol';

export function protocolViolation(message: string): GantryError {
  return new GantryError(LocalErrorCode.ProtocolViolation, message);
}

export function notConnectedMessage(state: ClientState, method: string): string {
  if (state === 'connecting') return `Not connected: "${method}" was sent before connect() finished`;
  if (state === 'closed') return `Not connected: "${method}" was sent after the connection closed`;
  return `Not connected: call connect() before sending "${method}"`;
}

/** The start of a JSON value, for error messages. */
export function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

/** `result`, once checked to hold an array `field` (`what` names the request in the error). */
export function withArray<T extends { [key: string]: unknown }>(result: T, field: string, what: string): T {
  if (!Array.isArray(result[field])) {
    throw protocolViolation(`${what} answered without a "${field}" array: ${preview(result)}`);
  }
  return result;
}

/** Throws a TypeError naming the levels when `level` is not a logging level (RFC 5424 severities). */
export function checkLoggingLevel(level: unknown): void {
  if (!isLoggingLevel(level)) {
    throw new TypeError(
      `Client.setLoggingLevel: unknown level ${JSON.stringify(level)}; use one of ${LOG_LEVELS.join(', ')}`,
    );
  }
}
