import type {
  ApiKeyAuth,
  ConnectionHost,
  GantryApplication,
  HealthOption,
  HealthPaths,
  HostOriginPolicy,
} from '@gantry/core';
import type { AuthOptions } from './auth';
import type { EventStore } from './event-store';
import type { MetricsOptions, ResolvedMetrics } from './metrics-endpoint';
import type { ResponseMode } from './request-stream';
import type { TransportRateLimitOptions } from './transport-rate-limit';

/** Options of the `gantryMcp` Fastify plugin. */
export interface GantryMcpOptions {
  /** The application to serve. */
  app: GantryApplication;
  /** The MCP endpoint, under the plugin's prefix. Default `/mcp`. */
  path?: string;
  /**
   * `stateful` (default): sessions with `Mcp-Session-Id`, server→client requests, GET streams.
   * `stateless`: every POST stands alone; no session ids; server→client requests are refused.
   */
  mode?: 'stateful' | 'stateless';
  /** How requests are answered: `auto` (JSON unless the handler streams first), `json` or `sse`. Default `auto`. */
  responseMode?: ResponseMode;
  sessions?: {
    /** A session unused this long is closed. Default 30 minutes. */
    idleTimeoutMs?: number;
    /** More sessions than this are refused with 503 (in a cluster: in the whole cluster). Default 10 000. */
    max?: number;
    /**
     * In a cluster: how long this node keeps its replica of a session that is idle here (the
     * session lives on in the cluster's store, and any node serves its next request). Default 30 s.
     */
    replicaIdleMs?: number;
  };
  /** Event store for `Last-Event-ID` resumption; `false` turns resumption off. Default in memory, bounded. */
  eventStore?: EventStore | false;
  sse?: {
    /** The `retry` sent to clients, in ms. Default 1000. */
    retryMs?: number;
    /** Keep-alive comments on idle streams, in ms; 0 turns them off. Default 25 000. */
    keepAliveMs?: number;
    /**
     * Bytes one SSE connection may hold unsent while its client does not read. Handlers that
     * await `ctx.log`/`ctx.progress` wait for the client (`drain`) instead; messages sent without
     * waiting (broadcasts, un-awaited logs) queue up to this, and one more closes the connection
     * with a logged warning (the stream stays resumable with `Last-Event-ID`). Default 16 MiB.
     */
    maxQueuedBytes?: number;
  };
  /** Largest accepted body, in bytes; larger → 413. Default 4 MiB. */
  bodyLimit?: number;
  /**
   * Host names (without port, any case) requests may address; others get 403. Default: when the
   * request arrives on a loopback address, `localhost`, 127.0.0.0/8 literals (`127.0.0.1`) and
   * `[::1]` only (DNS-rebinding protection); otherwise any.
   */
  allowedHosts?: string[];
  /**
   * Origins (`https://app.example.com`, any case; `'*'` for any) allowed to call; others get 403.
   * Requests without `Origin` always pass; `Origin: null` never does (unless `'*'`). Default: on a
   * loopback connection, loopback `http(s)` origins only; otherwise any. Origins listed in
   * `cors.origins` are accepted too.
   */
  allowedOrigins?: string[];
  /** CORS for browser clients; exposes `Mcp-Session-Id` and allows `MCP-Protocol-Version`. Off by default. */
  cors?: boolean | { origins?: string[] | '*'; maxAgeSec?: number };
  /** Legacy HTTP+SSE endpoints for 2024-11-05 clients (`GET /sse`, `POST /messages`). Default on. */
  legacySse?: boolean | { ssePath?: string; messagesPath?: string };
  /**
   * OAuth 2.1 resource server (bearer tokens verified on every request), or `apiKeys({ keys })`
   * for simple API-key authentication without OAuth metadata.
   */
  auth?: AuthOptions | ApiKeyAuth;
  /**
   * Health probes: `GET /healthz` (200 `{"status":"ok"}` while the process serves) and
   * `GET /readyz` (200 when bootstrapped, the cluster backend reachable and not draining; else
   * 503 with `Retry-After`; the JSON body names every check). They sit beside `path`, not under
   * it, but under the Fastify prefix the plugin is registered with (`/api/readyz` for
   * `{ prefix: '/api' }`). They need no authentication and skip the Host/Origin checks: they
   * disclose nothing and change nothing. Off by default in the plugin (the app may have its own
   * probes); on by default in `http()`.
   *
   * @example
   * ```ts
   * await fastify.register(gantryMcp, { app, health: { readyPath: '/ready' } });
   * ```
   */
  health?: HealthOption;
  /**
   * `GET /metrics` in the Prometheus text format, from the OpenTelemetry metrics of the process
   * (needs `@opentelemetry/exporter-prometheus` and `@opentelemetry/sdk-metrics`). Host checks
   * apply, MCP auth does not. Off by default.
   *
   * Served by OpenTelemetry's Prometheus exporter rather than `prom-client`: Gantry records its
   * metrics once, through the OpenTelemetry metrics API, and the exporter is one more reader of
   * those instruments. One instrumentation path feeds both OTLP and Prometheus, with no second set
   * of counters to keep in step.
   *
   * `true` registers a `MeterProvider` of Gantry's as the global one (refused when one is
   * registered already); with your own SDK, pass its `PrometheusExporter` as `exporter`.
   *
   * @example
   * ```ts
   * // Standalone: Gantry owns the meter provider.
   * await app.listen(http({ port: 3000, metrics: true }));
   *
   * // With @opentelemetry/sdk-node: the exporter is one of the SDK's metric readers.
   * const exporter = new PrometheusExporter({ preventServerStart: true });
   * new NodeSDK({ metricReaders: [exporter] }).start();
   * await app.listen(http({ port: 3000, metrics: { exporter } }));
   * ```
   */
  metrics?: boolean | MetricsOptions;
  /**
   * Limits POSTs to the endpoint per client (`by`: `ip`, default, or `principal`) before their
   * body is read: over it, 429 with `Retry-After` and a JSON-RPC error body (−32029,
   * `data.retryAfterMs`). Counted cluster-wide when the app has a cluster. Off by default.
   */
  rateLimit?: TransportRateLimitOptions;
}

/** Options with every default applied. */
export interface ResolvedOptions {
  /** What the plugin serves: `connectionHostOf(app)`. */
  readonly host: ConnectionHost;
  readonly path: string;
  readonly mode: 'stateful' | 'stateless';
  readonly responseMode: ResponseMode;
  readonly idleTimeoutMs: number;
  readonly maxSessions: number;
  readonly replicaIdleMs: number;
  readonly eventStore: EventStore | undefined;
  readonly retryMs: number;
  readonly keepAliveMs: number;
  readonly maxQueuedBytes: number;
  readonly bodyLimit: number;
  /** The Host/Origin policy built from `allowedHosts`, `allowedOrigins` and the CORS origins. */
  readonly hostOrigin: HostOriginPolicy;
  readonly cors: { origins: readonly string[] | '*'; maxAgeSec: number } | undefined;
  readonly legacySse: { ssePath: string; messagesPath: string } | undefined;
  readonly auth: AuthOptions | undefined;
  /** API-key authentication, when `auth` is `apiKeys(…)` (then `auth` is undefined). */
  readonly apiKeys: ApiKeyAuth | undefined;
  /** Where the probes are served; undefined when off. */
  readonly health: HealthPaths | undefined;
  readonly metrics: ResolvedMetrics | undefined;
  readonly rateLimit: TransportRateLimitOptions | undefined;
}
