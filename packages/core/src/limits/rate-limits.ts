import { createHash } from 'node:crypto';
import { type AuthInfo, principalOf } from '@gantry/protocol';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ExecutionContext } from '../execution/execution-context';
import { ipKey } from './ip-key';
import type { RateLimitBackend, RateLimitBackendOptions, RateLimitOptions } from './limit-types';

/** The default backend: counters in this process (`RateLimiterMemory` of rate-limiter-flexible). */
export function memoryRateLimiter(options: RateLimitBackendOptions): RateLimitBackend {
  return rateLimitBackendOf(new RateLimiterMemory(options));
}

/**
 * A rate-limiter-flexible limiter (memory, Redis, …) as a `RateLimitBackend`: a refusal becomes
 * `{ allowed: false, retryAfterMs }`; a failing store rejects, for `onBackendError` to judge.
 */
export function rateLimitBackendOf(limiter: RateLimiterAbstract): RateLimitBackend {
  return {
    consume: (key) =>
      limiter.consume(key).then(
        () => ({ allowed: true }) as const,
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes)
            return { allowed: false, retryAfterMs: Math.max(0, Math.ceil(rejection.msBeforeNext)) } as const;
          throw rejection;
        },
      ),
  };
}

/** Sessions have no id the context can see in every transport: one per session object, made on demand. */
const sessionKeys = new WeakMap<object, string>();
let nextSessionKey = 0;

function sessionKey(session: object): string {
  let key = sessionKeys.get(session);
  if (key === undefined) {
    key = `s${++nextSessionKey}`;
    sessionKeys.set(session, key);
  }
  return key;
}

/**
 * The rate-limit key of a caller: `principal:` and the principal as sessions name it
 * (`sub:…`, `client:…`; a bare token by its SHA-256 digest, since stores keep keys in the
 * clear), or `principal:anonymous`.
 */
export function principalKey(auth: AuthInfo | undefined): string {
  const principal = principalOf(auth) ?? 'anonymous';
  if (principal.startsWith('token:'))
    return `principal:token#${createHash('sha256').update(principal).digest('hex').slice(0, 32)}`;
  return `principal:${principal}`;
}

/** The key `by` names for one call. Principals keep their namespaces (`principalOf`). */
export function rateLimitKey(
  options: RateLimitOptions,
  context: ExecutionContext,
  ipv6Subnet?: number,
): string {
  const by = options.by ?? 'principal';
  const mcp = context.mcp;
  if (typeof by === 'function') return `fn:${by(context)}`;
  if (by === 'ip') return ipKey(mcp.remoteAddress, ipv6Subnet);
  if (by === 'session' && mcp.era === 'session') return `session:${sessionKey(mcp.session)}`;
  return principalKey(mcp.auth);
}

/** The `by` part of a limit's namespace: budgets by different keys never share a counter. */
export function byName(options: RateLimitOptions): string {
  const by = options.by ?? 'principal';
  return typeof by === 'function' ? 'fn' : by;
}
