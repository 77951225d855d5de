import type {
  AuthInfo,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
  RequestId,
  Transport,
} from '@gantry/protocol';
import type { ClusterLink, ClusterMessage, SessionRecord } from '../cluster/cluster';
import type { Logger } from '../logger';
import type { ToolDefinition } from '../registry/tool-definition';
import type { InflightProblem } from '../server/inflight-caps';
import type { TransportInfo } from '../telemetry/attributes';
import type { StreamKind } from '../telemetry/metrics';
import type { Readiness } from './health';

export type { InflightProblem } from '../server/inflight-caps';
export type { TransportInfo } from '../telemetry/attributes';
export type { StreamKind } from '../telemetry/metrics';

/** What a transport lets handlers do with their streams. */
export interface StreamControls {
  /** Closes the connection that carries `requestId`'s SSE stream; the client resumes it. */
  closeStreamOf(requestId: RequestId): boolean;
}

/**
 * How a connection begins:
 * - `'session'` (default): with `initialize`, as every session-era transport does;
 * - `{ sessionless }`: each request stands alone with no `initialize`, as stateless HTTP serves
 *   session-era requests; `protocolVersion` is the one the request named, and server→client
 *   requests are refused with `reason`.
 */
export type ConnectionMode =
  | 'session'
  | { readonly sessionless: { readonly protocolVersion: string; readonly reason: string } };

/**
 * A connection that is this node's replica of a session shared through the cluster link: any
 * node may serve the session's next request, so what the session is lives in the cluster's
 * session store, and ids of requests this replica sends name this node.
 */
export interface SessionReplica {
  /** The stored session this replica continues; undefined for a new one, stored once initialized. */
  readonly record?: SessionRecord;
  /** The session's id (`Mcp-Session-Id`). */
  readonly id: string;
  /** Who opened the session, when auth is on. */
  readonly principal?: string;
  /** Stores the session after a change; the response to the request that changed it waits. */
  save(record: SessionRecord): Promise<void>;
}

/** Options of one connection. */
export interface ConnectOptions {
  /** Makes the connection a replica of a cluster-wide session (see `ConnectionHost.cluster`). */
  replica?: SessionReplica;
  /** The caller, when the transport authenticated it. */
  auth?: AuthInfo;
  /** The peer's address (HTTP, WebSocket): `ctx.remoteAddress`, and the key of `by: 'ip'` rate limits. */
  remoteAddress?: string;
  /** How the connection begins; default `'session'`. */
  mode?: ConnectionMode;
  /** Stream controls of the transport (HTTP). */
  streams?: StreamControls;
  /**
   * Inbound requests the connection runs at once (`PeerOptions.maxInflight`): further ones
   * wait, and a transport with `pauseReading()` stops reading meanwhile; one without answers them
   * with an error. Default: no limit (`stdio()` and `@gantry/ws` pass 64).
   */
  maxInflight?: number;
  /**
   * How the connection reaches the server (`network.transport`, `network.protocol.name`, the
   * session id), for the attributes of its spans and metrics.
   */
  transport?: TransportInfo;
}

/** One connection served by the application, as its transport sees it. */
export interface Connection {
  /**
   * Who is calling, when the transport authenticated it. HTTP verifies every request and
   * updates it, so a stepped-up token's scopes are seen at once.
   */
  auth: AuthInfo | undefined;
  /** The peer's address; HTTP sets it on every request, like `auth`. */
  remoteAddress: string | undefined;
  /** The revision whose behaviour the connection follows once initialized; `''` before. */
  readonly behaviourVersion: string;
  /** A replica takes the state another node stored (level, subscriptions, readiness). */
  refresh?(record: SessionRecord): void;
  /**
   * True while work of the connection outlives its requests (a task running here): a
   * transport that closes idle sessions keeps this one.
   */
  readonly busy: boolean;
  /** Ends the connection; in-flight handlers are aborted and their responses dropped. */
  close(): Promise<void>;
  /** Calls `listener` once when the connection closes. */
  onClose(listener: () => void): void;
}

/**
 * The one request of a single-use exchange (a stateless-era HTTP POST): there is no session and
 * no Peer; the transport carries the request's notifications and its response.
 */
export interface Exchange {
  /** The caller, when the transport authenticated it. */
  readonly auth?: AuthInfo;
  /** The peer's address, where the transport has one. */
  readonly remoteAddress?: string;
  /** Aborts the handler, e.g. when the client goes away; no response is then produced. */
  readonly signal?: AbortSignal;
  /**
   * Receives, before the handler starts, the function that cancels the exchange as `signal`
   * aborting would: for a transport that has no AbortSignal of its own, since making one per
   * request costs more than the rest of the exchange's bookkeeping.
   */
  bindCancel?(cancel: (reason?: unknown) => void): void;
  /** Sends a notification of the request (progress, log messages, listen-stream events). */
  notify(notification: JSONRPCNotification): void | Promise<void>;
  /** How the exchange reaches the server, for the attributes of its span and metrics. */
  readonly transport?: TransportInfo;
}

