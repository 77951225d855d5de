import {
  type ConnectionHost,
  compileTrustProxy,
  isDefaultLogger,
  type McpListener,
  pinoLogger,
  pinoOf,
  routeDefaultLogger,
  type TrustProxy,
} from '@gantry/core';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
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
  /**
   * Fastify's pino logger, one JSON line per entry with `reqId` (and `sessionId` once the MCP
   * session is known). On by default when the app uses the default logger (created without
   * `logger`), which it then takes over; with `pinoLogger(pino)` Fastify logs to that pino; with
   * another logger of the app's, or `false`, Fastify logs nothing. Level: `level`, else
   * `LOG_LEVEL`, else `info`; lines go to `stream`, default stderr.
   */
  logger?: false | HttpLoggerOptions;
  /**
   * Fastify's `trustProxy`: which peers are proxies whose `X-Forwarded-For` names the client
   * (`request.ip`, hence `ctx.remoteAddress`, `by: 'ip'` rate limits and log lines): addresses,
   * CIDR ranges, `'loopback'`, `'linklocal'`, `'uniquelocal'` (comma-separated or an array),
   * `true` for every peer, or a function. Default: none, the socket's address (behind nginx,
   * nginx's). A hop count is refused: it cannot tell a proxy from a client that forged hops.
   */
  trustProxy?: TrustProxy;
}

/** Options of the `http()` listener's pino logger. */
export interface HttpLoggerOptions {
  /** pino level: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`. Default `LOG_LEVEL`, else `info`. */
  level?: string;
  /** Where the JSON lines go. Default `process.stderr` (stdout stays free, as on stdio). */
  stream?: { write(line: string): unknown };
}

const PINO_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** The level of the listener's pino: the option, else `LOG_LEVEL`, else info; a bad one throws now. */
function levelOf(option: string | undefined): string {
  if (option !== undefined) {
    if (!PINO_LEVELS.includes(option)) {
      throw new TypeError(
        `http(): logger.level must be one of ${PINO_LEVELS.join(', ')}, got ${JSON.stringify(option)}`,
      );
    }
    return option;
  }
  const env = process.env.LOG_LEVEL;
  if (env === undefined || env === '') return 'info';
  if (!PINO_LEVELS.includes(env.toLowerCase())) {
    throw new TypeError(
      `http(): the LOG_LEVEL environment variable must be one of ${PINO_LEVELS.join(', ')}, got ${JSON.stringify(env)}`,
    );
  }
  return env.toLowerCase();
}

/** What Fastify is created with for logging, given the option and the app's own logger. */
function fastifyLogging(
  option: false | HttpLoggerOptions | undefined,
  host: ConnectionHost,
): Pick<FastifyServerOptions, 'logger' | 'loggerInstance'> {
  if (option === false) return { logger: false };
  const pino = pinoOf(host.logger);
  if (pino && option === undefined) return { loggerInstance: pino as FastifyServerOptions['loggerInstance'] };
  if (option === undefined && !isDefaultLogger(host.logger)) return { logger: false };
  return { logger: { level: levelOf(option?.level), stream: option?.stream ?? process.stderr } };
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
  const { host = '127.0.0.1', port = 3000, onListening, logger, trustProxy, ...pluginOptions } = options;
  const trust = compileTrustProxy('http()', trustProxy);
  if (logger !== undefined && logger !== false) {
    if (typeof logger !== 'object' || logger === null) {
      throw new TypeError('http(): logger must be false or { level?, stream? }');
    }
    levelOf(logger.level);
    if (logger.stream !== undefined && typeof logger.stream?.write !== 'function') {
      throw new TypeError('http(): logger.stream must have a write(line) method');
    }
  }
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
      const logging = fastifyLogging(logger, connectionHost);
      fastify = Fastify({ ...logging, forceCloseConnections: true, trustProxy: trust ?? false });
      // Gantry's diagnostics join Fastify's lines when the app left the choice of logger to us.
      if (logging.logger) routeDefaultLogger(connectionHost.logger, pinoLogger(fastify.log));
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
