import type { AuthInfo } from '@gantry/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The request decoration that carries who is calling, once the bearer token was verified. */
const AUTH = Symbol('@gantry/fastify.auth');

type WithAuth = FastifyRequest & { [AUTH]: AuthInfo | null };

/** Declares the per-request auth slot on the plugin's (encapsulated) request object. */
export function decorateRequestAuth(fastify: FastifyInstance): void {
  fastify.decorateRequest(AUTH, null);
}

/** Who is calling, when auth is on and the request passed it. */
export function authOf(request: FastifyRequest): AuthInfo | undefined {
  return (request as WithAuth)[AUTH] ?? undefined;
}

export function setAuth(request: FastifyRequest, auth: AuthInfo): void {
  (request as WithAuth)[AUTH] = auth;
}
