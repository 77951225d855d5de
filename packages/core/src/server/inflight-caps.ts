import { type AuthInfo, McpError, principalOf } from '@gantry/protocol';
import type { LimitsOptions } from '../limits/limit-types';
import { LimitErrorCode } from '../limits/limits-runtime';

/** `limits.maxInflightPerSession` when not given: as many as `stdio()` and `@gantry/ws` let run at once. */
export const DEFAULT_MAX_INFLIGHT_PER_SESSION = 64;

/** The bucket of unauthenticated callers; `principalOf` prefixes every other one, so none collides. */
const ANONYMOUS = 'anonymous';

/** A JSON-RPC error object, as transports put it in a body. */
export interface InflightProblem {
  readonly code: number;
  readonly message: string;
  readonly data: { readonly cap: 'session' | 'principal'; readonly limit: number };
}

function checkCap(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new TypeError(
      `limits.${name} must be a positive integer${name === 'maxInflightPerSession' ? ' or false' : ''}, got ${String(value)}`,
    );
  return value;
}

/**
 * The per-session and per-principal in-flight caps (`limits.maxInflightPerSession`,
 * `limits.maxInflightPerPrincipal`): requests this node runs at once, counted from before their
 * handler starts until their outcome settles. One over a cap is refused, never queued: the caps
 * keep one caller from holding every slot of a node, which a queue would not.
 */
export class InflightCaps {
  private readonly sessions = new Map<object, number>();
  private readonly principals = new Map<string, number>();

  private constructor(
    readonly perSession: number | undefined,
    readonly perPrincipal: number | undefined,
  ) {}

  /** The caps of `limits`, checked (a TypeError names a bad option); undefined when both are off. */
  static of(limits: LimitsOptions | undefined): InflightCaps | undefined {
    const given = limits?.maxInflightPerSession;
    const perSession =
      given === false
        ? undefined
        : (checkCap(given, 'maxInflightPerSession') ?? DEFAULT_MAX_INFLIGHT_PER_SESSION);
    const perPrincipal = checkCap(limits?.maxInflightPerPrincipal, 'maxInflightPerPrincipal');
    if (perSession === undefined && perPrincipal === undefined) return undefined;
    return new InflightCaps(perSession, perPrincipal);
  }

  /**
   * Why `count` more requests of `auth` (on `session`, when they run on one) would be refused;
   * undefined when they fit.
   */
  problem(auth: AuthInfo | undefined, session: object | undefined, count = 1): InflightProblem | undefined {
    if (session !== undefined && this.perSession !== undefined) {
      if ((this.sessions.get(session) ?? 0) + count > this.perSession)
        return over('session', this.perSession);
    }
    if (this.perPrincipal !== undefined) {
      const running = this.principals.get(principalOf(auth) ?? ANONYMOUS) ?? 0;
      if (running + count > this.perPrincipal) return over('principal', this.perPrincipal);
    }
    return undefined;
  }

  /**
   * Counts one request of `auth` (on `session`, when it runs on one) against the caps and returns
   * what ends the count once the request settled; throws the refusal (an McpError, code −32026)
   * instead when it does not fit.
   */
  enter(auth: AuthInfo | undefined, session: object | undefined): () => void {
    const problem = this.problem(auth, session);
    if (problem) throw new McpError(problem.code, problem.message, problem.data);
    const principal = this.perPrincipal === undefined ? undefined : (principalOf(auth) ?? ANONYMOUS);
    const counted = this.perSession === undefined ? undefined : session;
    this.add(counted, principal, 1);
    return () => this.add(counted, principal, -1);
  }

  private add(session: object | undefined, principal: string | undefined, delta: number): void {
    if (session !== undefined) bump(this.sessions, session, delta);
    if (principal !== undefined) bump(this.principals, principal, delta);
  }
}

function bump<K>(counts: Map<K, number>, key: K, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

function over(cap: 'session' | 'principal', limit: number): InflightProblem {
  return {
    code: LimitErrorCode.TooManyInflight,
    message: `Too many requests in flight: at most ${limit} at once per ${cap} (limits.maxInflightPer${cap === 'session' ? 'Session' : 'Principal'}); retry once one is answered`,
    data: { cap, limit },
  };
}
