import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedOptions } from './options';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** The host name of a `Host` header value, without port, lower-cased (`[::1]` keeps its brackets). */
export function hostname(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.indexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** Why a request's Host or Origin is refused (DNS-rebinding protection), or undefined. */
export function hostOriginProblem(
  request: FastifyRequest,
  options: ResolvedOptions,
  publicDocument = false,
): string | undefined {
  // A loopback connection is where DNS rebinding strikes: a local browser tricked into calling a local server.
  const loopback =
    isLoopbackAddress(request.socket.localAddress) || isLoopbackAddress(request.socket.remoteAddress);
  const host = request.headers.host;
  const allowedHosts = options.allowedHosts;
  if (allowedHosts || loopback) {
    const name = host === undefined ? '' : hostname(host);
    const ok = allowedHosts ? allowedHosts.includes(name) : LOOPBACK_HOSTS.has(name);
    if (!ok) return `Invalid Host: ${host ?? '(none)'}`;
  }
  const origin = request.headers.origin;
  // Public documents (RFC 9728 metadata) are meant for browsers of any origin.
  if (origin !== undefined && !publicDocument) {
    // `Origin: null` (sandboxed frames, file: pages) is never an allowed origin.
    if (origin === 'null' && (options.allowedOrigins || loopback)) return 'Invalid Origin: null';
    const allowedOrigins = options.allowedOrigins;
    if (allowedOrigins) {
      if (!allowedOrigins.includes(origin.toLowerCase()) && !corsAllows(options, origin))
        return `Invalid Origin: ${origin}`;
    } else if (loopback) {
      let originHost: string;
      try {
        originHost = hostname(new URL(origin).host);
      } catch {
        return `Invalid Origin: ${origin}`;
      }
      if (!LOOPBACK_HOSTS.has(originHost) && !corsAllows(options, origin)) return `Invalid Origin: ${origin}`;
    }
  }
  return undefined;
}

function corsAllows(options: ResolvedOptions, origin: string): boolean {
  const cors = options.cors;
  if (!cors) return false;
  return cors.origins !== '*' && cors.origins.includes(origin.toLowerCase());
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
