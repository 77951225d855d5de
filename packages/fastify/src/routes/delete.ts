import type { FastifyInstance } from 'fastify';
import type { EndpointContext } from './context';

/** `DELETE <path>`: the client ends its session (MCP 2025-11-25, Transports / Streamable HTTP). */
export function registerDelete(fastify: FastifyInstance, context: EndpointContext): void {
  fastify.delete(context.options.path, { onRequest: context.gate }, async (request, reply) => {
    if (context.refuseWithoutSessions(request, reply, 'session to end')) return reply;
    const session = context.findSession(request, reply);
    if (!session) return reply;
    await session.close();
    return reply.code(200).send();
  });
}
