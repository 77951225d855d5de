import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endpointUrls, metadataPathOf, WELL_KNOWN_PRM } from './endpoint-urls';
import type { AuthOptions } from './options';

/** The RFC 9728 §2 document, with the members MCP uses, in the order they are sent. */
interface MetadataDocument {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: ['header'];
  resource_name?: string;
  resource_documentation?: string;
}

/**
 * Registers GET `/.well-known/oauth-protected-resource` and the path-suffixed form
 * `/.well-known/oauth-protected-resource<mcpPath>` (RFC 9728 §3.1) on `fastify`, answering the
 * metadata JSON with `Access-Control-Allow-Origin: *` (it is public, and browser clients
 * discover it cross-origin), plus their OPTIONS preflights.
 *
 * Both documents name the MCP endpoint as `resource`: clients that fall back to the root
 * document (2025-06-18 shows that path) then ask for tokens with the audience this server
 * checks. With `metadata.resource` set, the suffixed path is that URL's path.
 *
 * Well-known URIs live at the origin root, so `fastify` must have no route prefix: under a
 * prefix, call this on the root instance with the full MCP path. A path already registered (a
 * second MCP endpoint sharing the root document) is left as it is.
 *
 * @example
 * ```ts
 * registerProtectedResourceMetadata(app, checkAuthOptions(auth), '/mcp');
 * ```
 */
export function registerProtectedResourceMetadata(
  fastify: FastifyInstance,
  options: AuthOptions,
  mcpPath: string,
): void {
  if (typeof mcpPath !== 'string' || !/^\/[^?#*:]*$/.test(mcpPath)) {
    throw new TypeError(
      `registerProtectedResourceMetadata: mcpPath must be the endpoint's path, starting with "/" and without query, fragment, ":" or "*"; got ${JSON.stringify(mcpPath)}`,
    );
  }
  if (fastify.prefix !== '') {
    throw new TypeError(
      `registerProtectedResourceMetadata: RFC 9728 metadata is served from the origin root, but this Fastify instance adds the prefix "${fastify.prefix}" to its routes; call it on an instance without a prefix, passing the full MCP path`,
    );
  }
  const { metadata } = options;
  const configured = metadata.resource;
  const rest = {
    authorization_servers: metadata.authorizationServers,
    ...(metadata.scopesSupported && { scopes_supported: metadata.scopesSupported }),
    bearer_methods_supported: ['header'] as ['header'],
    ...(metadata.resourceName !== undefined && { resource_name: metadata.resourceName }),
    ...(metadata.resourceDocumentation !== undefined && {
      resource_documentation: metadata.resourceDocumentation,
    }),
  };
  // A configured resource makes the document static: serialize it once.
  const fixed = configured === undefined ? undefined : JSON.stringify({ resource: configured, ...rest });

  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('access-control-allow-origin', '*').type('application/json; charset=utf-8');
    if (fixed !== undefined) return reply.send(fixed);
    const document: MetadataDocument = {
      resource: endpointUrls(request, options, mcpPath).resourceUrl,
      ...rest,
    };
    return reply.send(JSON.stringify(document));
  };
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const requested = request.headers['access-control-request-headers'];
    reply
      .code(204)
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'GET, OPTIONS');
    // Browser MCP clients send MCP-Protocol-Version during discovery; the document is public.
    if (typeof requested === 'string' && requested !== '')
      reply.header('access-control-allow-headers', requested);
    return reply.send();
  };

  const suffixed =
    configured === undefined
      ? metadataPathOf(new URL(mcpPath, 'http://x'))
      : metadataPathOf(new URL(configured));
  for (const url of new Set([suffixed, WELL_KNOWN_PRM])) {
    if (!fastify.hasRoute({ method: 'GET', url })) fastify.get(url, answer);
    if (!fastify.hasRoute({ method: 'OPTIONS', url })) fastify.options(url, preflight);
  }
}
