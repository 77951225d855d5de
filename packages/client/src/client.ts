import {
  type CallToolResult,
  type ClientCapabilities,
  GantryError,
  type Implementation,
  type InboundRequest,
  type InitializeRequestParams,
  type InitializeResult,
  type JSONRPCNotification,
  LATEST_PROTOCOL_VERSION,
  type ListToolsResult,
  LocalErrorCode,
  Method,
  MethodNotFoundError,
  NotConnectedError,
  Peer,
  type ProgressNotificationParams,
  RequestCancelledError,
  type RequestOptions,
  type Result,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  type Transport,
} from '@gantry/protocol';
import type { ClientTransportHooks } from './client-transport-hooks';

/** Options of {@link Client}. */
export interface ClientOptions {
  /** Declared in `initialize`. Declare only what the handlers set with `setRequestHandler` serve. */
  capabilities?: ClientCapabilities;
  /** Default timeout of every request, `initialize` included; default 60 000 ms. */
  requestTimeoutMs?: number;
  /** The version asked for in `initialize`; default `LATEST_PROTOCOL_VERSION`. Must be a supported one. */
  protocolVersion?: string;
  /** Errors nobody awaits: failed sends, throwing notification handlers. Default: ignored. */
  onError?: (error: Error) => void;
  /** Called once when a connection ends, with the transport's error if it ended on its own. */
  onClose?: (error?: Error) => void;
}

/** Options of {@link Client.connect}. */
export interface ConnectOptions {
  /**
   * Aborts the handshake. The connection is closed rather than `initialize` cancelled, which
   * the 2025-11-25 lifecycle forbids ("The client MUST NOT cancel initialize").
   */
  signal?: AbortSignal;
}

/** Options of one request. */
export type ClientRequestOptions = Omit<RequestOptions, 'relatedRequestId'>;

/** Options of {@link Client.callTool}. */
export interface CallToolOptions {
  /** Aborting sends `notifications/cancelled` and rejects with `RequestCancelledError`. */
  signal?: AbortSignal;
  /** Time to wait for the result; default the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Receives `notifications/progress` for this call; setting it sends a `progressToken`. */
  onProgress?: (progress: ProgressNotificationParams) => void;
  /** Restart the timeout on each progress notification. */
  resetTimeoutOnProgress?: boolean;
  /** Upper bound on the whole wait when progress resets the timeout. */
  maxTotalTimeoutMs?: number;
}

/** Answers one server → client request (sampling, elicitation, roots). Throw an `McpError` to answer with it. */
export type ClientRequestHandler = (
  params: { [key: string]: unknown },
  request: InboundRequest,
) => Result | Promise<Result>;

/** Receives one server notification. */
export type NotificationHandler = (notification: JSONRPCNotification) => void;

type State = 'idle' | 'connecting' | 'connected' | 'closed';

/**
 * A thin MCP client for the session era: it performs the `initialize` handshake over any
 * `Transport` and sends typed requests through one `Peer` per connection.
 *
 * @example
 * const client = new Client({ name: 'tests', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const result = await client.callTool('add', { a: 1, b: 2 });
 * await client.close();
 */
export class Client {
  private peer?: Peer;
  private state: State = 'idle';
  private initializeResult?: InitializeResult;
  private readonly requestHandlers = new Map<string, ClientRequestHandler>();
  private readonly notificationHandlers = new Map<string, Set<NotificationHandler>>();
  private readonly requestedVersion: string;

