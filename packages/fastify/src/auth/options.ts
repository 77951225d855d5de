import type { AuthInfo } from '@gantry/protocol';
import { isObject } from '@gantry/protocol';
import type { FastifyRequest } from 'fastify';
import { isScopeToken } from './errors';

/**
 * What the server publishes as its OAuth 2.0 Protected Resource Metadata (RFC 9728), served at
 * `/.well-known/oauth-protected-resource[<mcp path>]`. `bearer_methods_supported` is always
 * `["header"]`: MCP clients MUST send the token in the `Authorization` header and never in the
 * query string (2025-06-18 "Access Token Usage"), so there is nothing to choose.
 *
 * @example
 * ```ts
 * metadata: { authorizationServers: ['https://auth.example.com'], scopesSupported: ['notes:read'] }
 * ```
 */
export interface ProtectedResourceMetadata {
  /** Issuer URLs of the authorization servers that issue tokens for this server (`authorization_servers`, ≥ 1). */
  authorizationServers: string[];
  /** The minimal scopes for basic use; clients request all of them when a 401 names none (`scopes_supported`). */
  scopesSupported?: string[];
  /**
   * The canonical URI of the MCP endpoint (`resource`), which tokens must name as audience.
   * Default: derived per request from its protocol, `Host` and the MCP path. Set it in
   * production: a derived value trusts the `Host` header, so without Host validation a token
   * issued for another resource could be replayed here under a forged `Host`.
   */
  resource?: string;
  /** Human-readable name of the server (`resource_name`). */
  resourceName?: string;
  /** URL of developer documentation (`resource_documentation`). */
  resourceDocumentation?: string;
}

/**
 * Options of the OAuth 2.1 resource-server layer (MCP 2025-06-18 and later "Authorization").
 *
 * @example
 * ```ts
 * const auth: AuthOptions = {
 *   verify: jwtVerifier({ jwksUrl: 'https://auth.example.com/jwks', issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp' }),
 *   metadata: { authorizationServers: ['https://auth.example.com'], resource: 'https://mcp.example.com/mcp' },
 *   requiredScopes: ['mcp'],
 * };
 * ```
 */
export interface AuthOptions {
  /**
   * Verifies a bearer token: AuthInfo when valid, undefined (or throw InvalidTokenError) when
   * not. Expand scope hierarchies here (a broader scope implying narrower ones, 2026-07-28):
   * scope checks compare `AuthInfo.scopes` by exact string. Any other thrown error is a server
   * failure (500), not the client's fault. Never forward the token upstream (no passthrough).
   */
  verify(token: string, request: FastifyRequest): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  metadata: ProtectedResourceMetadata;
  /** Scopes every MCP request needs; missing ones → 403 insufficient_scope (step-up). */
  requiredScopes?: string[];
  /**
   * Check that the token was issued for this resource (RFC 8707 audience). Default true:
   * AuthInfo.resource, when the verifier sets it, must equal the resource URL (scheme and host
   * case, a default port and one trailing slash aside). A verifier that cannot report the
   * audience must check it itself.
   */
  checkResource?: boolean;
}

const optionKeys = ['verify', 'metadata', 'requiredScopes', 'checkResource'];
const metadataKeys = [
  'authorizationServers',
  'scopesSupported',
  'resource',
  'resourceName',
  'resourceDocumentation',
];

/**
 * Validates options at register time; throws a TypeError naming the bad field. Returns a copy
 * with the defaults filled in (`requiredScopes: []`, `checkResource: true`), so later changes
 * to the caller's object do not leak into running requests.
 */
export function checkAuthOptions(options: unknown): AuthOptions {
  if (!isObject(options)) {
    fail(`expected an object with 'verify' and 'metadata', got ${show(options)}`);
  }
  checkKnownKeys(options, optionKeys, '');
  if (typeof options.verify !== 'function') {
    fail(
      `'verify' must be a function (token, request) => AuthInfo | undefined; for JWTs use jwtVerifier({ jwksUrl, audience }), got ${show(options.verify)}`,
    );
  }
  const metadata = checkMetadata(options.metadata);
  const requiredScopes = options.requiredScopes ?? [];
  checkScopes(requiredScopes, 'requiredScopes');
  const checkResource = options.checkResource ?? true;
  if (typeof checkResource !== 'boolean') {
    fail(`'checkResource' must be a boolean, got ${show(checkResource)}`);
  }
  return {
    // Bound, so a verify method that uses `this` keeps working when called from the copy.
    verify: (options.verify as AuthOptions['verify']).bind(options),
    metadata,
    requiredScopes: [...requiredScopes],
    checkResource,
  };
}

