import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthInfo } from '@gantry/protocol';
import { isObject } from '@gantry/protocol';

/**
 * Simple authentication for personal and internal servers: a fixed set of API keys (or a lookup
 * of your own) instead of an OAuth authorization server. The rules, where MCP says nothing (its
 * "Authorization" section specifies OAuth only):
 *
 * - A key arrives as `Authorization: Bearer <key>` (RFC 6750 §2.1 syntax, so MCP clients that
 *   take a static bearer token work unchanged) or as `X-API-Key: <key>` (`header` option). Both
 *   at once must carry the same key. Keys in the URL query are refused (400): URLs end up in
 *   proxy and access logs.
 * - Comparison does not depend on how much of a key matches: every presented key is hashed
 *   with SHA-256 and its digest compared with each stored key's digest by
 *   `crypto.timingSafeEqual` (equal lengths, so no early exit on length), the whole list each time.
 * - The caller becomes `AuthInfo { token: <key>, clientId: "apikey:<name>", scopes }`, whose
 *   principal (`client:apikey:<name>`) binds sessions and `requestState` as an OAuth client's does;
 *   `<name>` is the key's name, or the first 12 hex digits of its SHA-256 when it has none.
 *   No OAuth metadata is served, and refusals challenge with `Bearer realm="mcp"` alone.
 */

/** One key with the principal it stands for. */
export interface ApiKeyEntry {
  /** The secret: at least 16 visible ASCII characters (`openssl rand -hex 32` makes a good one). */
  key: string;
  /** Who holds it: `ctx.auth.clientId` becomes `apikey:<name>`. Keys sharing a name are one principal (rotation). */
  name?: string;
  /** Scopes guards see in `ctx.auth.scopes`. Default none. */
  scopes?: readonly string[];
  /** Copied into `ctx.auth.extra`. */
  extra?: Readonly<Record<string, unknown>>;
}

/** Who a key found by `verify` stands for. */
export interface ApiKeyIdentity {
  /** `ctx.auth.clientId` becomes `apikey:<name>`. */
  name: string;
  scopes?: readonly string[];
  extra?: Readonly<Record<string, unknown>>;
}

/** The part of an HTTP request API-key auth reads (a `FastifyRequest` or an upgrade's `IncomingMessage`). */
export interface ApiKeyRequest {
  readonly headers: IncomingHttpHeaders;
  readonly url?: string;
}

/** Options of {@link apiKeys}: `keys`, `verify`, or both (the list is tried first). */
export interface ApiKeysOptions {
  /**
   * The accepted keys: a comma-separated string (as an environment variable holds them:
   * `process.env.MCP_API_KEYS`), an array of keys or of {@link ApiKeyEntry}, or a record from
   * name to key. Undefined with no `verify` is refused at once, so an unset variable never
   * leaves a server open.
   */
  keys?: string | readonly (string | ApiKeyEntry)[] | Readonly<Record<string, string>>;
  /**
   * Looks up a key that is not in `keys` (a database, a secrets manager): its identity, or
   * undefined to refuse it with 401. Compare secrets with {@link constantTimeEqual}. A thrown
   * error is a server failure (500 on HTTP, 500 on a WebSocket upgrade), not the client's fault.
   */
  verify?: (
    key: string,
    request: ApiKeyRequest,
  ) => ApiKeyIdentity | undefined | Promise<ApiKeyIdentity | undefined>;
  /** The header that carries a key besides `Authorization: Bearer`. Default `x-api-key`. */
  header?: string;
}

/** Keys shorter than this are refused when the options are checked. */
export const MIN_API_KEY_LENGTH = 16;

/** The challenge of every refusal: no `resource_metadata`, since there is no OAuth to discover. */
export const API_KEY_CHALLENGE = 'Bearer realm="mcp"';

/** The outcome of {@link ApiKeyAuth.authenticate}. */
export type ApiKeyOutcome =
  | { ok: true; auth: AuthInfo }
  | {
      ok: false;
      /** 401: no key or an unknown one; 400: a malformed header or a key in the URL. */
      status: 400 | 401;
      /** What went wrong, for the response body; never contains the key. */
      message: string;
      /** The `WWW-Authenticate` value to send. */
      challenge: string;
    };

interface StoredKey {
  readonly digest: Buffer;
  readonly identity: Readonly<AuthInfoParts>;
}

interface AuthInfoParts {
  clientId: string;
  scopes: string[];
  extra?: Record<string, unknown>;
}

const API_KEY_BRAND = Symbol.for('@gantry/core.apiKeys');
const QUERY_NAMES = ['access_token', 'api_key', 'apikey'];
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BEARER = /^bearer(?: +(.*))?$/i;