  constructor(
    readonly clientInfo: Implementation,
    private readonly options: ClientOptions = {},
  ) {
    const version = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      throw new TypeError(
        `Client: protocolVersion "${version}" is not supported; use one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    this.requestedVersion = version;
    // 2025-11-25 ping: either side may ping, and the receiver MUST answer promptly.
    this.requestHandlers.set(Method.Ping, () => ({}));
  }

  /** True between a successful `connect` and the end of the connection. */
  get isConnected(): boolean {
    return this.state === 'connected';
  }

  /** The server's `serverInfo`, once connected. */
  get serverInfo(): Implementation | undefined {
    return this.initializeResult?.serverInfo;
  }

  /** The server's declared capabilities, once connected. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.initializeResult?.capabilities;
  }

  /** The server's `instructions`, if it gave any. */
  get instructions(): string | undefined {
    return this.initializeResult?.instructions;
  }

  /** The protocol version the server answered, once connected. */
  get protocolVersion(): string | undefined {
    return this.initializeResult?.protocolVersion;
  }

  /**
   * Starts the transport and performs the handshake: `initialize`, a check of the answered
   * version, then `notifications/initialized`. On any failure the connection is closed and
   * the error rethrown; the client may then connect again.
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<void> {
    if (this.state === 'connecting' || this.state === 'connected') {
      throw new Error('Client is already connected; close it before connecting again');
    }
    const signal = options.signal;
    if (signal?.aborted) throw new RequestCancelledError(Method.Initialize, signal.reason);

    const peer = new Peer({
      requestTimeoutMs: this.options.requestTimeoutMs,
      onRequest: (request, inbound) => this.handleRequest(request.method, request.params ?? {}, inbound),
      onNotification: (notification) => this.handleNotification(notification),
      onError: this.options.onError,
      onClose: (error) => this.handleClose(peer, error),
    });
    this.peer = peer;
    this.state = 'connecting';
    this.initializeResult = undefined;

    const onAbort = () => {
      peer.close().catch((error) => this.options.onError?.(error));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await peer.connect(transport);
    } catch (error) {
      // A transport whose start rejects has cleaned up after itself; closing it here could
      // end a connection it already serves (e.g. "already started").
      signal?.removeEventListener('abort', onAbort);
      if (this.peer === peer) this.state = 'closed';
      if (signal?.aborted) throw new RequestCancelledError(Method.Initialize, signal.reason);
      throw error;
    }
    // Streamable HTTP: when the server forgets the session, the transport has the handshake run again.
    const hooks = transport as Transport & ClientTransportHooks;
    hooks.setSessionLostHandler?.(() => this.reinitialize(peer, hooks));
    try {
      this.initializeResult = await this.handshake(peer, hooks);
      this.state = 'connected';
    } catch (error) {
      await peer.close().catch(() => {});
      if (this.peer === peer) this.state = 'closed';
      if (signal?.aborted) throw new RequestCancelledError(Method.Initialize, signal.reason);
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** 2025-11-25 lifecycle: `initialize`, a check of the answer, then `notifications/initialized`. */
  private async handshake(peer: Peer, hooks: ClientTransportHooks): Promise<InitializeResult> {
    const params: InitializeRequestParams = {
      protocolVersion: this.requestedVersion,
      capabilities: this.options.capabilities ?? {},
      clientInfo: this.clientInfo,
    };
    const result = await peer.request<InitializeResult>({
      method: Method.Initialize,
      params: params as unknown as { [key: string]: unknown },
    });
    checkInitializeResult(result);
    // 2025-06-18+ transports: MCP-Protocol-Version on every HTTP request after initialize.
    hooks.setProtocolVersion?.(result.protocolVersion);
    await peer.notify({ method: Method.Initialized });
    return result;
  }

  /**
   * Starts a new session on the same connection after the server lost the old one (HTTP 404,
   * 2025-11-25 transports §"Session Management"). Called by the transport, which holds other
   * messages back meanwhile; the server's answer replaces the one from `connect`.
   */
  private async reinitialize(peer: Peer, hooks: ClientTransportHooks): Promise<void> {
    if (this.peer !== peer || this.state !== 'connected') {
      throw new NotConnectedError('Not connected: the session was lost after the connection ended');
    }
    this.initializeResult = await this.handshake(peer, hooks);
  }

  /** Sends `ping`; resolves when the server answers. */
  async ping(options: ClientRequestOptions = {}): Promise<void> {
    await this.request(Method.Ping, undefined, options);
  }

  /** One page of `tools/list`. */
  async listToolsPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListToolsResult> {
    const result = await this.request<ListToolsResult>(
      Method.ToolsList,
      cursor === undefined ? undefined : { cursor },
      options,
    );
    if (!Array.isArray(result.tools)) {
      throw protocolViolation(`tools/list answered without a "tools" array: ${preview(result)}`);
    }
    return result;
  }

  /**
   * Every tool, following `nextCursor` until the server gives none. A server that repeats a
   * cursor would make this loop forever; it fails with `GANTRY_ERR_PROTOCOL_VIOLATION` instead.
   */
  async listTools(options: ClientRequestOptions = {}): Promise<Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.listToolsPage(cursor, options);
      tools.push(...page.tools);
      cursor = page.nextCursor ?? undefined;
      if (cursor !== undefined) {
        if (seen.has(cursor)) {
          throw protocolViolation(
            `tools/list repeated the cursor ${JSON.stringify(cursor)}; stopped after ${seen.size + 1} pages to avoid an endless loop`,
          );
        }
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls a tool. A tool that fails answers `isError: true` in the result; protocol errors
   * (unknown method, invalid params) reject with the matching `McpError`.
   */
  async callTool(
    name: string,
    args?: { [key: string]: unknown },
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    const result = await this.request<CallToolResult>(Method.ToolsCall, params, options);
    if (!Array.isArray(result.content)) {
      throw protocolViolation(`tools/call "${name}" answered without a "content" array: ${preview(result)}`);
    }
    return result;
  }

  /** Sends any request; the escape hatch for methods without a helper. */
  request<T extends Result = Result>(
    method: string,
    params?: { [key: string]: unknown },
    options: ClientRequestOptions = {},
  ): Promise<T> {
    const peer = this.connectedPeer();
    if (!peer) return Promise.reject(new NotConnectedError(notConnectedMessage(this.state, method)));
    return peer.request<T>(params === undefined ? { method } : { method, params }, options);
  }

  /** Sends a notification. */
  notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    const peer = this.connectedPeer();
    if (!peer) return Promise.reject(new NotConnectedError(notConnectedMessage(this.state, method)));
    return peer.notify(params === undefined ? { method } : { method, params });
  }

  /**
   * Subscribes to a server notification (e.g. `notifications/tools/list_changed`). Progress
   * for a request made with `onProgress` goes to that callback, not here.
   * @returns a function that removes this handler.
   */
  onNotification(method: string, handler: NotificationHandler): () => void {
    let handlers = this.notificationHandlers.get(method);
    if (!handlers) {
      handlers = new Set();
      this.notificationHandlers.set(method, handlers);
    }
    handlers.add(handler);
    return () => {
      const current = this.notificationHandlers.get(method);
      if (!current) return;
      current.delete(handler);
      if (current.size === 0) this.notificationHandlers.delete(method);
    };
  }

  /**
   * Answers a server → client request method (`sampling/createMessage`, `elicitation/create`,
   * `roots/list`), replacing any previous handler. Methods without a handler are answered
   * −32601. Declare the matching capability in `options.capabilities`.
   */
  setRequestHandler(method: string, handler: ClientRequestHandler): void {
    this.requestHandlers.set(method, handler);
  }

  /** Removes a request handler; the method is answered −32601 again. */
  removeRequestHandler(method: string): void {
    this.requestHandlers.delete(method);
  }

  /** Closes the connection (for stdio: shuts the server process down). Pending requests reject. */
  async close(): Promise<void> {
    const peer = this.peer;
    if (!peer) return;
    await peer.close();
  }

  private connectedPeer(): Peer | undefined {
    return this.state === 'connected' ? this.peer : undefined;
  }

  private handleRequest(
    method: string,
    params: { [key: string]: unknown },
    inbound: InboundRequest,
  ): Result | Promise<Result> {
    const handler = this.requestHandlers.get(method);
    if (!handler) throw new MethodNotFoundError(`Method not found: ${method}`);
    return handler(params, inbound);
  }

  private handleNotification(notification: JSONRPCNotification): void {
    const handlers = this.notificationHandlers.get(notification.method);
    if (!handlers) return;
    for (const handler of [...handlers]) {
      try {
        handler(notification);
      } catch (error) {
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private handleClose(peer: Peer, error: Error | undefined): void {
    // A late close of an earlier connection must not touch the current one.
    if (this.peer !== peer) return;
    const wasConnected = this.state === 'connected';
    this.state = 'closed';
    // A failed connect rejects instead; `onClose` is for connections that were up.
    if (wasConnected) this.options.onClose?.(error);
  }
}

function checkInitializeResult(result: InitializeResult): void {
  if (
    typeof result.protocolVersion !== 'string' ||
    !SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)
  ) {
    // 2025-11-25 lifecycle: "If the client does not support the version in the server's
    // response, it SHOULD disconnect."
    throw protocolViolation(
      `The server answered initialize with protocol version ${JSON.stringify(result.protocolVersion)}, which this client does not support (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}); the connection was closed`,
    );
  }
  if (typeof result.serverInfo !== 'object' || result.serverInfo === null) {
    throw protocolViolation(`The server answered initialize without "serverInfo": ${preview(result)}`);
  }
  if (typeof result.capabilities !== 'object' || result.capabilities === null) {
    throw protocolViolation(`The server answered initialize without "capabilities": ${preview(result)}`);
  }
}

function protocolViolation(message: string): GantryError {
  return new GantryError(LocalErrorCode.ProtocolViolation, message);
}

function notConnectedMessage(state: State, method: string): string {
  if (state === 'connecting') return `Not connected: "${method}" was sent before connect() finished`;
  if (state === 'closed') return `Not connected: "${method}" was sent after the connection closed`;
  return `Not connected: call connect() before sending "${method}"`;
}

/** The start of a JSON value, for error messages. */
function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
