import type { FastifyInstance } from 'fastify';
import { ClusterUnavailableError } from '../cluster/cluster-sessions';
import type { EndpointContext } from './context';

/** `DELETE <path>`: the client ends its session (MCP 2025-11-25, Transports / Streamable HTTP). */
export function registerDelete(fastify: FastifyInstance, context: EndpointContext): void {
  fastify.delete(context.options.path, { onRequest: context.gate }, async (request, reply) => {
    if (context.refuseWithoutSessions(request, reply, 'session to end')) return reply;
    const session = await context.findSession(request, reply);
    if (!session) return reply;
    if (!context.cluster) await session.close();
    else {
      // Ends it on every node: their streams of the session close too.
      try {
        await context.cluster.end(session);
      } catch (error) {
        if (error instanceof ClusterUnavailableError) return context.unavailable(reply, error);
        throw error;
      }
    }
    return reply.code(200).send();
  });
}
