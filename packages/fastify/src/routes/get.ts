import { ErrorCode } from '@gantry/protocol';
import type { FastifyInstance } from 'fastify';
import { sendError } from '../errors';
import { accepts, header } from '../request-headers';
import type { EndpointContext } from './context';

/**
 * `GET <path>`: a session's standalone SSE stream, or the resumption of a stream after
 * `Last-Event-ID` (MCP 2025-11-25, Transports / Streamable HTTP).
 */
export function registerGet(fastify: FastifyInstance, context: EndpointContext): void {
  // No automatic HEAD route: a HEAD must not open (and hold) the session's SSE stream.
  fastify.get(
    context.options.path,
    { onRequest: context.gate, exposeHeadRoute: false },
    async (request, reply) => {
      if (context.refuseWithoutSessions(request, reply, 'GET stream')) return reply;
      if (!accepts(request, 'text/event-stream')) {
        return sendError(
          reply,
          406,
          ErrorCode.InvalidRequest,
          'Not Acceptable: the Accept header must list text/event-stream',
        );
      }
      const session = await context.findSession(request, reply);
      if (!session) return reply;
      session.lastSeen = Date.now();
      const lastEventId = header(request, 'last-event-id');
      if (lastEventId !== undefined) {
        if (await session.resume(lastEventId, reply)) return reply;
        return sendError(
          reply,
          400,
          ErrorCode.InvalidRequest,
          `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId)} is unknown or expired`,
        );
      }
      if (!(await session.openStandalone(reply))) {
        return sendError(
          reply,
          409,
          ErrorCode.InvalidRequest,
          'Conflict: this session already has a GET stream open',
        );
      }
      return reply;
    },
  );
}
