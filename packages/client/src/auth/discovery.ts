// Finding the authorization server of an MCP server (MCP 2025-11-25, Basic › Authorization
// §"Authorization Server Discovery"): Protected Resource Metadata (RFC 9728) from the
// challenge's `resource_metadata` or the well-known URIs, then the authorization server's
// metadata (RFC 8414, OpenID Connect Discovery 1.0) in the order the spec lists. A server with
// no Protected Resource Metadata is treated as MCP 2025-03-26 described it: the MCP server's
// origin is the authorization server, with default endpoints when it publishes no metadata.
import { readBodyText } from '../http-exchange';
import { AuthorizationError } from './errors';
import { checkTransportSecurity } from './insecure-http';

/** RFC 9728 §2, the members the client reads. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers?: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly [member: string]: unknown;
}

/** RFC 8414 §2, the members the client reads (oauth4webapi's `AuthorizationServer` shape). */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint?: string;
  readonly token_endpoint?: string;
  readonly registration_endpoint?: string;
  readonly scopes_supported?: readonly string[];
  readonly code_challenge_methods_supported?: readonly string[];
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  readonly grant_types_supported?: readonly string[];
  readonly client_id_metadata_document_supported?: boolean;
  readonly authorization_response_iss_parameter_supported?: boolean;
  readonly [member: string]: unknown;
}

/** What discovery found for one MCP endpoint. */
export interface Discovery {
  /** The `resource` sent in authorization and token requests (RFC 8707). */
  readonly resource: string;
  readonly resourceMetadata?: ProtectedResourceMetadata;
  readonly server: AuthorizationServerMetadata;
  /** True when the server's metadata was published (not the 2025-03-26 default endpoints). */
  readonly discovered: boolean;
  /** True on the 2025-03-26 path (no Protected Resource Metadata). */
  readonly legacy: boolean;
}

export interface DiscoveryOptions {
  readonly fetch: typeof fetch;
  readonly allowInsecureHttp: boolean;
  readonly signal?: AbortSignal;
}

const MAX_METADATA_BYTES = 256 * 1024;

/** The MCP endpoint's canonical URI (MCP 2025-11-25 §"Canonical Server URI"): no fragment, no query. */
export function canonicalResource(url: URL): string {
  const canonical = new URL(url);
  canonical.hash = '';
  canonical.search = '';
  const text = canonical.href;
  return canonical.pathname === '/' ? text.slice(0, -1) : text;
}

/** `/.well-known/<name>` inserted between host and path (RFC 8414 §3.1, RFC 9728 §3.1). */
function wellKnown(base: URL, name: string, path = base.pathname): URL {
  const trimmed = path === '/' ? '' : path.replace(/\/+$/, '');
  return new URL(`/.well-known/${name}${trimmed}`, base.origin);
}

