import { type ConnectionHost, type HealthPaths, probeAnswer, RETRY_AFTER_SECONDS } from '@gantry/core';
import { ErrorCode } from '@gantry/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from './errors';

/**
 * `GET <healthPath>` and `GET <readyPath>` (HEAD too, as Fastify adds it) on `fastify`, under its
 * prefix. Registered beside the MCP endpoint, outside its authentication; the plugin's Host/Origin
 * hook lets them through (see `isProbe`). Returns the routes' full paths.
 */
export function registerHealth(
  fastify: FastifyInstance,
  host: ConnectionHost,
  paths: HealthPaths,
): Set<string> {
  const answer = (reply: FastifyReply, probe: 'alive' | 'ready') => {
    const { status, headers, body } = probeAnswer(host, probe);
    return reply.code(status).headers(headers).send(body);
  };
  fastify.get(paths.healthPath, async (_request, reply) => answer(reply, 'alive'));
  fastify.get(paths.readyPath, async (_request, reply) => answer(reply, 'ready'));
  return new Set([`${fastify.prefix}${paths.healthPath}`, `${fastify.prefix}${paths.readyPath}`]);
}

/**
 * 503 + `Retry-After` with a JSON-RPC error naming the cause, for new work while the application
 * drains (`ConnectionHost.refusal`); undefined (nothing sent) while it accepts new work.
 */
export function refuseWhileDraining(host: ConnectionHost, reply: FastifyReply): FastifyReply | undefined {
  const refusal = host.refusal;
  if (refusal === undefined) return undefined;
  reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return sendError(reply, 503, ErrorCode.InternalError, `Service Unavailable: ${refusal}`);
}