/** Authenticates requests by API key; made by {@link apiKeys}, given as `auth` (HTTP) or `authenticate` (WebSocket). */
export class ApiKeyAuth {
  /** @internal */
  readonly [API_KEY_BRAND] = true;
  /** The header carrying a key besides `Authorization`, lowercase. */
  readonly header: string;
  private readonly stored: readonly StoredKey[];
  private readonly verify: ApiKeysOptions['verify'];
  private readonly missing: string;
  private readonly shown: string;

  /** @internal Use {@link apiKeys}, which checks the options. */
  constructor(stored: readonly StoredKey[], verify: ApiKeysOptions['verify'], header: string) {
    this.stored = stored;
    this.verify = verify;
    this.header = header.toLowerCase();
    this.shown = displayName(header);
    this.missing = `Authentication required: send an API key as "Authorization: Bearer <key>" or "${displayName(header)}: <key>"`;
  }

  /** Finds who `request` is; never rejects except when `verify` throws. */
  async authenticate(request: ApiKeyRequest): Promise<ApiKeyOutcome> {
    if (keyInQuery(request.url)) {
      return refuse(400, 'Bad Request: API keys must not be sent in the URL; send them in a header');
    }
    const presented = presentedKey(request.headers, this.header, this.shown);
    if (presented === undefined) return refuse(401, this.missing);
    if (typeof presented !== 'string') return refuse(400, `Bad Request: ${presented.problem}`);
    const digest = sha256(presented);
    let found: StoredKey | undefined;
    for (const entry of this.stored) {
      // Every entry is compared, so the time taken does not tell which one (if any) matched.
      if (timingSafeEqual(digest, entry.digest) && found === undefined) found = entry;
    }
    if (found) return { ok: true, auth: authInfo(presented, found.identity) };
    if (this.verify) {
      const identity = await this.verify(presented, request);
      if (identity !== undefined && identity !== null) {
        return { ok: true, auth: authInfo(presented, checkIdentity(identity)) };
      }
    }
    return refuse(401, 'Invalid API key: not recognized');
  }
}

/**
 * API-key authentication for `gantryMcp` / `http()` (`auth`) and `@gantry/ws` (`authenticate`).
 * Checks the options at once and throws a TypeError naming the problem (never the key).
 *
 * @example
 * ```ts
 * await app.listen(http({ auth: apiKeys({ keys: process.env.MCP_API_KEYS }) }));   // "key1,key2"
 * apiKeys({ keys: [{ key: process.env.CI_KEY!, name: 'ci', scopes: ['notes:read'] }] });
 * apiKeys({ verify: async (key) => (await db.findKey(key)) && { name: 'alice' } });
 * ```
 */
export function apiKeys(options: ApiKeysOptions): ApiKeyAuth {
  if (!isObject(options)) fail(`expected an object with 'keys' or 'verify', got ${typeof options}`);
  for (const name of Object.keys(options)) {
    if (!['keys', 'verify', 'header'].includes(name)) {
      fail(`unknown option '${name}'; expected keys, verify or header`);
    }
  }
  const { keys, verify, header = 'x-api-key' } = options as ApiKeysOptions;
  if (verify !== undefined && typeof verify !== 'function') {
    fail(`'verify' must be a function (key, request) => { name } | undefined, got ${typeof verify}`);
  }
  if (typeof header !== 'string' || !HEADER_NAME.test(header) || header.toLowerCase() === 'authorization') {
    fail(
      `'header' must be a header name other than Authorization (e.g. "x-api-key"), got ${JSON.stringify(header)}`,
    );
  }
  const stored = keys === undefined && verify ? [] : storedKeys(keys);
  return new ApiKeyAuth(stored, verify?.bind(options), header);
}

/** Whether `value` was made by {@link apiKeys} (also across copies of this package). */
export function isApiKeyAuth(value: unknown): value is ApiKeyAuth {
  return isObject(value) && (value as Record<symbol, unknown>)[API_KEY_BRAND] === true;
}

