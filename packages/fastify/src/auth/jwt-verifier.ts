import type { AuthInfo } from '@gantry/protocol';
import type * as Jose from 'jose';
import { InvalidTokenError } from './errors';
import type { AuthOptions } from './options';

/** Options of {@link jwtVerifier}. */
export interface JwtVerifierOptions {
  /** The authorization server's JWKS (`jwks_uri` in its RFC 8414 metadata). */
  jwksUrl: string;
  /** Accepted `iss` values; checked when given (recommended). */
  issuer?: string | string[];
  /**
   * Accepted `aud` values: this server's canonical URI (RFC 8707), e.g.
   * `https://mcp.example.com/mcp`. Required: MCP servers MUST reject tokens issued for others.
   */
  audience: string | string[];
  /** Accepted `alg` values; default: any asymmetric algorithm the JWKS keys allow (jose's default). */
  algorithms?: string[];
  /**
   * Leeway in seconds for clock skew against the authorization server on `nbf`. `exp` is also
   * checked by `authenticate`, without leeway: an expired token is refused.
   */
  clockToleranceSec?: number;
}

const verifierKeys = ['jwksUrl', 'issuer', 'audience', 'algorithms', 'clockToleranceSec'];

let jose: typeof Jose | undefined;

/** jose, loaded on first use: apps without JWT auth never load it. */
function loadJose(): typeof Jose {
  jose ??= require('jose') as typeof Jose;
  return jose;
}

/**
 * A `verify` function for JWT access tokens (RFC 9068), on `jose`: keys from the
 * authorization server's JWKS (fetched on first use, cached, refetched on an unknown `kid`),
 * then signature, `iss`, `aud`, `exp` (required) and `nbf`. Claims map to AuthInfo:
 * `clientId` ← `client_id` | `azp`, `subject` ← `sub`, `scopes` ← `scope` (space-separated)
 * | `scp` (array or string), `expiresAt` ← `exp`, `resource` ← `aud` when a single string,
 * else the configured audience it contains, `extra` ← all claims.
 *
 * A token that fails → InvalidTokenError with a short reason ("token expired", "token audience
 * does not match this resource", "token signature is invalid", …) → 401. A JWKS that cannot be
 * fetched or read is the server's problem, not the token's: a plain Error (→ 500).
 * Options are checked here; bad ones throw a TypeError naming the field.
 *
 * @example
 * ```ts
 * verify: jwtVerifier({
 *   jwksUrl: 'https://auth.example.com/.well-known/jwks.json',
 *   issuer: 'https://auth.example.com',
 *   audience: 'https://mcp.example.com/mcp',
 * })
 * ```
 */
export function jwtVerifier(options: JwtVerifierOptions): AuthOptions['verify'] {
  checkJwtVerifierOptions(options);
  const { jwksUrl, issuer, audience, algorithms, clockToleranceSec } = options;
  const { createRemoteJWKSet, jwtVerify } = loadJose();
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  const audiences = typeof audience === 'string' ? [audience] : audience;
  const verifyOptions: Jose.JWTVerifyOptions = {
    audience,
    requiredClaims: ['exp'],
    ...(issuer !== undefined && { issuer }),
    ...(algorithms !== undefined && { algorithms }),
    ...(clockToleranceSec !== undefined && { clockTolerance: clockToleranceSec }),
  };
  return async (token) => {
    let payload: Jose.JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, verifyOptions));
    } catch (error) {
      throw verificationError(error, jwksUrl);
    }
    return authInfoOf(token, payload, audiences);
  };
}

