// Which protocol era a server speaks, and how a client finds out (MCP 2026-07-28, Basic /
// Versioning §"Backward Compatibility"; Basic / Transports §"stdio" and §"Streamable HTTP").
import {
  ErrorCode,
  GantryError,
  isStatelessVersion,
  LocalErrorCode,
  McpError,
  STATELESS_PROTOCOL_VERSIONS,
} from '@gantry/protocol';
import { type HttpFailureData, HttpStatusError, httpStatusOf } from './http-status-error';

/**
 * The protocol era of a connection: `'stateless'` is the stateless era (2026-07-28: per-request
 * `_meta`, no `initialize`), `'session'` the session era (`initialize`, 2024-11-05 … 2025-11-25).
 */
export type Era = 'stateless' | 'session';

/** What `connect` tries: one era only, or `'auto'` (the stateless era first, then `initialize`). */
export type EraPreference = Era | 'auto';

/** What the era cache remembers of one server. */
export interface CachedEra {
  readonly era: Era;
  /** The stateless-era version the server accepted, for `'stateless'`. */
  readonly version?: string;
}

/**
 * Where a client remembers which era each server spoke (the spec: clients SHOULD cache the
 * era per stdio command / HTTP endpoint and re-probe when it later fails; MCP 2026-07-28,
 * Basic / Versioning §"Backward Compatibility"). Keys come from the transport's
 * `eraCacheKey`. A `Map<string, CachedEra>` is one; pass it as `ClientOptions.eraCache` to
 * keep a client's memory apart from the process-wide default.
 */
export interface EraCache {
  get(key: string): CachedEra | undefined;
  set(key: string, entry: CachedEra): void;
}

/** The era cache of every Client given none: shared by the whole process. */
const sharedCache = new Map<string, CachedEra>();

/** The process-wide era cache, used by every Client whose options name none. */
export const defaultEraCache: EraCache = sharedCache;

/** The era remembered for a server, if any. */
export function cachedEra(cache: EraCache, key: string | undefined): CachedEra | undefined {
  return key === undefined ? undefined : cache.get(key);
}

/** Remembers the era a server spoke. */
export function rememberEra(cache: EraCache, key: string | undefined, entry: CachedEra): void {
  if (key !== undefined) cache.set(key, entry);
}

/**
 * Forgets what the process-wide era cache holds for one server (`key`: a transport's
 * `eraCacheKey`), or for every server: the next `connect` with `era: 'auto'` probes again.
 * A cache given as `ClientOptions.eraCache` is its owner's to clear.
 */
export function clearEraCache(key?: string): void {
  if (key === undefined) sharedCache.clear();
  else sharedCache.delete(key);
}

/** How the answer to a `server/discover` probe classifies the server. */
export type ProbeVerdict =
  /** A stateless-era server; `supported` lists the versions it named, when it named any. */
  | { kind: 'stateless'; supported?: string[] }
  /** Not a stateless-era server: fall back to `initialize`. */
  | { kind: 'session' }
  /**
   * The server refused to say: authorization is missing or failed (HTTP 401, or an `auth`
   * strategy's flow failed). Falling back would only be refused again.
   */
  | { kind: 'refused' };

/** The codes only a 2026-07-28 server sends (`-32020` … `-32022`). */
const STATELESS_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/**
 * Classifies a failed probe. A recognized stateless-era error means a stateless-era server:
 * `-32020`, `-32021` or `-32022`, or `-32601` carried by HTTP 404 (a stateless server's
 * unknown-method answer; a session-era one's 404 has no such body). Anything else, a timeout and a
 * lost connection included, means "try `initialize`": the fallback is never keyed to one code.
 */
export function classifyProbeError(error: unknown): ProbeVerdict {
  if (error instanceof GantryError && error.code === LocalErrorCode.Authorization) return { kind: 'refused' };
  if (error instanceof HttpStatusError && error.status === 401) return { kind: 'refused' };
  if (!(error instanceof McpError)) return { kind: 'session' };
  const status = httpStatusOf(error);
  const stateless =
    STATELESS_CODES.has(error.code) || (error.code === ErrorCode.MethodNotFound && status === 404);
  if (!stateless) return { kind: 'session' };
  const supported = supportedVersionsIn(error);
  return supported === undefined ? { kind: 'stateless' } : { kind: 'stateless', supported };
}

/**
 * `data.supported` of an `UnsupportedProtocolVersionError`. Over HTTP the transport keeps the
 * answered JSON-RPC error's data, and the raw body in `data.body`; both are read.
 */
export function supportedVersionsIn(error: McpError): string[] | undefined {
  const data = error.data as ({ supported?: unknown } & Partial<HttpFailureData>) | undefined;
  const direct = stringArray(data?.supported);
  if (direct) return direct;
  if (typeof data?.body === 'string') {
    try {
      const parsed = JSON.parse(data.body) as { error?: { data?: { supported?: unknown } } };
      return stringArray(parsed?.error?.data?.supported);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/** The newest stateless-era version both sides speak, among `offered`. */
export function pickStatelessVersion(offered: readonly string[]): string | undefined {
  return offered
    .filter((version) => isStatelessVersion(version) && STATELESS_PROTOCOL_VERSIONS.includes(version))
    .sort()
    .at(-1);
}
