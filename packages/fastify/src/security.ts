import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedOptions } from './options';

/**
 * Why a request's Host or Origin is refused (DNS-rebinding protection), or undefined; the rules are
 * those of @gantry/core's HostOriginPolicy, shared with the WebSocket transport.
 */
export function hostOriginProblem(
  request: FastifyRequest,
  options: ResolvedOptions,
  publicDocument = false,
): string | undefined {
  return options.hostOrigin.problemWith({
    host: request.headers.host,
    // Public documents (RFC 9728 metadata) are meant for browsers of any origin.
    origin: publicDocument ? undefined : request.headers.origin,
    localAddress: request.socket.localAddress,
    remoteAddress: request.socket.remoteAddress,
  });
}

const ALLOWED_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
].join(', ');
const EXPOSED_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate'].join(', ');

/** Adds CORS response headers when the request's Origin is allowed; true if it was. */
export function applyCors(request: FastifyRequest, reply: FastifyReply, options: ResolvedOptions): boolean {
  const cors = options.cors;
  const origin = request.headers.origin;
  if (!cors || origin === undefined) return false;
  const allowed = cors.origins === '*' || cors.origins.includes(origin.toLowerCase());
  if (!allowed) return false;
  reply.header('access-control-allow-origin', cors.origins === '*' ? '*' : origin);
  if (cors.origins !== '*') reply.header('vary', 'Origin');
  reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  return true;
}

/** Answers a CORS preflight. */
export function preflight(request: FastifyRequest, reply: FastifyReply, options: ResolvedOptions): void {
  if (!applyCors(request, reply, options)) {
    reply.code(204).send();
    return;
  }
  // Mcp-Param-* names depend on the tools (x-mcp-header): allow the ones the browser asks for.
  const requested = request.headers['access-control-request-headers'];
  const params = (typeof requested === 'string' ? requested.split(',') : [])
    .map((name) => name.trim().toLowerCase())
    .filter((name) => /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name));
  reply
    .header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS')
    .header('access-control-allow-headers', [ALLOWED_HEADERS, ...new Set(params)].join(', '))
    .header('access-control-max-age', String(options.cors?.maxAgeSec ?? 600))
    .code(204)
    .send();
}
