import {
  type AuthInfo,
  CapabilityMissingError,
  type ClientCapabilities,
  fromPeer,
  type Implementation,
  type InboundRequest,
  type InitializeResult,
  InvalidParamsError,
  InvalidRequestError,
  type JSONRPCNotification,
  type JSONRPCRequest,
  LATEST_STATELESS_PROTOCOL_VERSION,
  type ListRootsResult,
  type LoggingLevel,
  MetaKey,
  Method,
  MethodNotFoundError,
  negotiateProtocolVersion,
  Peer,
  type RequestId,
  type Result,
  type Root,
  StatelessMethod,
  type Transport,
} from '@gantry/protocol';
import type { SessionRecord } from '../cluster/cluster';
import type { ClientChannel, ClientRequestMethod, ContextSession } from '../context/context-session';
import { LOG_LEVELS } from '../context/log-levels';
import type { Logger } from '../logger';
import { withTraceContext } from '../telemetry/propagation';
import { type ConnectionTelemetry, connectionTelemetry } from '../telemetry/telemetry';
import type { SessionReplica, StreamControls } from '../transports/connection-host';
import type { MethodTable } from './method-table';

export type { StreamControls } from '../transports/connection-host';

/**
 * What a session needs of the server that hosts it: the method table, the limits, the
 * `initialize` result, the notifications that fan out to other connections, and `dispatch`,
 * which routes each request by era (a stateless-era request may arrive on any connection).
 */
export interface SessionHost {
  /** Every method a session serves, session-only ones included. */
  readonly methods: MethodTable<ServerSession>;
  readonly logger: Logger;
  /** Timeout of requests sent to the client; undefined: the Peer's default. */
  readonly requestTimeoutMs: number | undefined;
  /** This node's id in a cluster: replicas prefix the ids of the requests they send with it. */
  readonly nodeId?: string;
  /** The `initialize` result for the answered version. */
  initializeResult(protocolVersion: string): InitializeResult;
  /** Serves one request that arrived on `session`, whichever era it belongs to. */
  dispatch(
    request: JSONRPCRequest,
    inbound: InboundRequest,
    session: ServerSession,
  ): Result | Promise<Result>;
  resourceUpdated(uri: string): Promise<void>;
  resourceListChanged(): void;
  completeElicitation(elicitationId: string): Promise<boolean>;
  /** Remembers that `session` started URL elicitation `elicitationId`. */
  rememberElicitation(elicitationId: string, session: ServerSession): void;
  /** The client of `session` said its roots changed. */
  rootsChanged(session: ServerSession): void;
}

type SessionState = 'awaiting-initialize' | 'ready' | 'closed';

const NO_TRANSPORT = connectionTelemetry(undefined);

/**
 * One client connection in the session era: the `initialize` handshake, the negotiated
 * version and capabilities, and the session-era requests its host routes back to it. On stdio
 * the process is the session.
 */
export class ServerSession implements ContextSession {
  readonly era = 'session' as const;
  readonly peer: Peer;
  private holds = 0;
  private state: SessionState = 'awaiting-initialize';
  private initializedNotified = false;
  protocolVersion = '';
  behaviourVersion = '';
  clientInfo: Implementation = { name: '', version: '' };
  clientCapabilities: ClientCapabilities = {};
  /** Set by `logging/setLevel`. */
  logLevel: LoggingLevel | undefined;
  /** URIs this session subscribed to with `resources/subscribe`. */
  readonly subscriptions = new Set<string>();
  private rootsCache?: Promise<Root[]>;
  private readonly createdAt = Date.now();
  private readonly closeListeners = new Set<() => void>();

  /** What its transport said of the connection, for spans and metrics (set on connect). */
  telemetry: ConnectionTelemetry = NO_TRANSPORT;
  /** The peer's address, where the transport has one (HTTP updates it on every request). */
  remoteAddress: string | undefined;

  /** The transport's session id (`Mcp-Session-Id`), where it has one. */
  get sessionId(): string | undefined {
    return this.telemetry.sessionId;
  }

  /** Set when this session's transport cannot carry server→client requests (why not). */
  serverRequestsUnavailable: string | undefined;

