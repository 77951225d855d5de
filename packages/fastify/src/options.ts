import type { ConnectionHost, GantryApplication, HostOriginPolicy } from '@gantry/core';
import type { AuthOptions } from './auth';
import type { EventStore } from './event-store';
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
  /** OAuth 2.1 resource server: bearer tokens verified on every request. */
  auth?: AuthOptions;
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
  readonly rateLimit: TransportRateLimitOptions | undefined;
}
