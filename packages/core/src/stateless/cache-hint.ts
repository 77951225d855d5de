import type { CacheScope } from '@gantry/protocol';

/**
 * Caching hints of a stateless-era result (2026-07-28 `ttlMs` / `cacheScope`). `private` means
 * the result may only be reused for the same caller; Gantry also chooses it whenever the
 * result can depend on the caller (guards, an authenticated reader).
 */
export interface CacheHint {
  /** How long the result stays fresh, in ms; 0 = stale at once. */
  ttlMs?: number;
  scope?: CacheScope;
}

/** Defaults per kind of result, and what the app may override (`cache` option). */
export interface CacheDefaults {
  /** `server/discover`; default 5 minutes, public. */
  discover?: CacheHint;
  /** `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`; default 1 minute. */
  list?: CacheHint;
  /** `resources/read`; default 0 (always revalidate). */
  read?: CacheHint;
}

export const DEFAULT_CACHE: Required<{ [K in keyof CacheDefaults]: Required<CacheHint> }> = Object.freeze({
  discover: Object.freeze({ ttlMs: 300_000, scope: 'public' as CacheScope }),
  list: Object.freeze({ ttlMs: 60_000, scope: 'public' as CacheScope }),
  read: Object.freeze({ ttlMs: 0, scope: 'public' as CacheScope }),
});

/** Checks a hint given to a decorator or to the app; returns what is wrong, if anything. */
export function cacheHintProblem(hint: unknown): string | undefined {
  if (typeof hint !== 'object' || hint === null || Array.isArray(hint))
    return 'must be an object { ttlMs?, scope? }';
  for (const key of Object.keys(hint)) {
    if (key !== 'ttlMs' && key !== 'scope') return `has an unknown key '${key}' (known: ttlMs, scope)`;
  }
  const { ttlMs, scope } = hint as CacheHint;
  if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs < 0))
    return `ttlMs must be an integer ≥ 0, got ${String(ttlMs)}`;
  if (scope !== undefined && scope !== 'public' && scope !== 'private')
    return `scope must be 'public' or 'private', got ${JSON.stringify(scope)}`;
  return undefined;
}
