import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Binds the MCP session id to the request's logger once the session is known, so every later
 * line of the request (Fastify's `request completed` included) carries `sessionId` beside
 * Fastify's `reqId`. Without a Fastify logger, `child` returns the no-op logger itself.
 */
export function logSessionOf(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string | undefined,
): void {
  if (sessionId === undefined) return;
  const log = request.log.child({ sessionId });
  request.log = log;
  reply.log = log;
}
