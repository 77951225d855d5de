import type { ConnectionHost } from '@gantry/core';
import { ErrorCode } from '@gantry/protocol';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerProtectedResourceMetadata } from './auth';
import { registerBodyParsers, registerErrorHandler } from './body-parsing';
import { sendError } from './errors';
import { registerHealth } from './health';
import { registerLegacySse } from './legacy-sse';
import { registerMetricsEndpoint } from './metrics-endpoint';
import type { GantryMcpOptions, ResolvedOptions } from './options';
import { decorateRequestAuth } from './request-auth';
import { resolveOptions } from './resolve-options';
import { EndpointContext } from './routes/context';
import { registerDelete } from './routes/delete';
import { registerGet } from './routes/get';
import { registerPost } from './routes/post';
import { applyCors, hostOriginProblem, preflight } from './security';

/** Registers the MCP endpoint of `host` on `fastify` (an encapsulated context). */
export async function serveMcp(fastify: FastifyInstance, options: ResolvedOptions): Promise<void> {
  const host: ConnectionHost = options.host;
  host.servesNetwork();
  const mcpPath = `${fastify.prefix}${options.path}`;
  const context = new EndpointContext(options, host, mcpPath);
  decorateRequestAuth(fastify);
  registerBodyParsers(fastify, options.bodyLimit);
  registerErrorHandler(fastify, options.bodyLimit, host.logger);

  // DNS-rebinding protection and CORS first, then authentication (MCP 2025-11-25, Basic /
  // Transports / Security Warning: an invalid Origin → 403).
  // Probes skip the Host/Origin check: Kubernetes sends `Host: <pod ip>:<port>`, which a loopback
  // default or an `allowedHosts` list refuses, and a rebound page can only read `{"status":…}`.
  const probes = options.health ? registerHealth(fastify, host, options.health) : undefined;
  // Callback style, as every hook on the request path: an async hook costs two promises per
  // request, which an OpenTelemetry SDK's context manager then tracks too (apps/bench --only-otel).
  fastify.addHook('onRequest', (request, reply, done) => {
    if (probes?.has(request.routeOptions.url ?? '')) return done();
    const problem = hostOriginProblem(request, options, request.url.startsWith('/.well-known/'));
    // Answered here: Fastify skips the rest of the request when a hook replies without done().
    if (problem) return void sendError(reply, 403, ErrorCode.ServerError, problem);
    applyCors(request, reply, options);
    done();
  });

  // RFC 9728 metadata lives at the origin's root, which a prefixed plugin cannot reach: then the
  // app registers `protectedResourceMetadata` at its root.
  if (options.auth && fastify.prefix === '') {
    registerProtectedResourceMetadata(fastify, options.auth, mcpPath);
  } else if (options.auth) {
    host.logger.warn(
      `gantryMcp is registered under the prefix ${fastify.prefix}, so it cannot serve the OAuth metadata at the root: ` +
        `register protectedResourceMetadata on the root instance with { auth, mcpPath: '${mcpPath}' }`,
    );
  }

  fastify.options(options.path, async (request, reply) => preflight(request, reply, options));
  registerPost(fastify, context);
  registerGet(fastify, context);
  registerDelete(fastify, context);
  if (options.legacySse) context.legacy = registerLegacySse(fastify, options, options.legacySse, context);
  if (options.metrics) registerMetricsEndpoint(fastify, options.metrics, host.logger);

  // Before the server waits for in-flight requests: open SSE streams would otherwise hold it.
  fastify.addHook('preClose', async () => context.close());
}

/** @internal How the endpoint registers itself: named, for Fastify 5, encapsulated. */
export const PLUGIN_META = { name: '@gantry/fastify', fastify: '5.x', encapsulate: true } as const;

async function gantryMcpPlugin(fastify: FastifyInstance, options: GantryMcpOptions): Promise<void> {
  await serveMcp(fastify, resolveOptions(options));
}

/**
 * Serves a Gantry application over Streamable HTTP (and legacy HTTP+SSE) in a Fastify app.
 * An encapsulated plugin: it respects prefixes, and its hooks and parsers stay inside it.
 *
 * @example
 * ```ts
 * const fastify = Fastify();
 * fastify.get('/health', async () => 'ok');
 * await fastify.register(gantryMcp, { app, path: '/mcp' });
 * await fastify.listen({ host: '127.0.0.1', port: 3000 });
 * ```
 */
export const gantryMcp = fp(gantryMcpPlugin, PLUGIN_META);
