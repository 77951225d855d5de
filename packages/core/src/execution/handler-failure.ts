import { type InboundRequest, InternalError, McpError } from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import { type LogBindings, type Logger, loggerWith } from '../logger';

/** What a log line about one request carries: its session (where there is one) and its JSON-RPC id. */
export function requestLogBindings(inbound: InboundRequest, session?: ContextSession): LogBindings {
  const id = inbound.id;
  const requestId = typeof id === 'number' ? id : String(id);
  const sessionId = session?.sessionId;
  return sessionId === undefined ? { requestId } : { sessionId, requestId };
}

/** `logger`, its lines bound to the request (when it can bind fields: pino, Gantry's own). */
export function requestLogger(logger: Logger, inbound: InboundRequest, session?: ContextSession): Logger {
  return loggerWith(logger, requestLogBindings(inbound, session));
}

/**
 * The JSON-RPC error a prompt, resource, resource lister or completer answers when it throws.
 * An `McpError` is the author's way to answer with a protocol error and passes unchanged.
 * Anything else is logged here, once, with its stack (`what` names the handler), and becomes
 * −32603 carrying only its message: being an `McpError` then, it is sent by the Peer without
 * being logged a second time.
 */
export function unexpectedHandlerError(
  error: unknown,
  logger: Logger,
  what: string,
  inbound: InboundRequest,
  session: ContextSession,
): McpError {
  if (error instanceof McpError) return error;
  requestLogger(logger, inbound, session).error(`${what} failed:`, error);
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`Internal error: ${message}`);
}