function checkMetadata(metadata: unknown): ProtectedResourceMetadata {
  if (!isObject(metadata)) {
    fail(`'metadata' must be an object with at least 'authorizationServers', got ${show(metadata)}`);
  }
  checkKnownKeys(metadata, metadataKeys, 'metadata.');
  const { authorizationServers, scopesSupported, resource, resourceName, resourceDocumentation } = metadata;
  if (!Array.isArray(authorizationServers) || authorizationServers.length === 0) {
    fail(
      `'metadata.authorizationServers' must list at least one authorization server issuer URL (RFC 9728 authorization_servers, required by MCP), got ${show(authorizationServers)}`,
    );
  }
  authorizationServers.forEach((issuer, i) => {
    if (!isHttpUrl(issuer)) {
      fail(
        `'metadata.authorizationServers[${i}]' must be an absolute http(s) URL without query or fragment (an issuer identifier, RFC 8414 §2), got ${show(issuer)}`,
      );
    }
  });
  const copy: ProtectedResourceMetadata = { authorizationServers: [...authorizationServers] };
  if (scopesSupported !== undefined) {
    checkScopes(scopesSupported, 'metadata.scopesSupported');
    copy.scopesSupported = [...scopesSupported];
  }
  if (resource !== undefined) {
    if (!isHttpUrl(resource)) {
      fail(
        `'metadata.resource' must be the absolute http(s) URL of the MCP endpoint, without query or fragment (e.g. "https://mcp.example.com/mcp"), got ${show(resource)}`,
      );
    }
    copy.resource = resource;
  }
  if (resourceName !== undefined) {
    if (typeof resourceName !== 'string' || resourceName === '') {
      fail(`'metadata.resourceName' must be a non-empty string, got ${show(resourceName)}`);
    }
    copy.resourceName = resourceName;
  }
  if (resourceDocumentation !== undefined) {
    if (!isHttpUrl(resourceDocumentation, true)) {
      fail(
        `'metadata.resourceDocumentation' must be an absolute http(s) URL, got ${show(resourceDocumentation)}`,
      );
    }
    copy.resourceDocumentation = resourceDocumentation;
  }
  return copy;
}

function checkScopes(scopes: unknown, field: string): asserts scopes is string[] {
  if (!Array.isArray(scopes)) {
    fail(`'${field}' must be an array of scope strings, got ${show(scopes)}`);
  }
  scopes.forEach((scope, i) => {
    if (!isScopeToken(scope)) {
      fail(
        `'${field}[${i}]' must be a scope token (printable ASCII without spaces, quotes or backslashes, RFC 6749 §3.3), got ${show(scope)}`,
      );
    }
    if (scope === 'offline_access') {
      // 2026-07-28: refresh tokens are the client's business, not a resource requirement.
      fail(
        `'${field}[${i}]' is "offline_access", which a resource server should neither advertise nor require (MCP 2026-07-28); remove it`,
      );
    }
  });
}

function checkKnownKeys(object: Record<string, unknown>, known: string[], prefix: string): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      fail(`unknown option '${prefix}${key}'; expected one of ${known.map((k) => prefix + k).join(', ')}`);
    }
  }
}

function isHttpUrl(value: unknown, allowQuery = false): value is string {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  return !value.includes('#') && (allowQuery || !value.includes('?'));
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (value === null || value === undefined || typeof value !== 'object') return String(value);
  if (!Array.isArray(value)) return 'an object';
  const json = JSON.stringify(value);
  return json.length <= 80 ? json : 'an array';
}

function fail(message: string): never {
  throw new TypeError(`Invalid auth options: ${message}`);
}