/** GETs a JSON metadata document; undefined on 4xx (absent), an error on anything else broken. */
async function getJson(
  url: URL,
  options: DiscoveryOptions,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  checkTransportSecurity(url, what, options.allowInsecureHttp);
  let response: Response;
  try {
    response = await options.fetch(url, {
      headers: { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' },
      signal: options.signal,
    });
  } catch (error) {
    throw new AuthorizationError(`Cannot fetch the ${what} at ${url.href}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const text = await readBodyText(response, MAX_METADATA_BYTES);
  if (!response.ok) {
    throw new AuthorizationError(`The ${what} at ${url.href} answered HTTP ${response.status}`, {
      status: response.status,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AuthorizationError(`The ${what} at ${url.href} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AuthorizationError(`The ${what} at ${url.href} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * RFC 9728 §3.3 and MCP 2025-11-25: the metadata's `resource` must identify the server the
 * client is talking to. It may name the endpoint itself or a prefix of it on the same origin
 * (a server whose metadata describes its whole origin or a base path).
 */
function resourceMatches(resource: string, endpoint: URL): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  if (named.origin !== endpoint.origin || named.search !== '' || named.hash !== '') return false;
  const base = named.pathname.replace(/\/+$/, '');
  const path = endpoint.pathname.replace(/\/+$/, '');
  return base === '' || path === base || path.startsWith(`${base}/`);
}

/** RFC 9728 metadata for `endpoint`: from the challenge's URL, else path-aware, else root. */
async function protectedResourceMetadata(
  endpoint: URL,
  metadataUrl: string | undefined,
  options: DiscoveryOptions,
): Promise<ProtectedResourceMetadata | undefined> {
  const candidates: URL[] = [];
  if (metadataUrl !== undefined) {
    try {
      candidates.push(new URL(metadataUrl, endpoint));
    } catch {
      // A broken resource_metadata parameter: fall back to the well-known URIs.
    }
  }
  if (endpoint.pathname !== '/' && endpoint.pathname !== '') {
    candidates.push(wellKnown(endpoint, 'oauth-protected-resource'));
  }
  candidates.push(wellKnown(endpoint, 'oauth-protected-resource', '/'));
  for (const url of candidates) {
    const document = await getJson(url, options, 'protected resource metadata');
    if (document === undefined) continue;
    if (typeof document.resource !== 'string') {
      throw new AuthorizationError(
        `The protected resource metadata at ${url.href} has no "resource" (RFC 9728 §2)`,
      );
    }
    if (!resourceMatches(document.resource, endpoint)) {
      throw new AuthorizationError(
        `The protected resource metadata at ${url.href} is for ${document.resource}, not for ${endpoint.href}: refusing to send a token for another resource (RFC 9728 §3.3)`,
      );
    }
    return document as ProtectedResourceMetadata;
  }
  return undefined;
}

/**
 * Authorization server metadata for `issuer`, trying (MCP 2025-11-25 §"Authorization Server
 * Metadata Discovery"): for an issuer with a path, the OAuth well-known URI with the path
 * inserted, OpenID Connect with the path inserted, then OpenID Connect with the path appended;
 * without a path, the OAuth then the OpenID Connect well-known URI.
 */
async function authorizationServerMetadata(
  issuer: URL,
  options: DiscoveryOptions,
  checkIssuer: boolean,
): Promise<AuthorizationServerMetadata | undefined> {
  const path = issuer.pathname.replace(/\/+$/, '');
  const candidates =
    path === ''
      ? [wellKnown(issuer, 'oauth-authorization-server', '/'), wellKnown(issuer, 'openid-configuration', '/')]
      : [
          wellKnown(issuer, 'oauth-authorization-server'),
          wellKnown(issuer, 'openid-configuration'),
          new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
        ];
  for (const url of candidates) {
    const document = await getJson(url, options, 'authorization server metadata');
    if (document === undefined) continue;
    if (typeof document.issuer !== 'string') {
      throw new AuthorizationError(
        `The authorization server metadata at ${url.href} has no "issuer" (RFC 8414 §2)`,
      );
    }
    // RFC 8414 §3.3: the issuer must be the one the metadata was looked up for.
    if (checkIssuer && stripSlash(document.issuer) !== stripSlash(issuer.href)) {
      throw new AuthorizationError(
        `The authorization server metadata at ${url.href} names issuer ${document.issuer}, not ${issuer.href} (RFC 8414 §3.3)`,
      );
    }
    return document as AuthorizationServerMetadata;
  }
  return undefined;
}

function stripSlash(text: string): string {
  return text.replace(/\/+$/, '');
}

/**
 * Discovers how to authorize against `endpoint`. `metadataUrl` is the challenge's
 * `resource_metadata`, when the 401 carried one.
 */
export async function discover(
  endpoint: URL,
  metadataUrl: string | undefined,
  options: DiscoveryOptions,
): Promise<Discovery> {
  const resourceMetadata = await protectedResourceMetadata(endpoint, metadataUrl, options);
  if (resourceMetadata !== undefined) {
    const issuerText = resourceMetadata.authorization_servers?.[0];
    if (typeof issuerText !== 'string') {
      throw new AuthorizationError(
        `The protected resource metadata of ${endpoint.href} lists no authorization server (MCP 2025-11-25 requires "authorization_servers")`,
      );
    }
    const issuer = new URL(issuerText);
    const server = await authorizationServerMetadata(issuer, options, true);
    if (server === undefined) {
      throw new AuthorizationError(
        `The authorization server ${issuer.href} publishes no metadata at any of the well-known URIs (RFC 8414, OpenID Connect Discovery)`,
      );
    }
    return { resource: resourceMetadata.resource, resourceMetadata, server, discovered: true, legacy: false };
  }
  // MCP 2025-03-26 §"Server Metadata Discovery": the authorization base URL is the MCP server's
  // origin; without metadata there, the default endpoints apply.
  const base = new URL(endpoint.origin);
  const server = await authorizationServerMetadata(base, options, false);
  if (server !== undefined) {
    return { resource: canonicalResource(endpoint), server, discovered: true, legacy: true };
  }
  return {
    resource: canonicalResource(endpoint),
    server: {
      issuer: base.origin,
      authorization_endpoint: new URL('/authorize', base).href,
      token_endpoint: new URL('/token', base).href,
      registration_endpoint: new URL('/register', base).href,
    },
    discovered: false,
    legacy: true,
  };
}
