import {
  type ConnectionHost,
  ipKey,
  LimitErrorCode,
  memoryRateLimiter,
  principalKey,
  type RateLimitBackend,
  resolveIpv6Subnet,
} from '@gantry/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors';
import { authOf } from './request-auth';

/** `rateLimit` of `gantryMcp`: POSTs per `duration` seconds per client, before the body is read. */
export interface TransportRateLimitOptions {
  readonly points: number;
  /** Seconds. */
  readonly duration: number;
  /**
   * `ip` (default): `request.ip` (set Fastify's `trustProxy` behind a proxy). `principal`: the
   * authenticated caller (as `@RateLimit` names it); unauthenticated requests count by ip.
   */
  readonly by?: 'ip' | 'principal';
  /** The prefix length that keys IPv6 clients: every address of one /56 (default) shares a budget. */
  readonly ipv6Subnet?: number;
}

/** Checks the options; throws a TypeError naming the problem. */
export function checkTransportRateLimit(options: TransportRateLimitOptions): TransportRateLimitOptions {
  const problem = (what: string) => new TypeError(`gantryMcp: rateLimit.${what}`);
  if (!options || typeof options !== 'object') throw problem('must be { points, duration, by? }');
  if (!Number.isInteger(options.points) || options.points < 1)
    throw problem(`points must be an integer ≥ 1, got ${String(options.points)}`);
  if (typeof options.duration !== 'number' || !Number.isFinite(options.duration) || options.duration <= 0)
    throw problem(`duration must be a positive number of seconds, got ${String(options.duration)}`);
  const by = options.by ?? 'ip';
  if (by !== 'ip' && by !== 'principal') throw problem(`by must be 'ip' or 'principal', got ${String(by)}`);
  const ipv6Subnet = resolveIpv6Subnet(options.ipv6Subnet, 'gantryMcp: rateLimit.ipv6Subnet');
  return Object.freeze({ points: options.points, duration: options.duration, by, ipv6Subnet });
}

/**
 * The `onRequest` hook that limits POSTs to the endpoint: over the limit, 429 with
 * `Retry-After` (seconds, RFC 9110 §10.2.3) and a JSON-RPC error body (−32029,
 * `data.retryAfterMs`). Counted in the cluster's store when the app has one. A failing store
 * lets requests through, with a warning when it starts failing.
 */
export function transportRateLimit(host: ConnectionHost, options: TransportRateLimitOptions) {
  const backendOptions = {
    keyPrefix: `rl:http:${options.by}`,
    points: options.points,
    duration: options.duration,
  };
  const backend: RateLimitBackend =
    host.cluster?.link.rateLimiter?.(backendOptions) ?? memoryRateLimiter(backendOptions);
  let failing = false;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = options.by === 'principal' ? authOf(request) : undefined;
    const key = auth ? principalKey(auth) : ipKey(request.ip, options.ipv6Subnet);
    let outcome: Awaited<ReturnType<RateLimitBackend['consume']>>;
    try {
      outcome = await backend.consume(key);
      failing = false;
    } catch (error) {
      if (!failing)
        host.logger.warn(
          'gantryMcp rateLimit: the rate-limit store failed; requests pass until it answers',
          error,
        );
      failing = true;
      return;
    }
    if (outcome.allowed) return;
    const retryAfterMs = outcome.retryAfterMs;
    reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    return sendError(
      reply,
      429,
      LimitErrorCode.RateLimited,
      `Too Many Requests: at most ${options.points} requests per ${options.duration} s; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
      null,
      { retryAfterMs },
    );
  };
}
