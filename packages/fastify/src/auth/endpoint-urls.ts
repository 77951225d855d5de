import type { FastifyRequest } from 'fastify';
import type { AuthOptions } from './options';

/** RFC 9728 §3: the well-known path segment of protected resource metadata. */
export const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource';

/** The two URLs a challenge and the metadata document refer to. */
export interface EndpointUrls {
  /** Where the protected resource metadata lives (`resource_metadata` in challenges). */
  metadataUrl: string;
  /** The canonical URI of the MCP endpoint: the PRM `resource` and the expected token audience. */
  resourceUrl: string;
}

// RFC 9110 §7.2 Host = uri-host [ ":" port ], restricted to what can be put in a URL and inside
// a quoted header parameter unchanged (WHATWG URL lets '"' through in a host).
const hostPattern = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The metadata URL and resource URL for a request to the MCP endpoint, so 401s point at the
 * right document. With `metadata.resource` set both come from it; otherwise the resource is
 * `<protocol>://<Host><mcpPath>` (`request.protocol`/`request.host`, which follow
 * X-Forwarded-* only when Fastify's `trustProxy` says so). The metadata URL inserts
 * `/.well-known/oauth-protected-resource` between host and path (RFC 9728 §3.1).
 *
 * A request whose Host cannot form a URL throws an error with `statusCode: 400`.
 *
 * @example
 * ```ts
 * endpointUrls(request, options, '/mcp');
 * // { metadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
 * //   resourceUrl: 'https://mcp.example.com/mcp' }
 * ```
 */
export function endpointUrls(request: FastifyRequest, options: AuthOptions, mcpPath: string): EndpointUrls {
  const configured = options.metadata.resource;
  if (configured !== undefined) {
    // Published verbatim: it is what clients send as `resource` and what tokens name.
    return { metadataUrl: metadataUrlOf(new URL(configured)), resourceUrl: configured };
  }
  const host = request.host;
  if (typeof host !== 'string' || !hostPattern.test(host)) {
    throw Object.assign(new Error('Bad Request: the Host header is missing or malformed'), {
      statusCode: 400,
    });
  }
  const resource = new URL(mcpPath, `${request.protocol}://${host}`);
  return {
    metadataUrl: metadataUrlOf(resource),
    // MCP: the canonical URI SHOULD omit a trailing slash that carries no meaning.
    resourceUrl: resource.pathname === '/' ? resource.origin : resource.href,
  };
}

/** The path the metadata of a resource is served at, e.g. `/.well-known/oauth-protected-resource/mcp`. */
export function metadataPathOf(resource: URL): string {
  // RFC 9728 §3.1: a path of just "/" is dropped before the well-known segment is inserted.
  return resource.pathname === '/' ? WELL_KNOWN_PRM : `${WELL_KNOWN_PRM}${resource.pathname}`;
}

function metadataUrlOf(resource: URL): string {
  return `${resource.origin}${metadataPathOf(resource)}`;
}

/**
 * Whether a token's reported audience names this resource: equal once parsed as URLs, which
 * forgives scheme/host case and a default port (MCP: SHOULD accept uppercase scheme and host)
 * and one trailing slash (clients are told to omit it, some do not).
 */
export function sameResource(reported: string, expected: string): boolean {
  return comparable(reported) === comparable(expected);
}

function comparable(value: string): string {
  try {
    const url = new URL(value);
    url.hash = '';
    return url.href.endsWith('/') ? url.href.slice(0, -1) : url.href;
  } catch {
    return value;
  }
}
