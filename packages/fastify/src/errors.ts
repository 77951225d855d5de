import type { RequestId } from '@gantry/protocol';
import type { FastifyReply } from 'fastify';

/** A JSON-RPC error body, as HTTP error responses carry it. */
export function errorBody(code: number, message: string, id: RequestId | null = null, data?: unknown) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0' as const, id, error };
}

/** Sends an HTTP error with a JSON-RPC error body. */
export function sendError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  id: RequestId | null = null,
  data?: unknown,
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send(JSON.stringify(errorBody(code, message, id, data)));
}

/**
 * An HTTP failure that is answered with a JSON-RPC error body: thrown where Fastify expects an
 * error (content-type parsers) and turned into a response by the plugin's error handler.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    /** The HTTP status. */
    readonly statusCode: number,
    /** The JSON-RPC error code of the body. */
    readonly mcpCode: number,
    message: string,
    /** The JSON-RPC error's `data`, if any. */
    readonly data?: unknown,
  ) {
    super(message);
  }
}
