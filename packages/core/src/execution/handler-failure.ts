import { InternalError, McpError } from '@gantry/protocol';
import type { Logger } from '../logger';

/**
 * The JSON-RPC error a prompt, resource, resource lister or completer answers when it throws.
 * An `McpError` is the author's way to answer with a protocol error and passes unchanged.
 * Anything else is logged here, once, with its stack (`what` names the handler), and becomes
 * −32603 carrying only its message: being an `McpError` then, it is sent by the Peer without
 * being logged a second time.
 */
export function unexpectedHandlerError(error: unknown, logger: Logger, what: string): McpError {
  if (error instanceof McpError) return error;
  logger.error(`${what} failed:`, error);
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`Internal error: ${message}`);
}
