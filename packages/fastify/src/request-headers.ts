import type { FastifyRequest } from 'fastify';

/** A request header's value (the first, when it was sent more than once). */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** True when the request's `Accept` lists every one of `types` (or `*\/*`). */
export function accepts(request: FastifyRequest, ...types: string[]): boolean {
  const accept = request.headers.accept ?? '';
  // `*/*` accepts everything; SDK clients send both types explicitly.
  return accept.includes('*/*') || types.every((type) => accept.includes(type));
}
