import {
  type AuthInfo,
  type ClientCapabilities,
  fromPeer,
  type Implementation,
  type InboundRequest,
  type InitializeResult,
  InvalidParamsError,
  InvalidRequestError,
  isStatelessRequest,
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
  type RequestParams,
  type Result,
  type Root,
  StatelessMethod,
  type Transport,
} from '@gantry/protocol';
import type { ContextSession } from '../context/mcp-context';
import type { StreamControls } from '../transports/connection-host';
import type { GantryServer } from './gantry-server';
import { checkParamsDepth } from './params-depth';

export type { StreamControls } from '../transports/connection-host';

type SessionState = 'awaiting-initialize' | 'ready' | 'closed';

const EMPTY_RESULT: Result = Object.freeze({}) as Result;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One client connection in the session era: the `initialize` handshake, the negotiated
 * version and capabilities, and dispatch of every later request through the server's method
 * table. On stdio the process is the session.
 */
export class ServerSession implements ContextSession {
  readonly era = 'session' as const;
  readonly peer: Peer;
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
  private readonly closeListeners = new Set<() => void>();

  /** Set when this session's transport cannot carry server→client requests (why not). */
  serverRequestsUnavailable: string | undefined;

  constructor(
    private readonly server: GantryServer,
    /**
     * Who the caller is, when the transport authenticated it. HTTP verifies every request and
     * updates it, so a stepped-up token's scopes are seen at once.
     */
    public auth: AuthInfo | undefined,
    /** Transport controls, for transports that have them (HTTP: closing a request's SSE stream). */
    private readonly streams?: StreamControls,
    maxInflight?: number,
  ) {
    this.peer = new Peer({
      onRequest: (request, inbound) => this.handle(request, inbound),
      onNotification: (notification) => this.notification(notification),
      maxInflight,
      // 2025-03-26 is the only revision with JSON-RPC batches.
      acceptBatch: () => this.state === 'ready' && this.behaviourVersion === '2025-03-26',
      onError: (error) => server.logger.error('Connection error:', error),
      onClose: () => this.closed(),
      requestTimeoutMs: server.requestTimeoutMs,
    });
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

  /** Closes the connection carrying `requestId`'s stream, when the transport can (SSE polling). */
  closeStreamOf(requestId: RequestId): boolean {
    return this.streams?.closeStreamOf(requestId) ?? false;
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

  /** `roots/list`, cached until the client says its roots changed. */
  listRoots(inbound: InboundRequest): Promise<Root[]> {
    if (!this.rootsCache) {
      const pending = inbound
        .sendRequest<ListRootsResult>({ method: Method.RootsList })
        .then((result) => (Array.isArray(result.roots) ? result.roots : []), fromPeer(Method.RootsList));
      this.rootsCache = pending;
      // A failed or cancelled request is not cached.
      pending.catch(() => {
        if (this.rootsCache === pending) this.rootsCache = undefined;
      });
    }
    return this.rootsCache;
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.server.resourceUpdated(uri);
  }

  resourceListChanged(): void {
    this.server.resourceListChanged();
  }

  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.server.completeElicitation(elicitationId);
  }

  rememberElicitation(elicitationId: string): void {
    this.server.rememberElicitation(elicitationId, this);
  }

  /** Sends a notification to this client (if the session is initialized and open). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.state !== 'ready') return Promise.resolve();
    return this.peer.notify(params === undefined ? { method } : { method, params });
  }

  private handle(request: JSONRPCRequest, inbound: InboundRequest): Result | Promise<Result> {
    const method = request.method;
    // Before anything walks the params recursively (validators, digests, JSON.stringify).
    checkParamsDepth(method, request.params, this.server.maxParamsDepth);
    // 2026-07-28: a request that describes itself in _meta is served statelessly, on any connection.
    if (isStatelessRequest(request)) return this.server.stateless.handle(request, inbound, this);
    if (method === StatelessMethod.ServerDiscover || method === StatelessMethod.SubscriptionsListen) {
      throw new InvalidParamsError(
        `Invalid params: ${method} is a ${LATEST_STATELESS_PROTOCOL_VERSION} method; its _meta must carry "${MetaKey.ProtocolVersion}" and "${MetaKey.ClientCapabilities}"`,
      );
    }
    if (this.state !== 'ready') {
      if (method === Method.Initialize) return this.initialize(request.params);
      // 2025-11-25 lifecycle: only ping may precede the initialize response.
      if (method === Method.Ping) return EMPTY_RESULT;
      throw new InvalidRequestError(
        `Invalid request: "${method}" was sent before initialization; send "initialize" first`,
      );
    }
    const handler = this.server.methods.get(method);
    if (handler) return handler(request.params, inbound, this);
    if (method === Method.Initialize) {
      throw new InvalidRequestError(
        'Invalid request: the session is already initialized; "initialize" may be sent only once',
      );
    }
    throw new MethodNotFoundError(`Method not found: ${method}`, { method });
  }

  private initialize(params: RequestParams | undefined): InitializeResult {
    if (!isObject(params)) {
      throw new InvalidParamsError(
        'Invalid params: initialize needs { protocolVersion, capabilities, clientInfo }',
      );
    }
    if (typeof params.protocolVersion !== 'string') {
      throw new InvalidParamsError('Invalid params: initialize needs "protocolVersion" as a string');
    }
    if (!isObject(params.capabilities)) {
      throw new InvalidParamsError('Invalid params: initialize needs "capabilities" as an object');
    }
    const clientInfo = params.clientInfo;
    if (
      !isObject(clientInfo) ||
      typeof clientInfo.name !== 'string' ||
      typeof clientInfo.version !== 'string'
    ) {
      throw new InvalidParamsError(
        'Invalid params: initialize needs "clientInfo" with string "name" and "version"',
      );
    }
    const negotiated = negotiateProtocolVersion(params.protocolVersion);
    this.protocolVersion = negotiated.answered;
    this.behaviourVersion = negotiated.behaviour;
    this.clientInfo = clientInfo as unknown as Implementation;
    this.clientCapabilities = params.capabilities as ClientCapabilities;
    this.state = 'ready';
    return this.server.initializeResult(negotiated.answered);
  }

  private notification(notification: JSONRPCNotification): void {
    if (notification.method === Method.Initialized) {
      this.initializedNotified = true;
      return;
    }
    if (notification.method === Method.RootsListChanged) {
      this.rootsCache = undefined;
      this.server.rootsChanged(this);
    }
  }

  private closed(): void {
    this.state = 'closed';
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
  }
}
