import 'reflect-metadata';
import { resolve } from 'node:path';
import { type ApiKeyAuth, apiKeys, GantryFactory, type GantryServerOptions, stdio } from '@gantry/core';
import { http } from '@gantry/fastify';
import { redisCluster } from '@gantry/redis';
import { attachWebSocket, websocket } from '@gantry/ws';
import { AppModule } from './app.module';
import { NotesRepository } from './notes.repository';
import { stdioBanner } from './stdio-banner';
import { startTelemetry } from './telemetry';

interface Arguments {
  http: boolean;
  ws: boolean;
  host: string;
  port: number;
  /** `--redis` / `REDIS_URL`: keep the notes in this Redis and run as one node of a cluster. */
  redis?: string;
  /** `--state-key` / `GANTRY_STATE_KEY`: given to the cluster as its `requestStateKey`. */
  stateKey?: string;
  /** `--metrics`: `GET /metrics` (Prometheus text format) beside `/mcp` on the HTTP listener. */
  metrics: boolean;
  /**
   * `--trust-proxy ADDRESSES`: the proxies (addresses, CIDR ranges, `loopback`, comma-separated)
   * whose `X-Forwarded-For` names the client, on HTTP and WebSocket.
   */
  trustProxy?: string;
}

const USAGE =
  'usage: main.js [--http] [--ws] [--host 127.0.0.1] [--port 3000] [--redis redis://host:6379] [--state-key KEY] [--metrics] [--trust-proxy ADDRESSES]';