/**
 * What transports report for the application's metrics: streams they hold open
 * (`gantry.server.streams.active`, attribute `kind`). Each `streamOpened` needs one `streamClosed`.
 */
export interface TransportTelemetry {
  streamOpened(kind: StreamKind): void;
  streamClosed(kind: StreamKind): void;
}

/**
 * What an application gives its transports: connections, single-use exchanges, shutdown hooks
 * and diagnostics — nothing of the engine behind them. `@gantry/fastify`, `@gantry/ws` and
 * `stdio()` are written against this alone; a custom transport gets it with
 * `connectionHostOf(app)` or as the argument of `McpListener.listen`.
 */
export interface ConnectionHost {
  /** Gantry's diagnostics logger. */
  readonly logger: Logger;
  /** Serves one connection on `transport`. */
  connect(transport: Transport, options?: ConnectOptions): Promise<Connection>;
  /**
   * Serves one stateless-era (2026-07-28) request that stands alone. The transport has checked
   * its own headers against the body; the request's `_meta` is checked here, once. Resolves with
   * the response to send, or `undefined` when the exchange was aborted. Never rejects.
   */
  exchange(request: JSONRPCRequest, exchange: Exchange): Promise<JSONRPCResponse | undefined>;
  /**
   * Ends the stateless-era listen streams (of one connection or exchange, when given) with their
   * final result, and waits until those results reach the transports.
   */
  endSubscriptions(connection?: Connection | Exchange): Promise<void>;
  /**
   * Runs `hook` when the application closes, after listen streams got their final result and
   * before connections are closed (a transport stops accepting here). Returns an unregister.
   */
  onClose(hook: () => void | Promise<void>): () => void;
  /**
   * Called by network transports (HTTP, WebSocket) when they start serving: behind a load
   * balancer a retry may reach another node, which can verify its `requestState` only with a
   * shared key. Warns once per process when the key is this process's own random one.
   */
  servesNetwork(): void;
  /** The tool registered as `name`, for transports that read its declarations (`x-mcp-header`). */
  findTool(name: string): ToolDefinition | undefined;
  /**
   * Closes the whole application (hooks run); e.g. stdio calls it when stdin ends. `drain: false`
   * skips the wait for in-flight requests (`shutdownGraceMs`) when nothing could receive their
   * answers any more, as when stdio's only connection has closed.
   */
  close(options?: { readonly drain?: boolean }): Promise<void>;
  /**
   * Whether the application should get new work, check by check (`GET /readyz` reports it):
   * bootstrapped, the cluster backend reachable when there is one, not draining.
   */
  readiness(): Readiness;
  /**
   * Why new work is refused, once the application drains (`close()` or a shutdown signal, after
   * `drainDelayMs`); undefined while it is accepted. Network transports then answer new sessions,
   * connections and stateless requests with 503 and `Retry-After`; requests on connections and
   * sessions already open are still served until `shutdownGraceMs` ends.
   */
  readonly refusal: string | undefined;
  /**
   * Why `count` (default 1) more requests of `auth`, on `connection` when they run on one, would
   * be refused by the in-flight caps (`limits.maxInflightPerSession` / `maxInflightPerPrincipal`):
   * the JSON-RPC error (−32026, `data: { cap, limit }`) for an HTTP 429, or undefined when they
   * fit. Without a connection only the principal's cap applies (a stateless exchange, a session
   * not yet opened). Returns undefined at once when no cap is configured.
   */
  inflightProblem(
    auth: AuthInfo | undefined,
    connection?: Connection,
    count?: number,
  ): InflightProblem | undefined;
  /** Where transports report the streams they hold open (for the metrics). */
  readonly telemetry?: TransportTelemetry;
  /**
   * The application's cluster, when it was created with one (`GantryFactory.create(…, { cluster })`):
   * the link, and the messages from other nodes that the transports handle (session ends,
   * client messages for a request another node runs).
   */
  readonly cluster?: ClusterAccess;
}

/** What transports get of the application's cluster link. */
export interface ClusterAccess {
  readonly link: ClusterLink;
  /** Messages from other nodes; returns an unsubscribe. */
  onMessage(listener: (message: ClusterMessage) => void): () => void;
}

/** The brand under which an application carries its host; `Symbol.for`, so it survives duplicate installs. */
export const CONNECTION_HOST = Symbol.for('@gantry/core.ConnectionHost');

/**
 * The `ConnectionHost` of a Gantry application. Throws a `TypeError` naming the problem for
 * anything else (e.g. an object that only looks like an app).
 */
export function connectionHostOf(app: unknown): ConnectionHost {
  const host =
    typeof app === 'object' && app !== null
      ? (app as { [CONNECTION_HOST]?: ConnectionHost })[CONNECTION_HOST]
      : undefined;
  if (host === undefined) {
    throw new TypeError(
      'Expected a Gantry application (from GantryFactory.create), got ' +
        (app === null ? 'null' : typeof app === 'object' ? `an object without a ConnectionHost` : typeof app),
    );
  }
  return host;
}