  constructor(
    private readonly host: SessionHost,
    /**
     * Who the caller is, when the transport authenticated it. HTTP verifies every request and
     * updates it, so a stepped-up token's scopes are seen at once.
     */
    public auth: AuthInfo | undefined,
    /** Transport controls, for transports that have them (HTTP: closing a request's SSE stream). */
    private readonly streams?: StreamControls,
    maxInflight?: number,
    /** Set when this connection is a replica of a cluster-wide session. */
    readonly replica?: SessionReplica,
  ) {
    this.peer = new Peer({
      // `n:<node>:<seq>`: the answer to a server→client request finds its node (see ClusterLink).
      idPrefix: replica && host.nodeId !== undefined ? `n:${host.nodeId}:` : undefined,
      onRequest: (request, inbound) => host.dispatch(request, inbound, this),
      onNotification: (notification) => this.notification(notification),
      maxInflight,
      // 2025-03-26 is the only revision with JSON-RPC batches.
      acceptBatch: () => this.state === 'ready' && this.behaviourVersion === '2025-03-26',
      onError: (error) => host.logger.error('Connection error:', error),
      onClose: () => this.closed(),
      requestTimeoutMs: host.requestTimeoutMs,
    });
    if (replica?.record) this.restore(replica.record);
  }

  /** What this session is, for the cluster's session store. */
  record(): SessionRecord {
    const record: {
      -readonly [K in keyof SessionRecord]: SessionRecord[K];
    } = {
      id: this.replica?.id ?? '',
      protocolVersion: this.protocolVersion,
      behaviourVersion: this.behaviourVersion,
      clientInfo: this.clientInfo,
      clientCapabilities: this.clientCapabilities,
      subscriptions: [...this.subscriptions],
      clientReady: this.initializedNotified,
      createdAt: this.replica?.record?.createdAt ?? this.createdAt,
    };
    if (this.replica?.principal !== undefined) record.principal = this.replica.principal;
    if (this.logLevel !== undefined) record.logLevel = this.logLevel;
    return record;
  }

  /**
   * Takes what another node stored: the level, the subscriptions, the client's readiness. The
   * negotiated version and capabilities never change after `initialize`.
   */
  refresh(record: SessionRecord): void {
    this.logLevel = record.logLevel;
    this.subscriptions.clear();
    for (const uri of record.subscriptions) this.subscriptions.add(uri);
    if (record.clientReady) this.initializedNotified = true;
  }

  /**
   * Stores the session after a change, when it is a replica (the promise settles once stored);
   * undefined otherwise, so a single node's change answers at once.
   */
  persist(): Promise<void> | undefined {
    return this.replica?.save(this.record());
  }

  private restore(record: SessionRecord): void {
    this.protocolVersion = record.protocolVersion;
    this.behaviourVersion = record.behaviourVersion;
    this.clientInfo = record.clientInfo;
    this.clientCapabilities = record.clientCapabilities;
    this.state = 'ready';
    this.refresh(record);
  }

  /** Starts serving on `transport`. */
  async connect(transport: Transport): Promise<void> {
    await this.peer.connect(transport);
  }

  /**
   * Serves requests without an `initialize` on this connection, as stateless HTTP does: every
   * POST stands alone. Client capabilities are unknown, so server→client requests are refused
   * with `reason`.
   */
  assumeInitialized(protocolVersion: string, reason: string): void {
    const negotiated = negotiateProtocolVersion(protocolVersion);
    this.protocolVersion = negotiated.answered;
    this.behaviourVersion = negotiated.behaviour;
    this.clientInfo = { name: 'stateless-client', version: '0' };
    this.clientCapabilities = {};
    this.serverRequestsUnavailable = reason;
    this.state = 'ready';
  }

  /**
   * @internal Serves one session-era request (the host routed it here): before `initialize`
   * only `initialize` and `ping` (MCP 2025-11-25, Basic / Lifecycle §Initialization), then the
   * method table.
   */
  serve(request: JSONRPCRequest, inbound: InboundRequest): Result | Promise<Result> {
    const method = request.method;
    if (method === StatelessMethod.ServerDiscover || method === StatelessMethod.SubscriptionsListen) {
      throw new InvalidParamsError(
        `Invalid params: ${method} is a ${LATEST_STATELESS_PROTOCOL_VERSION} method; its _meta must carry "${MetaKey.ProtocolVersion}" and "${MetaKey.ClientCapabilities}"`,
      );
    }
    if (this.state !== 'ready' && method !== Method.Initialize && method !== Method.Ping) {
      throw new InvalidRequestError(
        `Invalid request: "${method}" was sent before initialization; send "initialize" first`,
      );
    }
    const handler = this.host.methods.get(method);
    if (handler) return handler(request.params, inbound, this);
    throw new MethodNotFoundError(`Method not found: ${method}`, { method });
  }