/** A `redis://` or `rediss://` URL, or an error naming where the value came from. */
function redisUrl(value: string, from: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^rediss?:$/.test(parsed.protocol) || parsed.hostname === '') {
    throw new Error(`${from} needs a redis:// or rediss:// URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * No flag: stdio. `--http`: Streamable HTTP at /mcp. `--ws`: WebSocket at /mcp on its own
 * port. Both: one port, Streamable HTTP and WebSocket side by side at /mcp. `--host` or
 * `--port` alone mean `--http`. `--redis` (or `REDIS_URL`) keeps the notes in Redis instead of
 * `NOTES_DIR`; `--state-key` (or `GANTRY_STATE_KEY`) goes with it. `--metrics` serves `GET /metrics`
 * beside `/mcp` (HTTP only). `--trust-proxy` names the proxies in front (e.g. `loopback` for an
 * nginx on the same host), so that logs and limits see each client's address. Flags win over
 * the environment.
 */
function parseArguments(argv: string[], env: NodeJS.ProcessEnv): Arguments {
  const args: Arguments = { http: false, ws: false, host: '127.0.0.1', port: 3000, metrics: false };
  let addressGiven = false;
  let stateKeyFlag = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--http') args.http = true;
    else if (arg === '--ws') args.ws = true;
    else if (arg === '--metrics') args.metrics = true;
    else if (arg === '--redis' || arg === '--state-key') {
      const value = argv[++i];
      if (arg === '--redis') args.redis = redisUrl(value ?? '', '--redis');
      else {
        if (value === undefined || value === '') throw new Error('--state-key needs a value');
        args.stateKey = value;
        stateKeyFlag = true;
      }
    } else if (arg === '--trust-proxy') {
      const value = argv[++i];
      if (value === undefined || value === '')
        throw new Error("--trust-proxy needs the proxies' addresses, e.g. loopback or 10.0.0.0/8");
      args.trustProxy = value;
    } else if (arg === '--port' || arg === '--host') {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      if (arg === '--host') args.host = value;
      else {
        args.port = Number(value);
        if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)
          throw new Error(`--port needs a port number, got ${value}`);
      }
      addressGiven = true;
    } else throw new Error(`unknown argument ${arg}; ${USAGE}`);
  }
  if (addressGiven && !args.ws) args.http = true;
  if (args.redis === undefined && env.REDIS_URL) args.redis = redisUrl(env.REDIS_URL, 'REDIS_URL');
  if (args.stateKey === undefined && env.GANTRY_STATE_KEY) args.stateKey = env.GANTRY_STATE_KEY;
  if (args.metrics && !args.http) {
    throw new Error('--metrics serves GET /metrics on the HTTP listener; it needs --http');
  }
  if (stateKeyFlag && args.redis === undefined) {
    throw new Error('--state-key is only used with --redis (or REDIS_URL)');
  }
  return args;
}

/**
 * What `GantryFactory.create` gets to run this process as one node of a cluster: nothing
 * without `--redis`; with it, the nodes share sessions and streams through the same Redis
 * (`url` = `args.redis`, `requestStateKey` = `args.stateKey`).
 */
function clusterOptions(args: Arguments): Partial<GantryServerOptions> {
  if (args.redis === undefined) return {};
  return { cluster: redisCluster({ url: args.redis, requestStateKey: args.stateKey }) };
}

/**
 * `NOTES_TASK_LEASE_MS`: how long a node's claim on a running task (export_notes, import_notes)
 * lasts without renewal, so a task of a node that died turns failed that much later (default
 * 30 s). Tests of a cluster shorten it.
 */
function taskOptions(env: NodeJS.ProcessEnv): GantryServerOptions['tasks'] {
  const lease = env.NOTES_TASK_LEASE_MS;
  if (lease === undefined) return undefined;
  const leaseMs = Number(lease);
  if (!Number.isInteger(leaseMs) || leaseMs < 1)
    throw new Error(
      `NOTES_TASK_LEASE_MS must be a positive whole number of milliseconds, got ${JSON.stringify(lease)}`,
    );
  return { leaseMs };
}

/**
 * `NOTES_API_KEYS` (comma-separated, each at least 16 characters): HTTP and WebSocket then need
 * one of them, as `Authorization: Bearer <key>` or `X-API-Key: <key>`. Set but empty fails the
 * start rather than serving without keys. stdio needs none: its client started the process.
 */
function keysFrom(env: NodeJS.ProcessEnv): ApiKeyAuth | undefined {
  const keys = env.NOTES_API_KEYS;
  if (keys === undefined) return undefined;
  try {
    return apiKeys({ keys });
  } catch (error) {
    throw new Error(`NOTES_API_KEYS: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2), process.env);
  const keys = keysFrom(process.env);
  // Before the app is created, so that its instruments find the SDK's providers.
  const telemetry = startTelemetry(process.env, { metrics: args.metrics });
  // stdio ends when stdin does: what the SDK buffered is flushed once the event loop is empty.
  process.once('beforeExit', () => void telemetry.shutdown());
  const root = args.redis === undefined ? AppModule : AppModule.forRoot({ redis: { url: args.redis } });
  const app = await GantryFactory.create(root, {
    name: 'gantry-notes',
    title: 'Gantry Notes',
    version: '0.1.0',
    instructions: 'A personal notes store. Search before creating, to avoid duplicates.',
    tasks: taskOptions(process.env),
    ...clusterOptions(args),
  });
  const store = app.get(NotesRepository).location;
  const entry = resolve(__dirname, 'main.js');
  if (args.http) {
    const listener = http({
      host: args.host,
      port: args.port,
      onListening: () => {},
      auth: keys,
      metrics: telemetry.metrics,
      trustProxy: args.trustProxy,
    });
    await app.listen(listener);
    const url = listener.url as string;
    // WebSocket upgrades of /mcp go to @gantry/ws; every other request stays with Fastify.
    const fastify = listener.fastify;
    if (args.ws && fastify)
      attachWebSocket(app, {
        server: fastify.server,
        path: '/mcp',
        authenticate: keys,
        trustProxy: args.trustProxy,
      });
    const wsUrl = url.replace(/^http:/, 'ws:');
    process.stderr.write(
      [
        `gantry-notes is serving MCP on ${url} (notes in ${store}).`,
        ...(args.metrics ? [`Prometheus metrics: ${url.replace(/\/mcp$/, '/metrics')}`] : []),
        ...(telemetry.sdk ? [`OpenTelemetry: OTLP/HTTP to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}`] : []),
        ...(args.ws ? [`It also serves MCP over WebSocket on ${wsUrl} (subprotocol "mcp").`] : []),
        ...(keys
          ? [
              'Clients need one of the NOTES_API_KEYS (header "X-API-Key: <key>" or "Authorization: Bearer <key>").',
            ]
          : []),
        'Connect a client:',
        `  MCP Inspector:  npx @modelcontextprotocol/inspector  (transport "Streamable HTTP", URL ${url})`,
        `  Claude Code:    claude mcp add --transport http notes ${url}`,
        `  .mcp.json:      { "mcpServers": { "notes": { "type": "http", "url": "${url}" } } }`,
        ...(args.ws ? [`  gantry CLI:     npx gantry list ${wsUrl}`] : []),
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  } else if (args.ws) {
    const listener = websocket({
      host: args.host,
      port: args.port,
      authenticate: keys,
      trustProxy: args.trustProxy,
    });
    await app.listen(listener);
    process.stderr.write(
      [
        `gantry-notes is serving MCP on ${listener.url} (WebSocket, subprotocol "mcp"; notes in ${store}).`,
        'Connect a client:',
        `  gantry CLI:     npx gantry list ${listener.url}`,
        `  Gantry client:  new WebSocketClientTransport({ url: '${listener.url}' })`,
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  } else {
    await app.listen(stdio());
    // stdout carries the protocol: everything for humans goes to stderr.
    process.stderr.write(stdioBanner({ entry, store, interactive: process.stdin.isTTY === true }));
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app
        .close(signal)
        .then(() => telemetry.shutdown())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
  }
}

main().catch((error) => {
  process.stderr.write(
    `gantry-notes failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