function authInfoOf(token: string, payload: Jose.JWTPayload, audiences: string[]): AuthInfo {
  const auth: AuthInfo = { token, scopes: scopesOf(payload) };
  const clientId = payload.client_id ?? payload.azp;
  if (typeof clientId === 'string') auth.clientId = clientId;
  if (typeof payload.sub === 'string') auth.subject = payload.sub;
  if (typeof payload.exp === 'number') auth.expiresAt = payload.exp;
  const aud = payload.aud;
  const resource = typeof aud === 'string' ? aud : audiences.find((candidate) => aud?.includes(candidate));
  if (resource !== undefined) auth.resource = resource;
  auth.extra = { ...payload };
  return auth;
}

/** RFC 9068 §2.2.3 `scope` (space-separated); `scp` as Azure AD (string) and Okta (array) send it. */
function scopesOf(payload: Jose.JWTPayload): string[] {
  const value = payload.scope ?? payload.scp;
  if (typeof value === 'string') return value.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(value)) return value.filter((scope): scope is string => typeof scope === 'string');
  return [];
}

/** jose errors by `code` (not instanceof: the class may come from another copy of jose). */
function verificationError(error: unknown, jwksUrl: string): Error {
  const { code, claim, reason } = (error ?? {}) as { code?: unknown; claim?: unknown; reason?: unknown };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new InvalidTokenError('token expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (reason === 'missing') return new InvalidTokenError(`token lacks the '${String(claim)}' claim`);
      if (claim === 'aud') return new InvalidTokenError('token audience does not match this resource');
      if (claim === 'iss') return new InvalidTokenError('token issuer is not trusted');
      if (claim === 'nbf') return new InvalidTokenError('token is not valid yet');
      return new InvalidTokenError(`token claim '${String(claim)}' is invalid`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new InvalidTokenError('token signature is invalid');
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return new InvalidTokenError('token is signed with an unknown key');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return new InvalidTokenError('token algorithm is not accepted');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return new InvalidTokenError('token is not a well-formed JWT');
  }
  // ERR_JWKS_TIMEOUT, ERR_JWKS_INVALID, a non-200 answer, a refused connection.
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`jwtVerifier: could not use the JWKS at ${jwksUrl}: ${message}`, { cause: error });
}

function checkJwtVerifierOptions(options: unknown): asserts options is JwtVerifierOptions {
  const fail = (message: string): never => {
    throw new TypeError(`Invalid jwtVerifier options: ${message}`);
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return fail(`expected an object with 'jwksUrl' and 'audience', got ${String(options)}`);
  }
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!verifierKeys.includes(key))
      fail(`unknown option '${key}'; expected one of ${verifierKeys.join(', ')}`);
  }
  const { jwksUrl, issuer, audience, algorithms, clockToleranceSec } = record;
  if (!isHttpUrl(jwksUrl)) fail(`'jwksUrl' must be an absolute http(s) URL, got ${JSON.stringify(jwksUrl)}`);
  if (!isStringOrList(audience)) {
    fail(
      `'audience' must be this server's canonical URI (or a non-empty list of accepted audiences), e.g. "https://mcp.example.com/mcp"; got ${JSON.stringify(audience)}`,
    );
  }
  if (issuer !== undefined && !isStringOrList(issuer)) {
    fail(`'issuer' must be a non-empty string or a non-empty list of them, got ${JSON.stringify(issuer)}`);
  }
  if (algorithms !== undefined && (!isStringOrList(algorithms) || !Array.isArray(algorithms))) {
    fail(
      `'algorithms' must be a non-empty list of JWS algorithms, e.g. ["RS256"], got ${JSON.stringify(algorithms)}`,
    );
  }
  if (
    clockToleranceSec !== undefined &&
    (typeof clockToleranceSec !== 'number' || !Number.isFinite(clockToleranceSec) || clockToleranceSec < 0)
  ) {
    fail(`'clockToleranceSec' must be a number of seconds ≥ 0, got ${JSON.stringify(clockToleranceSec)}`);
  }
}

function isStringOrList(value: unknown): boolean {
  const list = Array.isArray(value) ? value : [value];
  return list.length > 0 && list.every((item) => typeof item === 'string' && item !== '');
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