  /** @internal `initialize` was valid: the session is ready with what the client sent. */
  initialized(
    protocolVersion: string,
    clientInfo: Implementation,
    capabilities: ClientCapabilities,
  ): InitializeResult {
    const negotiated = negotiateProtocolVersion(protocolVersion);
    this.protocolVersion = negotiated.answered;
    this.behaviourVersion = negotiated.behaviour;
    this.clientInfo = clientInfo;
    this.clientCapabilities = capabilities;
    this.state = 'ready';
    return this.host.initializeResult(negotiated.answered);
  }

  /** Closes the connection carrying `requestId`'s stream, when the transport can (SSE polling). */
  closeStreamOf(requestId: RequestId): boolean {
    return this.streams?.closeStreamOf(requestId) ?? false;
  }

  /**
   * True when the transport sends each message on the stream of the request it relates to
   * (Streamable HTTP), so a message for a request that ended needs another request to carry it.
   */
  get routesByRequest(): boolean {
    return this.streams !== undefined;
  }

  /** True while a task started by this session runs on this node (see `hold`). */
  get busy(): boolean {
    return this.holds > 0;
  }

  /** @internal Keeps the session busy until the returned release is called (once). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  /** True once `initialize` was answered. */
  get isInitialized(): boolean {
    return this.state === 'ready';
  }

  /** True once the client sent `notifications/initialized`. */
  get clientReady(): boolean {
    return this.initializedNotified;
  }

  /** Ends the connection; in-flight handlers are aborted and their responses dropped. */
  close(): Promise<void> {
    return this.peer.close();
  }

  /** Calls `listener` once when the connection closes. */
  onClose(listener: () => void): void {
    if (this.state === 'closed') listener();
    else this.closeListeners.add(listener);
  }

  /** Every message until the client sets a level with `logging/setLevel`; then that level and above. */
  logs(level: LoggingLevel): boolean {
    const threshold = this.logLevel;
    return threshold === undefined || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
  }

  /** The channel back to the client for one request: requests over this connection, related to it. */
  channel(inbound: InboundRequest): ClientChannel {
    return {
      unavailable: this.serverRequestsUnavailable,
      request: <T extends Result>(
        method: ClientRequestMethod,
        params: Record<string, unknown>,
        options?: { timeoutMs?: number },
      ) => {
        // A URL elicitation's completion is sent to the session that started it.
        if (method === Method.ElicitationCreate && typeof params.elicitationId === 'string') {
          this.host.rememberElicitation(params.elicitationId, this);
        }
        // The client's span for this request is a child of the handler's (semantic-conventions-genai, mcp.md).
        return inbound
          .sendRequest<T>({ method, params: withTraceContext(params) }, options)
          .catch(fromPeer(method));
      },
      missing: (_capabilities, message) => new CapabilityMissingError(message),
      roots: () => this.listRoots(inbound),
    };
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.host.resourceUpdated(uri);
  }

  resourceListChanged(): void {
    this.host.resourceListChanged();
  }

  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.host.completeElicitation(elicitationId);
  }

  /** Sends a notification to this client (if the session is initialized and open). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.state !== 'ready') return Promise.resolve();
    return this.peer.notify(params === undefined ? { method } : { method, params });
  }

  /** `roots/list`, cached until the client says its roots changed. */
  private listRoots(inbound: InboundRequest): Promise<Root[]> {
    if (!this.rootsCache) {
      const pending = inbound
        .sendRequest<ListRootsResult>({ method: Method.RootsList, params: withTraceContext(undefined) })
        .then((result) => (Array.isArray(result.roots) ? result.roots : []), fromPeer(Method.RootsList));
      this.rootsCache = pending;
      // A failed or cancelled request is not cached.
      pending.catch(() => {
        if (this.rootsCache === pending) this.rootsCache = undefined;
      });
    }
    return this.rootsCache;
  }

  private notification(notification: JSONRPCNotification): void {
    if (notification.method === Method.Initialized) {
      if (this.initializedNotified) return;
      this.initializedNotified = true;
      this.persist()?.catch((error) => this.host.logger.warn('The session could not be stored:', error));
      return;
    }
    if (notification.method === Method.RootsListChanged) {
      this.rootsCache = undefined;
      this.host.rootsChanged(this);
    }
  }

  private closed(): void {
    this.state = 'closed';
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
  }
}
