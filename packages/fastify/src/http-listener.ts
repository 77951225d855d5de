import type { ConnectionHost, McpListener } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GantryMcpOptions } from './options';
import { PLUGIN_META, serveMcp } from './plugin';
import { resolveOptions } from './resolve-options';

/**
 * Options of the standalone HTTP listener: where to listen, plus the plugin's options; `health`
 * (`GET /healthz`, `GET /readyz`) is on unless `health: false`.
 */
export interface HttpListenerOptions extends Omit<GantryMcpOptions, 'app'> {
  /** Default 127.0.0.1: local servers should not listen on every interface. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Called with the endpoint URL once listening (default: written to the app's logger). */
  onListening?: (url: string) => void;
}

/** A listener that also tells where it listens. */
export interface HttpListener extends McpListener {
  /** The Fastify instance, once listening. */
  readonly fastify: FastifyInstance | undefined;
  /** The MCP endpoint URL, once listening. */
  readonly url: string | undefined;
}

/**
 * Serves the app over Streamable HTTP on its own Fastify server.
 *
 * @example
 * ```ts
 * await app.listen(http({ port: 3000 }));   // http://127.0.0.1:3000/mcp
 * ```
 */
export function http(options: HttpListenerOptions = {}): HttpListener {
  const { host = '127.0.0.1', port = 3000, onListening, ...pluginOptions } = options;
  let fastify: FastifyInstance | undefined;
  let url: string | undefined;
  return {
    get fastify() {
      return fastify;
    },
    get url() {
      return url;
    },
    async listen(connectionHost: ConnectionHost): Promise<void> {
      // Long-lived SSE connections must not hold up app.close().
      fastify = Fastify({ logger: false, forceCloseConnections: true });
      // Registered as `gantryMcp` registers itself, but serving the host handed over.
      await fastify.register(
        fp(
          // Health probes are on by default here: this server is the app's alone.
          async (instance) => serveMcp(instance, resolveOptions(pluginOptions, connectionHost, true)),
          PLUGIN_META,
        ),
      );
      await fastify.listen({ host, port });
      const address = fastify.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      url = `http://${shownHost}:${actualPort}${pluginOptions.path ?? '/mcp'}`;
      if (onListening) onListening(url);
      else connectionHost.logger.info(`MCP server listening on ${url}`);
    },
    async close(): Promise<void> {
      await fastify?.close();
    },
  };
}