/**
 * Compares two secrets in time that depends on neither their contents nor their lengths: both
 * are hashed with SHA-256 and the digests compared with `crypto.timingSafeEqual`.
 *
 * @example
 * ```ts
 * verify: (key) => (constantTimeEqual(key, process.env.ADMIN_KEY!) ? { name: 'admin' } : undefined)
 * ```
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

function storedKeys(keys: ApiKeysOptions['keys']): StoredKey[] {
  let entries: { entry: ApiKeyEntry; where: string }[];
  if (keys === undefined) {
    fail(
      "'keys' is undefined and there is no 'verify': if the keys come from an environment variable, it is not set",
    );
  } else if (typeof keys === 'string') {
    entries = keys
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== '')
      .map((key, i) => ({ entry: { key }, where: `keys (comma-separated) entry ${i + 1}` }));
  } else if (Array.isArray(keys)) {
    entries = keys.map((item, i) => ({
      entry: typeof item === 'string' ? { key: item } : (item as ApiKeyEntry),
      where: `keys[${i}]`,
    }));
  } else if (isObject(keys)) {
    entries = Object.entries(keys).map(([name, key]) => ({
      entry: { key: key as string, name },
      where: `keys[${JSON.stringify(name)}]`,
    }));
  } else {
    fail(`'keys' must be a comma-separated string, an array or a record of name → key, got ${typeof keys}`);
  }
  if (entries.length === 0) fail("'keys' lists no key; give at least one, or a 'verify' function");
  const seen = new Set<string>();
  return entries.map(({ entry, where }) => {
    if (!isObject(entry)) fail(`${where} must be a key string or { key, name?, scopes? }`);
    for (const name of Object.keys(entry)) {
      if (!['key', 'name', 'scopes', 'extra'].includes(name)) {
        fail(`${where} has unknown field '${name}'; expected key, name, scopes or extra`);
      }
    }
    const { key } = entry;
    if (typeof key !== 'string' || !VISIBLE_ASCII.test(key)) {
      fail(`${where}: a key must be a string of visible ASCII characters (no spaces)`);
    }
    if (key.length < MIN_API_KEY_LENGTH) {
      fail(
        `${where} is ${key.length} characters long; API keys need at least ${MIN_API_KEY_LENGTH} (make one with \`openssl rand -hex 32\`)`,
      );
    }
    const digest = sha256(key);
    const hex = digest.toString('hex');
    if (seen.has(hex)) fail(`${where} repeats a key listed before it`);
    seen.add(hex);
    const identity = checkIdentity({ ...entry, name: entry.name ?? hex.slice(0, 12) }, where);
    return { digest, identity };
  });
}

function checkIdentity(identity: ApiKeyIdentity, where = 'verify result'): AuthInfoParts {
  if (
    !isObject(identity) ||
    typeof identity.name !== 'string' ||
    !/^[\x21-\x7E]{1,200}$/.test(identity.name)
  ) {
    throw new TypeError(
      `Invalid API key options: ${where}: 'name' must be 1 to 200 visible ASCII characters${where === 'verify result' ? '; verify returns { name, scopes? } or undefined' : ''}`,
    );
  }
  const scopes = identity.scopes ?? [];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && s !== '')) {
    throw new TypeError(`Invalid API key options: ${where}: 'scopes' must be an array of non-empty strings`);
  }
  if (identity.extra !== undefined && !isObject(identity.extra)) {
    throw new TypeError(`Invalid API key options: ${where}: 'extra' must be an object`);
  }
  return {
    clientId: `apikey:${identity.name}`,
    scopes: [...scopes],
    ...(identity.extra && { extra: { ...identity.extra } }),
  };
}

function authInfo(key: string, identity: Readonly<AuthInfoParts>): AuthInfo {
  // A fresh object per request: handlers may not change what the next request sees.
  return {
    token: key,
    clientId: identity.clientId,
    scopes: [...identity.scopes],
    ...(identity.extra && { extra: { ...identity.extra } }),
  };
}

/** The key a request presents, undefined when none, or the problem with its headers. */
function presentedKey(
  headers: IncomingHttpHeaders,
  name: string,
  shown: string,
): string | { problem: string } | undefined {
  let bearer: string | undefined;
  const authorization = headers.authorization;
  if (authorization !== undefined && authorization !== '') {
    // Another scheme (Basic from a proxy in front) is not ours to judge: the key header may follow.
    const match = BEARER.exec(authorization.trim());
    if (match) {
      bearer = match[1]?.trim();
      if (!bearer || /\s/.test(bearer))
        return { problem: "malformed Authorization header; expected 'Bearer <key>'" };
    }
  }
  const raw = headers[name];
  if (Array.isArray(raw)) return { problem: `the ${shown} header was sent more than once` };
  const keyed = raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  if (bearer !== undefined && keyed !== undefined && !constantTimeEqual(bearer, keyed)) {
    return { problem: `Authorization and ${shown} carry different keys; send one` };
  }
  return bearer ?? keyed;
}

function keyInQuery(url: string | undefined): boolean {
  const q = url?.indexOf('?') ?? -1;
  if (q === -1 || url === undefined) return false;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of params.keys()) if (QUERY_NAMES.includes(name.toLowerCase())) return true;
  return false;
}

function refuse(status: 400 | 401, message: string): ApiKeyOutcome {
  return { ok: false, status, message, challenge: API_KEY_CHALLENGE };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The header as the options spelled it, `x-api-key` as `X-API-Key`, for messages. */
function displayName(header: string): string {
  return header.toLowerCase() === 'x-api-key' ? 'X-API-Key' : header;
}

function fail(message: string): never {
  throw new TypeError(`Invalid API key options: ${message}`);
}
