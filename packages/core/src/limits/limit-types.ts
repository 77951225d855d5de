import type { ExecutionContext } from '../execution/execution-context';

/** Who shares one rate-limit budget. */
export type RateLimitBy = 'principal' | 'session' | 'ip' | ((context: ExecutionContext) => string);

/**
 * A rate limit: `points` calls per `duration` seconds for each key that `by` names.
 *
 * - `principal` (default): the authenticated caller, namespaced as sessions and request state
 *   are (`principalOf`); unauthenticated callers share the key `anonymous`.
 * - `session`: the session-era session (one connection's session on this node); in the
 *   stateless era, where no session exists, the principal.
 * - `ip`: the remote address of the connection (HTTP, WebSocket); stdio and in-memory
 *   connections have none and share one key.
 * - a function of the execution context: its string is the key.
 */
export interface RateLimitOptions {
  readonly points: number;
  /** Seconds. */
  readonly duration: number;
  readonly by?: RateLimitBy;
  /**
   * The limit's name in keys and messages; default `tool:<name>` on a method,
   * `class:<ClassName>` on a class (one budget for all of its handlers), `global` for the
   * application's. Nodes of a cluster share a budget when the names match.
   */
  readonly name?: string;
}

/** What a backend answers to one consumed point. */
export type RateLimitOutcome =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterMs: number };

/** A store of rate-limit counters (memory by default; Redis through a `ClusterLink`). */
export interface RateLimitBackend {
  /** Consumes one point of `key`; rejects when the store cannot be reached. */
  consume(key: string): Promise<RateLimitOutcome>;
}

/** What a backend is made from: one limit's namespace and budget. */
export interface RateLimitBackendOptions {
  /** Unique per limit and `by`, e.g. `rl:tool:search:principal`; a shared store prefixes it with its own namespace. */
  readonly keyPrefix: string;
  readonly points: number;
  /** Seconds. */
  readonly duration: number;
}

/** `limits` of `GantryFactory.create`: defaults for every tool. */
export interface LimitsOptions {
  /** Every tool call times out after this many milliseconds unless `@Timeout()` says otherwise; default none. */
  timeoutMs?: number;
  /** One budget for every tool call (besides any `@RateLimit()` of the tool or its class). */
  rateLimit?: RateLimitOptions;
  /**
   * When the rate-limit store fails (Redis down): `allow` (default) lets the call through and
   * logs a warning; `deny` answers as if the limit were exceeded.
   */
  onBackendError?: 'allow' | 'deny';
  /**
   * The prefix length that keys an IPv6 caller of `by: 'ip'` limits: every address of one /56
   * (default) shares a budget, since a client may use any address of the network it was given.
   * IPv4 addresses are keyed one by one. An integer from 1 to 128 (128: one address each).
   */
  ipv6Subnet?: number;
  /**
   * Requests one session (one connection: stdio, WebSocket, an HTTP session) runs at once on
   * this node, both eras; one more is refused before its handler runs with JSON-RPC error −32026
   * (`data: { cap: 'session', limit }`), and an HTTP POST that would exceed it gets 429 with
   * `Retry-After: 1`. A positive integer, or `false` for no cap. Default 64 (what `stdio()` and
   * `@gantry/ws` already let run at once). Stateless HTTP exchanges have no session.
   */
  maxInflightPerSession?: number | false;
  /**
   * Requests one principal (`principalOf(ctx.auth)`; unauthenticated callers share one bucket)
   * runs at once on this node, over all its sessions and stateless exchanges; refused as above
   * with `data: { cap: 'principal', limit }`. A positive integer; default none (unauthenticated
   * callers would otherwise share one cap for the whole server).
   */
  maxInflightPerPrincipal?: number;
}
