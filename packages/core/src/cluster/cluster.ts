import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  LoggingLevel,
  RequestId,
} from '@gantry/protocol';
import type { RateLimitBackend, RateLimitBackendOptions } from '../limits/limit-types';
import type { TaskStore } from '../tasks/task-store';

/**
 * What a session-era session is, kept where every node of a deployment can read it: enough to
 * serve its next request on any node (MCP 2025-11-25, Basic › Transports › Streamable HTTP
 * §Session Management lets any server behind the endpoint answer a request that names it).
 */
export interface SessionRecord {
  readonly id: string;
  /** Who opened the session (namespaced, see `principalOf`), when auth is on. */
  readonly principal?: string;
  readonly protocolVersion: string;
  readonly behaviourVersion: string;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  readonly logLevel?: LoggingLevel;
  /** URIs subscribed with `resources/subscribe`. */
  readonly subscriptions: readonly string[];
  /** True once the client sent `notifications/initialized`. */
  readonly clientReady: boolean;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

/** Sessions shared by the nodes of a deployment. Every call is at most one round trip. */
export interface ClusterSessionStore {
  /**
   * Stores a new session unless `max` live sessions exist already (then resolves false).
   * It expires `ttlMs` after its last use.
   */
  create(record: SessionRecord, limits: { readonly max: number; readonly ttlMs: number }): Promise<boolean>;
  /** The session, its lifetime refreshed to `ttlMs`; undefined when it ended or expired. */
  touch(id: string, ttlMs: number): Promise<SessionRecord | undefined>;
  /** Stores a changed session (level, subscriptions, readiness); false when it no longer exists. */
  save(record: SessionRecord, ttlMs: number): Promise<boolean>;
  /** Ends a session everywhere; false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** Live sessions subscribed to `uri` or to a parent of it. */
  subscribers(uri: string): Promise<string[]>;
  /** Every live session. */
  ids(): Promise<string[]>;
  /** How many sessions are live. */
  count(): Promise<number>;
}

/** Where a followed stream's events go (see `ClusterEventStore.follow`). */
export interface StreamSink {
  /** One event, in stream order, each once. */
  event(eventId: string, message: JSONRPCMessage): void;
  /** The stream ended: everything it will ever carry was delivered. */
  end(): void;
  /**
   * The node writing the stream stopped before ending it: `requestIds` are the requests it was
   * answering (their responses will never come).
   */
  lost(requestIds: readonly RequestId[], reason: string): void;
}

/** A stream being followed; `stop()` ends the following (not the stream). */
export interface StreamFollower {
  readonly streamId: string;
  stop(): void;
}

/**
 * An event store every node reads (implements `EventStore` of `@gantry/fastify` structurally),
 * which can also follow a stream live while another node writes it.
 */
export interface ClusterEventStore {
  /** Stores an event (`null`: a priming event, which may name the requests the stream answers). */
  storeEvent(
    streamId: string,
    message: JSONRPCMessage | null,
    meta?: { readonly requestIds?: readonly RequestId[] },
  ): Promise<string>;
  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined>;
  dropStream(streamId: string): void;
  /** Marks a stream complete: followers get `end()` once they delivered everything before it. */
  endStream(streamId: string): Promise<void>;
  /** The stream an event id belongs to (no round trip); undefined for a malformed id. */
  streamOf(eventId: string): string | undefined;
  /**
   * Delivers what followed `after` (an event id; or `{ streamId }`: from the stream's current
   * end), then every later event as it is stored, in order, until the stream ends, its writer's
   * node is found dead, or `stop()`. Undefined when the id is unknown or expired.
   */
  follow(
    after: string | { readonly streamId: string },
    sink: StreamSink,
  ): Promise<StreamFollower | undefined>;
}

/** What one node tells the others. */
export type ClusterMessage =
  /** Registry lists changed (tools, resources, prompts): the `notifications/…/list_changed` methods. */
  | { readonly kind: 'list-changed'; readonly methods: readonly string[] }
  | { readonly kind: 'resource-updated'; readonly uri: string }
  /** A session was ended (DELETE, expiry): its streams close on every node. */
  | { readonly kind: 'session-ended'; readonly sessionId: string }
  /**
   * A client message for a session that a node other than the receiving one must handle: the
   * answer to a server→client request (routed to `nodeId`, which sent the request), or a
   * `notifications/cancelled` (`nodeId` undefined: whichever node runs the request). A legacy
   * HTTP+SSE session lives on the one node holding its GET stream: a POST for it reaching another
   * node travels as this message with `nodeId` undefined and the sender's `principal`, which
   * the holding node checks as it would for a POST of its own.
   */
  | {
      readonly kind: 'client-message';
      readonly sessionId: string;
      readonly nodeId?: string;
      readonly principal?: string;
      readonly message: JSONRPCMessage;
    };

/** What the application gives its cluster link: where messages from other nodes go. */
export interface ClusterReceiver {
  receive(message: ClusterMessage): void;
  /** The link lost (`false`) or regained (`true`) its backend. */
  availability(available: boolean): void;
}

/**
 * The seam between Gantry and the store that lets several nodes serve one deployment
 * (`@gantry/redis` implements it). Without one, everything lives in the process.
 */
export interface ClusterLink {
  /** This node's id, unique in the deployment: it prefixes the ids of requests this node sends. */
  readonly nodeId: string;
  /** The shared `requestState` key of the deployment, when the link carries one. */
  readonly requestStateKey?: string | Uint8Array;
  readonly sessions: ClusterSessionStore;
  readonly events: ClusterEventStore;
  /** True while the backend answers. */
  readonly available: boolean;
  /** What the backend is, e.g. `redis`: the name of its check in `GET /readyz`. Default `cluster`. */
  readonly backend?: string;
  /** Connects and starts receiving; rejects with a message naming the backend when unreachable. */
  start(receiver: ClusterReceiver): Promise<void>;
  /** Tells every other node (best effort while the backend is down: rejects). */
  publish(message: ClusterMessage): Promise<void>;
  /**
   * A rate-limit store every node shares (`@gantry/redis`: `RateLimiterRedis`); without it,
   * limits count per node in memory.
   */
  rateLimiter?(options: RateLimitBackendOptions): RateLimitBackend;
  /**
   * A task store every node shares (`@gantry/redis`): a task created on one node is read,
   * answered and cancelled on any other. Without it, tasks live in the node's memory.
   */
  readonly tasks?: TaskStore;
  /** Stops receiving and closes what the link opened. */
  close(): Promise<void>;
}

/**
 * The id of the stream that carries a clustered session's messages that belong to no request
 * (its GET stream in Streamable HTTP): known to every node without a lookup.
 */
export function sessionStreamId(sessionId: string): string {
  return `${sessionId}~s`;
}

/** The id of a new stream of `sessionId` (`<session>~<random>`): its owner is in its name. */
export function isStreamOfSession(streamId: string, sessionId: string): boolean {
  return streamId.length > sessionId.length + 1 && streamId.startsWith(`${sessionId}~`);
}
