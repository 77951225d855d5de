import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type AuthOptions, checkAuthOptions, registerProtectedResourceMetadata } from './auth';

export interface ProtectedResourceMetadataOptions {
  /** The same auth options given to `gantryMcp`. */
  auth: AuthOptions;
  /** The full path of the MCP endpoint, prefix included, e.g. `/api/mcp`. */
  mcpPath: string;
}

async function metadataPlugin(
  fastify: FastifyInstance,
  options: ProtectedResourceMetadataOptions,
): Promise<void> {
  if (typeof options?.mcpPath !== 'string' || !options.mcpPath.startsWith('/')) {
    throw new TypeError(
      'protectedResourceMetadata: mcpPath must be the full path of the MCP endpoint, e.g. /api/mcp',
    );
  }
  registerProtectedResourceMetadata(fastify, checkAuthOptions(options.auth), options.mcpPath);
}

/**
 * Serves the RFC 9728 protected-resource metadata at the origin's root, for a `gantryMcp`
 * registered under a prefix (which cannot add root routes itself). Register it on the root
 * Fastify instance.
 *
 * @example
 * ```ts
 * await fastify.register(protectedResourceMetadata, { auth, mcpPath: '/api/mcp' });
 * await fastify.register(async (api) => api.register(gantryMcp, { app, auth }), { prefix: '/api' });
 * ```
 */
export const protectedResourceMetadata = fp(metadataPlugin, {
  name: '@gantry/fastify/metadata',
  fastify: '5.x',
});
