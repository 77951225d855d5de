import {
  type CallToolResult,
  type CancelledNotificationParams,
  type ClientCapabilities,
  ConnectionClosedError,
  type DiscoverResult,
  ErrorCode,
  GantryError,
  type GetPromptResult,
  type Implementation,
  type InboundRequest,
  type InitializeRequestParams,
  type InitializeResult,
  type InputRequest,
  type InputResponses,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isLoggingLevel,
  type JSONRPCNotification,
  LATEST_PROTOCOL_VERSION,
  LATEST_STATELESS_PROTOCOL_VERSION,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  LOG_LEVELS,
  LocalErrorCode,
  type LoggingLevel,
  McpError,
  type Meta,
  MetaKey,
  Method,
  MethodNotFoundError,
  NotConnectedError,
  Peer,
  type ProgressNotificationParams,
  type Prompt,
  type ReadResourceResult,
  RequestCancelledError,
  type RequestId,
  type RequestOptions,
  type Resource,
  type ResourceTemplate,
  type Result,
  type ServerCapabilities,
  STATELESS_PROTOCOL_VERSIONS,
  StatelessMethod,
  SUPPORTED_PROTOCOL_VERSIONS,
  type SubscriptionFilter,
  type Tool,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type { ClientTransportHooks } from './client-transport-hooks';
import {
  cachedEra,
  classifyProbeError,
  type Era,
  type EraPreference,
  pickStatelessVersion,
  rememberEra,
  supportedVersionsIn,
} from './era';
import { type ParamHeader, scanParamHeaders } from './param-headers';
import { type ListenFilter, Subscription } from './subscription';

/** Options of {@link Client}. */
export interface ClientOptions {
  /**
   * What this client can do: sent in `initialize` (session era) and in every request's
   * `_meta` (stateless era). Declare only what the handlers set with `setRequestHandler` serve.
   */
  capabilities?: ClientCapabilities;
  /** Default timeout of every request, `initialize` and `server/discover` included; default 60 000 ms. */
  requestTimeoutMs?: number;
  /** The version asked for in `initialize`; default `LATEST_PROTOCOL_VERSION`. Must be a supported one. */
  protocolVersion?: string;
  /**
   * The stateless-era version to ask for first; default `LATEST_STATELESS_PROTOCOL_VERSION`.
   * Must be one of `STATELESS_PROTOCOL_VERSIONS`. A server that answers −32022 names the
   * versions it supports, and a common one is used instead.
   */
  statelessProtocolVersion?: string;
  /**
   * How long `connect` (era `'auto'`, over a message stream such as stdio or WebSocket) waits
   * for the answer to its `server/discover` probe before it falls back to `initialize`: a
   * session-era server may never answer it. Default 3 000 ms. HTTP probes get a definite
   * answer and wait `requestTimeoutMs`.
   */
  probeTimeoutMs?: number;
  /**
   * Most `input_required` rounds one stateless-era `tools/call`, `prompts/get` or
   * `resources/read` may take before the client gives up; default 8.
   */
  maxInputRounds?: number;
  /** Send `clientInfo` in every stateless-era request's `_meta` (the spec's SHOULD); default true. */
  sendClientInfo?: boolean;
  /**
   * Return stateless-era results exactly as received. By default they are given the shape of
   * session-era results, so code and tests need not branch on the era: the envelope fields the
   * client consumes are removed: `resultType` (the client acts on it), the caching hints
   * `ttlMs` / `cacheScope`, and `_meta["io.modelcontextprotocol/serverInfo"]` (see
   * `serverInfo`). Default false.
   */
  rawResults?: boolean;
  /**
   * Errors nobody awaits: failed sends, throwing notification handlers, tools dropped from
   * `tools/list` for invalid `x-mcp-header` annotations. Default: ignored.
   */
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
  /**
   * Which protocol era to speak (default `'auto'`):
   * - `'stateless'`: the stateless era (2026-07-28) only: `server/discover`, then per-request `_meta`;
   * - `'session'`: the session era only: the `initialize` handshake;
   * - `'auto'`: probe with `server/discover`; a `DiscoverResult` or a recognized stateless-era
   *   error (−32020/−32021/−32022, or −32601 with HTTP 404) means the stateless era; any other
   *   error, or silence for `probeTimeoutMs`, falls back to `initialize`. The outcome is cached
   *   per server (see `clearEraCache`) and tried first next time; when it fails, the other
   *   era is tried.
   */
  era?: EraPreference;
}

/** Options of one request. */
export type ClientRequestOptions = Omit<RequestOptions, 'relatedRequestId'>;

/** Options of {@link Client.callTool}, {@link Client.getPrompt} and {@link Client.readResource}. */
export interface CallToolOptions {
  /**
   * Aborting cancels the request (`notifications/cancelled`; over stateless-era HTTP, the POST
   * is aborted) and rejects with `RequestCancelledError`.
   */
  signal?: AbortSignal;
  /** Time to wait for each response; default the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Receives `notifications/progress` for this call; setting it sends a `progressToken`. */
  onProgress?: (progress: ProgressNotificationParams) => void;
  /** Restart the timeout on each progress notification; setting it sends a `progressToken` too. */
  resetTimeoutOnProgress?: boolean;
  /** Upper bound on the whole wait when progress resets the timeout. */
  maxTotalTimeoutMs?: number;
}

/**
 * How a request handler was reached in the stateless era: the server asked for input inside
 * an `input_required` result (multi round-trip request), not with a JSON-RPC request.
 */
export interface InputRequestContext {
  readonly era: 'stateless';
  /** The input request's method (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
  readonly method: string;
  /** The server's key for this input request. */
  readonly key: string;
  /** The request that needs the input (`tools/call`, `prompts/get`, `resources/read`). */
  readonly request: { readonly method: string; readonly params?: { readonly [key: string]: unknown } };
  /** Aborts when the call that needs the input is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Answers one server → client request (sampling, elicitation, roots). In the session era it
 * is a JSON-RPC request and the second argument is the `InboundRequest`; in the stateless era
 * it is an input request of an `input_required` result and the second argument is an
 * {@link InputRequestContext}. Session era: throw an `McpError` to answer with it. Stateless
 * era: a throw fails the call that needed the input.
 */
export type ClientRequestHandler = (
  params: { [key: string]: unknown },
  request: InboundRequest | InputRequestContext,
) => Result | Promise<Result>;

/** Receives one server notification. */
export type NotificationHandler = (notification: JSONRPCNotification) => void;

type State = 'idle' | 'connecting' | 'connected' | 'closed';

/** The only requests that may answer `input_required` (2026-07-28 basic/patterns/mrtr). */
const INPUT_ROUND_METHODS: ReadonlySet<string> = new Set([
  Method.ToolsCall,
  Method.PromptsGet,
  Method.ResourcesRead,
]);

const DEFAULT_PROBE_TIMEOUT_MS = 3_000;
const DEFAULT_MAX_INPUT_ROUNDS = 8;

/** What `server/discover` (or a recognized stateless-era error) told `connect`. */
type StatelessOutcome = { kind: 'stateless'; version: string; discover?: DiscoverResult };
type ProbeOutcome = StatelessOutcome | { kind: 'session'; error?: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A thin MCP client for both protocol eras. `connect` finds out which era the server speaks
 * (see {@link ConnectOptions.era}): the session era performs the `initialize` handshake; the
 * stateless era (2026-07-28) calls `server/discover` and then sends every request with its
 * `_meta` (version, capabilities, client info), answers `input_required` results through the
 * handlers set with `setRequestHandler`, and receives change notifications through
 * {@link Client.listen}. The typed helpers work the same in both eras.
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
  private hooks?: ClientTransportHooks;
  private currentEra?: Era;
  private initializeResult?: InitializeResult;
  private discoverResult?: DiscoverResult;
  private statelessVersion?: string;
  private logLevel?: LoggingLevel;
  private readonly requestHandlers = new Map<string, ClientRequestHandler>();
  private readonly notificationHandlers = new Map<string, Set<NotificationHandler>>();
  private readonly requestedVersion: string;
  private readonly preferredStatelessVersion: string;
  private readonly probeTimeoutMs: number;
  private readonly maxInputRounds: number;
  /** `x-mcp-header` annotations by tool name, from the latest `tools/list` (stateless-era HTTP). */
  private readonly toolHeaders = new Map<string, readonly ParamHeader[]>();
  /** Open subscriptions of the current connection. */
  private readonly subscriptions = new Set<Subscription>();
  /** Stateless era: subscriptions by the id of their `subscriptions/listen` request. */
  private readonly listenById = new Map<RequestId, Subscription>();
  /** Stateless era: listen params awaiting their request id (set when the Peer sends them). */
  private readonly listenByParams = new WeakMap<object, Subscription>();
  /** Session era: what each subscription was granted. */
  private readonly sessionGrants = new Map<Subscription, SubscriptionFilter>();
  /** Session era: how many subscriptions watch each URI subscribed with `resources/subscribe`. */
  private readonly sessionUriCounts = new Map<string, number>();

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
    const stateless = options.statelessProtocolVersion ?? LATEST_STATELESS_PROTOCOL_VERSION;
    if (!STATELESS_PROTOCOL_VERSIONS.includes(stateless)) {
      throw new TypeError(
        `Client: statelessProtocolVersion "${stateless}" is not supported; use one of ${STATELESS_PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    this.preferredStatelessVersion = stateless;
    this.probeTimeoutMs = positive('probeTimeoutMs', options.probeTimeoutMs, DEFAULT_PROBE_TIMEOUT_MS);
    this.maxInputRounds = options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    if (!Number.isInteger(this.maxInputRounds) || this.maxInputRounds < 1) {
      throw new TypeError(
        `Client: maxInputRounds must be a positive integer, got ${String(options.maxInputRounds)}`,
      );
    }
    // 2025-11-25 ping: either side may ping, and the receiver MUST answer promptly.
    this.requestHandlers.set(Method.Ping, () => ({}));
  }

  /** True between a successful `connect` and the end of the connection. */
  get isConnected(): boolean {
    return this.state === 'connected';
  }

  /** The era `connect` settled on: `'stateless'` (2026-07-28) or `'session'` (session). */
  get era(): Era | undefined {
    return this.currentEra;
  }

  /** The server's `serverInfo`, once connected (stateless era: from `server/discover`'s `_meta`). */
  get serverInfo(): Implementation | undefined {
    if (this.currentEra === 'stateless') {
      const info = this.discoverResult?._meta?.[MetaKey.ServerInfo];
      return isObject(info) ? (info as unknown as Implementation) : undefined;
    }
    return this.initializeResult?.serverInfo;
  }

  /** The server's declared capabilities, once connected (from `initialize` or `server/discover`). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.currentEra === 'stateless'
      ? this.discoverResult?.capabilities
      : this.initializeResult?.capabilities;
  }

  /** The server's `instructions`, if it gave any. */
  get instructions(): string | undefined {
    return this.currentEra === 'stateless'
      ? this.discoverResult?.instructions
      : this.initializeResult?.instructions;
  }

  /**
   * The protocol version in use, once connected: the one the server answered in `initialize`,
   * or the stateless-era version sent in every request's `_meta`.
   */
  get protocolVersion(): string | undefined {
    return this.currentEra === 'stateless' ? this.statelessVersion : this.initializeResult?.protocolVersion;
  }

  /**
   * Starts the transport and settles the protocol era (see {@link ConnectOptions.era}):
   * `server/discover` for the stateless era, or the session-era handshake (`initialize`, a
   * check of the answered version, `notifications/initialized`). On any failure the
   * connection is closed and the error rethrown; the client may then connect again.
   */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<void> {
    if (this.state === 'connecting' || this.state === 'connected') {
      throw new Error('Client is already connected; close it before connecting again');
    }
    const era = options.era ?? 'auto';
    if (era !== 'auto' && era !== 'stateless' && era !== 'session') {
      throw new TypeError(
        `Client.connect: era must be 'auto', 'stateless' or 'session' (got ${JSON.stringify(era)})`,
      );
    }
    const hooks = transport as Transport & ClientTransportHooks;
    if (era === 'stateless' && hooks.eraBinding === 'session-only') {
      throw new TypeError(
        `Client.connect: era 'stateless' cannot be spoken over ${transport.constructor.name}, which carries only the session era`,
      );
    }
    const signal = options.signal;
    const firstMethod = era === 'session' ? Method.Initialize : StatelessMethod.ServerDiscover;
    if (signal?.aborted) throw new RequestCancelledError(firstMethod, signal.reason);

    const peer = new Peer({
      requestTimeoutMs: this.options.requestTimeoutMs,
      onRequest: (request, inbound) => this.handleRequest(request.method, request.params ?? {}, inbound),
      onNotification: (notification) => this.handleNotification(notification),
      onError: this.options.onError,
      onClose: (error) => this.handleClose(peer, error),
    });
    this.peer = peer;
    this.hooks = hooks;
    this.state = 'connecting';
    this.resetConnectionState();

    const onAbort = () => {
      peer.close().catch((error) => this.options.onError?.(error));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await peer.connect(this.tap(transport));
    } catch (error) {
      // A transport whose start rejects has cleaned up after itself; closing it here could
      // end a connection it already serves (e.g. "already started").
      signal?.removeEventListener('abort', onAbort);
      if (this.peer === peer) this.state = 'closed';
      if (signal?.aborted) throw new RequestCancelledError(firstMethod, signal.reason);
      throw error;
    }
    // Streamable HTTP: when the server forgets the session, the transport has the handshake run again.
    hooks.setSessionLostHandler?.(() => this.reinitialize(peer, hooks));
    hooks.setParamHeaders?.((tool) => this.toolHeaders.get(tool));
    try {
      await this.settleEra(peer, hooks, era, signal);
      this.state = 'connected';
    } catch (error) {
      await peer.close().catch(() => {});
      if (this.peer === peer) this.state = 'closed';
      if (signal?.aborted) throw new RequestCancelledError(firstMethod, signal.reason);
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private resetConnectionState(): void {
    this.currentEra = undefined;
    this.initializeResult = undefined;
    this.discoverResult = undefined;
    this.statelessVersion = undefined;
    this.toolHeaders.clear();
    this.subscriptions.clear();
    this.listenById.clear();
    this.sessionGrants.clear();
    this.sessionUriCounts.clear();
  }

  /** Picks the era as `era` says, probing (and consulting the era cache) for `'auto'`. */
  private async settleEra(
    peer: Peer,
    hooks: ClientTransportHooks,
    era: EraPreference,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (era === 'session' || (era === 'auto' && hooks.eraBinding === 'session-only')) {
      return this.useSession(peer, hooks);
    }
    if (era === 'stateless') {
      const outcome = await this.discover(peer, hooks, this.preferredStatelessVersion, false, signal);
      if (outcome.kind === 'session') throw outcome.error;
      return this.useStateless(outcome);
    }
    const key = hooks.eraCacheKey;
    const cached = cachedEra(key);
    if (cached?.era === 'session') {
      try {
        await this.useSession(peer, hooks);
        return;
      } catch (error) {
        // The server may have moved on: re-probe, unless the connection itself is gone.
        if (!(error instanceof McpError) || signal?.aborted || !peer.isConnected) throw error;
        const outcome = await this.discover(peer, hooks, this.preferredStatelessVersion, true, signal);
        if (outcome.kind === 'session') throw error;
        this.useStateless(outcome);
        rememberEra(key, { era: 'stateless', version: outcome.version });
        return;
      }
    }
    const preferred =
      cached?.era === 'stateless' && cached.version ? cached.version : this.preferredStatelessVersion;
    const outcome = await this.discover(peer, hooks, preferred, true, signal);
    if (outcome.kind === 'stateless') {
      this.useStateless(outcome);
      rememberEra(key, { era: 'stateless', version: outcome.version });
      return;
    }
    await this.useSession(peer, hooks);
    rememberEra(key, { era: 'session' });
  }

  /**
   * Sends `server/discover` with `version` in `_meta` (2026-07-28 basic/versioning; the stdio
   * back-compat probe). A `DiscoverResult` or a recognized stateless-era error means the
   * stateless era; a −32022 naming a common version is retried once with it. Anything else
   * means "not the stateless era", with the error that said so.
   */
  private async discover(
    peer: Peer,
    hooks: ClientTransportHooks,
    version: string,
    probing: boolean,
    signal: AbortSignal | undefined,
  ): Promise<ProbeOutcome> {
    // A session-era server may stay silent; HTTP always answers.
    const timeoutMs = probing && hooks.eraBinding !== 'http' ? this.probeTimeoutMs : undefined;
    for (let attempt = 0; ; attempt++) {
      let result: Result;
      try {
        result = await peer.request(
          { method: StatelessMethod.ServerDiscover, params: { _meta: this.statelessMeta(version) } },
          { timeoutMs, signal },
        );
      } catch (error) {
        if (signal?.aborted || !peer.isConnected) throw error;
        const verdict = classifyProbeError(error);
        if (verdict.kind === 'session') return { kind: 'session', error };
        if ((error as McpError).code !== ErrorCode.UnsupportedProtocolVersion)
          return { kind: 'stateless', version };
        const supported = verdict.supported ?? [];
        const common = pickStatelessVersion(supported);
        if (common !== undefined && common !== version && attempt === 0) {
          version = common;
          continue;
        }
        // A version both sides speak, yet refused: a stateless-era server all the same.
        if (common !== undefined) return { kind: 'stateless', version: common };
        // Dual-era servers may list session-era versions too: those mean "use initialize".
        if (probing && supported.some((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v))) {
          return { kind: 'session', error };
        }
        throw new GantryError(
          LocalErrorCode.ProtocolViolation,
          `The server speaks the stateless era but none of its versions (${supported.join(', ') || 'none named'}) is one this client supports (${STATELESS_PROTOCOL_VERSIONS.join(', ')})`,
          { cause: error },
        );
      }
      if (!isDiscoverResult(result)) {
        const error = protocolViolation(
          `server/discover answered with something other than a DiscoverResult: ${preview(result)}`,
        );
        return { kind: 'session', error };
      }
      if (result.resultType !== undefined && result.resultType !== 'complete') {
        throw protocolViolation(
          `server/discover answered with resultType ${JSON.stringify(result.resultType)}`,
        );
      }
      // The server answered at `version`; prefer it when listed, else the newest common one.
      const chosen = result.supportedVersions.includes(version)
        ? version
        : (pickStatelessVersion(result.supportedVersions) ?? version);
      return { kind: 'stateless', version: chosen, discover: result };
    }
  }

  private useStateless(outcome: StatelessOutcome): void {
    this.currentEra = 'stateless';
    this.statelessVersion = outcome.version;
    this.discoverResult = outcome.discover;
  }

  private async useSession(peer: Peer, hooks: ClientTransportHooks): Promise<void> {
    this.initializeResult = await this.handshake(peer, hooks);
    this.currentEra = 'session';
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
   * Starts over on the same connection after the server lost what it knew (HTTP 404,
   * 2025-11-25 transports §"Session Management"; a WebSocket that reconnected). Session era: a
   * new `initialize`, whose answer replaces the one from `connect`. Stateless era: there is no
   * session to restore, so nothing is sent; listens the server forgot are re-opened by the
   * caller (`onReconnect`). Called by the transport, which holds other messages back meanwhile.
   */
  private async reinitialize(peer: Peer, hooks: ClientTransportHooks): Promise<void> {
    if (this.peer !== peer || this.state !== 'connected') {
      throw new NotConnectedError('Not connected: the session was lost after the connection ended');
    }
    if (this.currentEra === 'stateless') return;
    this.initializeResult = await this.handshake(peer, hooks);
  }

  /**
   * Checks that the server is there. Session era: `ping`. The stateless era has no `ping`,
   * so this sends `server/discover` (which every 2026-07-28 server MUST implement) instead
   * and resolves once it is answered.
   */
  async ping(options: ClientRequestOptions = {}): Promise<void> {
    if (this.currentEra === 'stateless')
      await this.request(StatelessMethod.ServerDiscover, undefined, options);
    else await this.request(Method.Ping, undefined, options);
  }

  /**
   * Sets the level of the log messages (`notifications/message`) the server sends. Session
   * era: sends `logging/setLevel`. Stateless era: there is no such request; every later
   * request carries `_meta["io.modelcontextprotocol/logLevel"]` instead (without it, the
   * server sends no log messages for that request).
   */
  async setLoggingLevel(level: LoggingLevel, options: ClientRequestOptions = {}): Promise<void> {
    if (!isLoggingLevel(level)) {
      throw new TypeError(
        `Client.setLoggingLevel: unknown level ${JSON.stringify(level)}; use one of ${LOG_LEVELS.join(', ')}`,
      );
    }
    if (this.currentEra === 'stateless') {
      if (!this.connectedPeer())
        throw new NotConnectedError(notConnectedMessage(this.state, Method.LoggingSetLevel));
      this.logLevel = level;
      return;
    }
    await this.request(Method.LoggingSetLevel, { level }, options);
    this.logLevel = level;
  }

  /**
   * One page of `tools/list`. Over stateless-era HTTP, tools whose `x-mcp-header`
   * annotations are invalid are left out (2026-07-28 streamable HTTP: clients MUST drop
   * them) and reported to `onError`; the others' annotations are remembered so `callTool`
   * can send their `Mcp-Param-*` headers.
   */
  async listToolsPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListToolsResult> {
    const result = await this.request<ListToolsResult>(
      Method.ToolsList,
      cursor === undefined ? undefined : { cursor },
      options,
    );
    if (!Array.isArray(result.tools)) {
      throw protocolViolation(`tools/list answered without a "tools" array: ${preview(result)}`);
    }
    if (this.currentEra === 'stateless' && this.hooks?.setParamHeaders) {
      return { ...result, tools: this.keepValidTools(result.tools) };
    }
    return result;
  }

  /**
   * Every tool, following `nextCursor` until the server gives none. A server that repeats a
   * cursor would make this loop forever; it fails with `GANTRY_ERR_PROTOCOL_VIOLATION` instead.
   */
  listTools(options: ClientRequestOptions = {}): Promise<Tool[]> {
    return this.collect(
      Method.ToolsList,
      (cursor) => this.listToolsPage(cursor, options),
      (page) => page.tools,
    );
  }

  /**
   * Calls a tool. A tool that fails answers `isError: true` in the result; protocol errors
   * (unknown method, invalid params) reject with the matching `McpError`. In the stateless
   * era, `input_required` results are answered through the request handlers and retried.
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

  /** One page of `prompts/list`. */
  async listPromptsPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListPromptsResult> {
    const result = await this.request<ListPromptsResult>(
      Method.PromptsList,
      cursor === undefined ? undefined : { cursor },
      options,
    );
    if (!Array.isArray(result.prompts)) {
      throw protocolViolation(`prompts/list answered without a "prompts" array: ${preview(result)}`);
    }
    return result;
  }

  /** Every prompt, following `nextCursor`. */
  listPrompts(options: ClientRequestOptions = {}): Promise<Prompt[]> {
    return this.collect(
      Method.PromptsList,
      (cursor) => this.listPromptsPage(cursor, options),
      (page) => page.prompts,
    );
  }

  /** Gets a prompt; in the stateless era `input_required` results are answered and retried. */
  async getPrompt(
    name: string,
    args?: { [key: string]: string },
    options: CallToolOptions = {},
  ): Promise<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    const result = await this.request<GetPromptResult>(Method.PromptsGet, params, options);
    if (!Array.isArray(result.messages)) {
      throw protocolViolation(
        `prompts/get "${name}" answered without a "messages" array: ${preview(result)}`,
      );
    }
    return result;
  }

  /** One page of `resources/list`. */
  async listResourcesPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListResourcesResult> {
    const result = await this.request<ListResourcesResult>(
      Method.ResourcesList,
      cursor === undefined ? undefined : { cursor },
      options,
    );
    if (!Array.isArray(result.resources)) {
      throw protocolViolation(`resources/list answered without a "resources" array: ${preview(result)}`);
    }
    return result;
  }

  /** Every resource, following `nextCursor`. */
  listResources(options: ClientRequestOptions = {}): Promise<Resource[]> {
    return this.collect(
      Method.ResourcesList,
      (cursor) => this.listResourcesPage(cursor, options),
      (page) => page.resources,
    );
  }

  /** One page of `resources/templates/list`. */
  async listResourceTemplatesPage(
    cursor?: string,
    options: ClientRequestOptions = {},
  ): Promise<ListResourceTemplatesResult> {
    const result = await this.request<ListResourceTemplatesResult>(
      Method.ResourcesTemplatesList,
      cursor === undefined ? undefined : { cursor },
      options,
    );
    if (!Array.isArray(result.resourceTemplates)) {
      throw protocolViolation(
        `resources/templates/list answered without a "resourceTemplates" array: ${preview(result)}`,
      );
    }
    return result;
  }

  /** Every resource template, following `nextCursor`. */
  listResourceTemplates(options: ClientRequestOptions = {}): Promise<ResourceTemplate[]> {
    return this.collect(
      Method.ResourcesTemplatesList,
      (cursor) => this.listResourceTemplatesPage(cursor, options),
      (page) => page.resourceTemplates,
    );
  }

  /** Reads a resource; in the stateless era `input_required` results are answered and retried. */
  async readResource(uri: string, options: CallToolOptions = {}): Promise<ReadResourceResult> {
    const result = await this.request<ReadResourceResult>(Method.ResourcesRead, { uri }, options);
    if (!Array.isArray(result.contents)) {
      throw protocolViolation(
        `resources/read "${uri}" answered without a "contents" array: ${preview(result)}`,
      );
    }
    return result;
  }

  /**
   * Sends any request; the escape hatch for methods without a helper. In the stateless era
   * it adds the per-request `_meta` (keys given in `params._meta` win), checks `resultType`,
   * and runs the multi round-trip loop for `tools/call`, `prompts/get` and `resources/read`.
   */
  request<T extends Result = Result>(
    method: string,
    params?: { [key: string]: unknown },
    options: ClientRequestOptions = {},
  ): Promise<T> {
    const peer = this.connectedPeer();
    if (!peer) return Promise.reject(new NotConnectedError(notConnectedMessage(this.state, method)));
    if (this.currentEra === 'stateless')
      return this.statelessRequest(peer, method, params, options) as Promise<T>;
    return peer.request<T>(params === undefined ? { method } : { method, params }, options);
  }

  /** Sends a notification. */
  notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    const peer = this.connectedPeer();
    if (!peer) return Promise.reject(new NotConnectedError(notConnectedMessage(this.state, method)));
    return peer.notify(params === undefined ? { method } : { method, params });
  }

  /**
   * Opens a subscription to change notifications and returns it at once; iterate it with
   * `for await`, and await `acknowledged` for what the server agreed to deliver.
   *
   * Stateless era: sends `subscriptions/listen` and receives the notifications tagged with
   * its id; `close()` sends `notifications/cancelled` (stdio, WebSocket) or closes the POST's
   * response stream (HTTP). Session era: list changes arrive as plain notifications once the
   * server declared `listChanged`, and `resourceSubscriptions` become `resources/subscribe`
   * (`close()` unsubscribes), so the same code works in both eras. In both, the filter is
   * trimmed to what the server's capabilities allow. Notifications also reach the handlers
   * set with {@link Client.onNotification}.
   *
   * @throws NotConnectedError when not connected.
   */
  listen(filter: ListenFilter = {}): Subscription {
    const peer = this.connectedPeer();
    if (!peer)
      throw new NotConnectedError(notConnectedMessage(this.state, StatelessMethod.SubscriptionsListen));
    if (!isObject(filter)) throw new TypeError('Client.listen: the filter must be an object');
    return this.currentEra === 'stateless' ? this.listenStateless(peer, filter) : this.listenSession(filter);
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
   * `roots/list`), replacing any previous handler: a JSON-RPC request in the session era, an
   * input request of an `input_required` result in the stateless era. Without a handler, the
   * session era answers −32601 and a stateless-era call needing that input fails locally.
   * Declare the matching capability in `options.capabilities`.
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
    // Closing on purpose ends subscriptions cleanly; only a lost connection fails them.
    for (const subscription of [...this.subscriptions]) subscription.end();
    this.subscriptions.clear();
    await peer.close();
  }

  private connectedPeer(): Peer | undefined {
    return this.state === 'connected' ? this.peer : undefined;
  }

  /** The per-request `_meta` of the stateless era. */
  private statelessMeta(version = this.statelessVersion ?? this.preferredStatelessVersion): Meta {
    const meta: Meta = {
      [MetaKey.ProtocolVersion]: version,
      [MetaKey.ClientCapabilities]: this.options.capabilities ?? {},
    };
    if (this.options.sendClientInfo !== false) meta[MetaKey.ClientInfo] = this.clientInfo;
    if (this.logLevel !== undefined) meta[MetaKey.LogLevel] = this.logLevel;
    return meta;
  }

  private withStatelessMeta(params: { [key: string]: unknown } | undefined): { [key: string]: unknown } {
    const given = isObject(params?._meta) ? params._meta : undefined;
    return { ...params, _meta: { ...this.statelessMeta(), ...given } };
  }

  /**
   * One stateless-era request: `_meta` added, `resultType` checked, `input_required` answered
   * and retried (new id, same method and params, plus `inputResponses` and the echoed
   * `requestState`), a −32022 retried once with a common version, and a −32020 on `tools/call`
   * over HTTP retried once after re-reading `tools/list` (the `Mcp-Param-*` headers may be stale).
   */
  private async statelessRequest(
    peer: Peer,
    method: string,
    params: { [key: string]: unknown } | undefined,
    options: CallToolOptions,
  ): Promise<Result> {
    let current = params;
    let rounds = 0;
    let versionRetried = false;
    let headersRetried = false;
    for (;;) {
      let result: Result;
      try {
        result = await peer.request({ method, params: this.withStatelessMeta(current) }, options);
      } catch (error) {
        if (!(error instanceof McpError) || options.signal?.aborted) throw error;
        if (error.code === ErrorCode.UnsupportedProtocolVersion && !versionRetried) {
          versionRetried = true;
          const common = pickStatelessVersion(supportedVersionsIn(error) ?? []);
          if (common !== undefined && common !== this.statelessVersion) {
            this.statelessVersion = common;
            rememberEra(this.hooks?.eraCacheKey, { era: 'stateless', version: common });
            continue;
          }
        }
        if (
          error.code === ErrorCode.HeaderMismatch &&
          method === Method.ToolsCall &&
          !headersRetried &&
          this.hooks?.setParamHeaders
        ) {
          headersRetried = true;
          await this.listTools({ signal: options.signal, timeoutMs: options.timeoutMs });
          continue;
        }
        throw error;
      }
      const type = result.resultType;
      if (type === undefined || type === 'complete')
        return this.options.rawResults ? result : withoutEnvelope(result);
      if (type !== 'input_required') {
        throw protocolViolation(
          `${method} answered with resultType ${JSON.stringify(type)}, which this client does not recognize`,
        );
      }
      if (!INPUT_ROUND_METHODS.has(method)) {
        throw protocolViolation(
          `${method} answered resultType "input_required", which only tools/call, prompts/get and resources/read may return`,
        );
      }
      rounds++;
      if (rounds > this.maxInputRounds) {
        throw new GantryError(
          LocalErrorCode.InputRequired,
          `${method} still asked for input after ${this.maxInputRounds} rounds (maxInputRounds); gave up`,
        );
      }
      const requests = result.inputRequests;
      const state = result.requestState;
      if (requests !== undefined && !isObject(requests)) {
        throw protocolViolation(
          `${method} answered input_required with "inputRequests" that is not an object`,
        );
      }
      if (state !== undefined && typeof state !== 'string') {
        throw protocolViolation(
          `${method} answered input_required with a "requestState" that is not a string`,
        );
      }
      if (requests === undefined && state === undefined) {
        throw protocolViolation(
          `${method} answered input_required with neither "inputRequests" nor "requestState"`,
        );
      }
      const next: { [key: string]: unknown } = { ...params };
      delete next.inputResponses;
      delete next.requestState;
      if (requests !== undefined) {
        next.inputResponses = await this.answerInputRequests(method, params, requests, options.signal);
      }
      // Echoed byte for byte, and only when the server gave one.
      if (state !== undefined) next.requestState = state;
      if (options.signal?.aborted) throw new RequestCancelledError(method, options.signal.reason);
      current = next;
    }
  }

  /** Runs the request handler of each input request, in the server's order. */
  private async answerInputRequests(
    method: string,
    params: { [key: string]: unknown } | undefined,
    requests: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<InputResponses> {
    const responses: InputResponses = {};
    const callSignal = signal ?? new AbortController().signal;
    for (const [key, entry] of Object.entries(requests)) {
      if (!isObject(entry) || typeof entry.method !== 'string') {
        throw protocolViolation(`${method} asked for input "${key}" without a method: ${preview(entry)}`);
      }
      const input = entry as unknown as InputRequest;
      // `ping` has a built-in handler for the session era; it is no input request.
      const handler =
        (input.method as string) === Method.Ping ? undefined : this.requestHandlers.get(input.method);
      if (!handler) {
        throw new GantryError(
          LocalErrorCode.CapabilityMissing,
          `${method} needs input "${key}" (${input.method}), but this client has no handler for ${input.method}; register one with client.setRequestHandler('${input.method}', …) and declare the capability`,
        );
      }
      if (callSignal.aborted) throw new RequestCancelledError(method, callSignal.reason);
      const context: InputRequestContext = {
        era: 'stateless',
        method: input.method,
        key,
        request: params === undefined ? { method } : { method, params },
        signal: callSignal,
      };
      try {
        responses[key] = (await handler(
          isObject(input.params) ? input.params : {},
          context,
        )) as InputResponses[string];
      } catch (error) {
        if (callSignal.aborted) throw new RequestCancelledError(method, callSignal.reason);
        const message = error instanceof Error ? error.message : String(error);
        throw new GantryError(
          LocalErrorCode.InputRequired,
          `The ${input.method} handler failed on input "${key}" of ${method}: ${message}`,
          { cause: error },
        );
      }
    }
    return responses;
  }

  /** Follows `nextCursor` through every page, refusing a repeated cursor. */
  private async collect<P extends { nextCursor?: string }, T>(
    method: string,
    page: (cursor: string | undefined) => Promise<P>,
    items: (page: P) => T[],
  ): Promise<T[]> {
    const all: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const current = await page(cursor);
      all.push(...items(current));
      cursor = current.nextCursor ?? undefined;
      if (cursor !== undefined) {
        if (seen.has(cursor)) {
          throw protocolViolation(
            `${method} repeated the cursor ${JSON.stringify(cursor)}; stopped after ${seen.size + 1} pages to avoid an endless loop`,
          );
        }
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    return all;
  }

  /** Drops tools with invalid `x-mcp-header` annotations; remembers the others' annotations. */
  private keepValidTools(tools: Tool[]): Tool[] {
    const kept: Tool[] = [];
    for (const tool of tools) {
      const scan = scanParamHeaders(tool?.inputSchema);
      if (!scan.ok) {
        this.toolHeaders.delete(tool.name);
        this.options.onError?.(
          new GantryError(
            LocalErrorCode.ProtocolViolation,
            `Dropped tool "${tool.name}" from tools/list: its inputSchema has an invalid x-mcp-header annotation (${scan.reason})`,
          ),
        );
        continue;
      }
      if (scan.headers.length > 0) this.toolHeaders.set(tool.name, scan.headers);
      else this.toolHeaders.delete(tool.name);
      kept.push(tool);
    }
    return kept;
  }

  private listenStateless(peer: Peer, filter: ListenFilter): Subscription {
    const controller = new AbortController();
    const subscription: Subscription = new Subscription(filter, async () => {
      this.forget(subscription);
      controller.abort('The subscription was closed');
    });
    const params = this.withStatelessMeta({ notifications: filter });
    this.listenByParams.set(params, subscription);
    this.subscriptions.add(subscription);
    // A listen stream lasts until one side ends it: no timeout.
    peer
      .request(
        { method: StatelessMethod.SubscriptionsListen, params },
        { timeoutMs: Infinity, signal: controller.signal },
      )
      .then(
        (result) => {
          if (result.resultType !== undefined && result.resultType !== 'complete') {
            subscription.end(
              protocolViolation(
                `subscriptions/listen ended with resultType ${JSON.stringify(result.resultType)}`,
              ),
            );
          } else {
            subscription.end();
          }
        },
        (error: Error) => {
          if (!controller.signal.aborted) subscription.end(error);
        },
      )
      .finally(() => this.forget(subscription));
    return subscription;
  }

  private listenSession(filter: ListenFilter): Subscription {
    const subscription: Subscription = new Subscription(filter, () => this.unsubscribeSession(subscription));
    const caps = this.serverCapabilities ?? {};
    const granted: SubscriptionFilter = {};
    if (filter.toolsListChanged === true && caps.tools?.listChanged) granted.toolsListChanged = true;
    if (filter.promptsListChanged === true && caps.prompts?.listChanged) granted.promptsListChanged = true;
    if (filter.resourcesListChanged === true && caps.resources?.listChanged)
      granted.resourcesListChanged = true;
    const uris = Array.isArray(filter.resourceSubscriptions)
      ? [...new Set(filter.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string'))]
      : undefined;
    if (uris !== undefined && caps.resources?.subscribe) granted.resourceSubscriptions = uris;
    this.subscriptions.add(subscription);
    this.sessionGrants.set(subscription, granted);
    const subscribes: Promise<unknown>[] = [];
    for (const uri of granted.resourceSubscriptions ?? []) {
      const count = this.sessionUriCounts.get(uri) ?? 0;
      this.sessionUriCounts.set(uri, count + 1);
      if (count === 0) subscribes.push(this.request(Method.ResourcesSubscribe, { uri }));
    }
    Promise.all(subscribes).then(
      () => subscription.markAcknowledged(granted),
      (error: Error) => {
        subscription.end(error);
        this.unsubscribeSession(subscription).catch(() => undefined);
      },
    );
    return subscription;
  }

  /** Session era: `resources/unsubscribe` for the URIs no other open subscription watches. */
  private async unsubscribeSession(subscription: Subscription): Promise<void> {
    const granted = this.sessionGrants.get(subscription);
    this.forget(subscription);
    if (!granted) return;
    const last: string[] = [];
    for (const uri of granted.resourceSubscriptions ?? []) {
      const count = (this.sessionUriCounts.get(uri) ?? 1) - 1;
      if (count > 0) this.sessionUriCounts.set(uri, count);
      else {
        this.sessionUriCounts.delete(uri);
        last.push(uri);
      }
    }
    if (!this.connectedPeer()) return;
    await Promise.all(
      last.map((uri) =>
        this.request(Method.ResourcesUnsubscribe, { uri }).catch((error: Error) =>
          this.options.onError?.(error),
        ),
      ),
    );
  }

  private forget(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    this.sessionGrants.delete(subscription);
    if (subscription.id !== undefined && this.listenById.get(subscription.id) === subscription) {
      this.listenById.delete(subscription.id);
    }
  }

  /**
   * Wraps the transport the Peer uses: outbound, it learns the ids of `subscriptions/listen`
   * requests; inbound, it turns a server's `notifications/cancelled` for a listen stream
   * (the spec's other way to end one) into the end of that stream.
   */
  private tap(transport: Transport): Transport {
    return {
      start: (sink: TransportSink) =>
        transport.start({
          message: (value) => {
            if (!this.endedByServer(value, sink)) sink.message(value);
          },
          invalid: (error) => sink.invalid(error),
          closed: (error) => sink.closed(error),
        }),
      send: (message: WireMessage, options) => {
        if (!Array.isArray(message) && isJSONRPCRequest(message) && message.params) {
          const subscription = this.listenByParams.get(message.params);
          if (subscription) {
            subscription.id = message.id;
            this.listenById.set(message.id, subscription);
          }
        }
        return transport.send(message, options);
      },
      close: () => transport.close(),
    };
  }

  /** A server's `notifications/cancelled` ending a listen stream settles that request as complete. */
  private endedByServer(value: unknown, sink: TransportSink): boolean {
    if (!isJSONRPCNotification(value) || value.method !== Method.Cancelled) return false;
    const id = (value.params as CancelledNotificationParams | undefined)?.requestId;
    if (id === undefined || !this.listenById.has(id)) return false;
    sink.message({ jsonrpc: '2.0', id, result: { resultType: 'complete' } });
    return true;
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
    this.routeToSubscriptions(notification);
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

  private routeToSubscriptions(notification: JSONRPCNotification): void {
    const id = notification.params?._meta?.[MetaKey.SubscriptionId];
    if (id !== undefined) {
      const subscription = this.listenById.get(id as RequestId);
      if (!subscription) return;
      if (notification.method === StatelessMethod.SubscriptionsAcknowledged) {
        const agreed = notification.params?.notifications;
        subscription.markAcknowledged(isObject(agreed) ? (agreed as SubscriptionFilter) : {});
      } else {
        subscription.push(notification);
      }
      return;
    }
    if (this.currentEra !== 'session') return;
    for (const [subscription, granted] of this.sessionGrants) {
      if (grants(granted, notification)) subscription.push(notification);
    }
  }

  private handleClose(peer: Peer, error: Error | undefined): void {
    // A late close of an earlier connection must not touch the current one.
    if (this.peer !== peer) return;
    const wasConnected = this.state === 'connected';
    this.state = 'closed';
    const ended = new ConnectionClosedError(
      error ? `Connection closed: ${error.message}` : 'Connection closed',
      error ? { cause: error } : undefined,
    );
    for (const subscription of [...this.subscriptions]) subscription.end(ended);
    this.subscriptions.clear();
    this.listenById.clear();
    // A failed connect rejects instead; `onClose` is for connections that were up.
    if (wasConnected) this.options.onClose?.(error);
  }
}

/** Session era: whether a plain notification belongs to a subscription granted `granted`. */
function grants(granted: SubscriptionFilter, notification: JSONRPCNotification): boolean {
  switch (notification.method) {
    case Method.ToolsListChanged:
      return granted.toolsListChanged === true;
    case Method.PromptsListChanged:
      return granted.promptsListChanged === true;
    case Method.ResourcesListChanged:
      return granted.resourcesListChanged === true;
    case Method.ResourcesUpdated: {
      const uri = notification.params?.uri;
      return (
        typeof uri === 'string' &&
        (granted.resourceSubscriptions ?? []).some(
          (watched) => uri === watched || uri.startsWith(watched.endsWith('/') ? watched : `${watched}/`),
        )
      );
    }
    default:
      return false;
  }
}

/**
 * A complete stateless-era result in the shape of a session-era one: without `resultType`,
 * `ttlMs`, `cacheScope` and `_meta["io.modelcontextprotocol/serverInfo"]` (`_meta` goes when
 * nothing else is left in it).
 */
function withoutEnvelope(result: Result): Result {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
  const meta = rest._meta;
  if (isObject(meta) && MetaKey.ServerInfo in meta) {
    const { [MetaKey.ServerInfo]: _info, ...others } = meta;
    if (Object.keys(others).length > 0) rest._meta = others;
    else delete rest._meta;
  }
  return rest;
}

function isDiscoverResult(result: Result): result is DiscoverResult {
  return (
    Array.isArray(result.supportedVersions) &&
    result.supportedVersions.every((version) => typeof version === 'string') &&
    isObject(result.capabilities)
  );
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) {
    throw new TypeError(`Client: ${name} must be a positive number of milliseconds, got ${String(value)}`);
  }
  return value;
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
