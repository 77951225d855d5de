import {
  type CallToolResult,
  type GetPromptResult,
  type Implementation,
  isObject,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type LoggingLevel,
  MetaKey,
  Method,
  NotConnectedError,
  Peer,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Result,
  type ServerCapabilities,
  StatelessMethod,
  TASKS_EXTENSION_ID,
  type Tool,
  type Transport,
} from '@gantry/protocol';
import { ClientHandlers } from './client-handlers';
import type {
  CallToolOptions,
  ClientOptions,
  ClientRequestHandler,
  ClientRequestOptions,
  ConnectOptions,
  NotificationHandler,
} from './client-options';
import { type ClientState, checkLoggingLevel, notConnectedMessage, withArray } from './client-support';
import { tracedRequest } from './client-telemetry';
import type { ClientTransportHooks } from './client-transport-hooks';
import * as completion from './completion';
import { type Era, rememberEra } from './era';
import {
  abortedConnect,
  checkedEra,
  establish,
  handshake,
  type Negotiated,
  type NegotiationSettings,
  negotiationSettings,
  serverFacts,
} from './era-negotiation';
import { collectPages, fetchPage, type ListItem, type ListKind } from './list-pages';
import { ListenRouter } from './listen-router';
import type { ParamHeader } from './param-headers';
import { StatelessRequester } from './stateless-requester';
import type { ListenFilter, Subscription } from './subscription';
import { TaskHandle, taskInfoOf } from './task-handle';

/** Options of `callTool(…, { task })`. */
export interface TaskCallOptions {
  /** The ttl asked for (2025-11-25 `task.ttl`); the server may grant less. */
  ttlMs?: number;
  /** The shortest poll interval used, whatever the server asks. Default 50 ms. */
  minPollMs?: number;
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
  private state: ClientState = 'idle';
  private hooks?: ClientTransportHooks;
  private negotiated?: Negotiated;
  private readonly handlers: ClientHandlers;
  private readonly negotiation: NegotiationSettings;
  private readonly stateless: StatelessRequester;
  private readonly listens: ListenRouter;
  /** `x-mcp-header` annotations by tool name, from the latest `tools/list` (stateless-era HTTP). */
  private readonly toolHeaders = new Map<string, readonly ParamHeader[]>();

  constructor(
    readonly clientInfo: Implementation,
    private readonly options: ClientOptions = {},
  ) {
    this.negotiation = negotiationSettings(clientInfo, options, (at) => this.stateless.meta(at));
    const eraCache = this.negotiation.eraCache;
    this.stateless = new StatelessRequester({
      clientInfo,
      options,
      preferredVersion: this.negotiation.preferredStatelessVersion,
      handlerFor: (method) => this.handlers.requestHandler(method),
      sendsParamHeaders: () => this.hooks?.setParamHeaders !== undefined,
      refreshTools: (refresh) => this.listTools(refresh),
      versionChanged: (common) =>
        rememberEra(eraCache, this.hooks?.eraCacheKey, { era: 'stateless', version: common }),
    });
    this.listens = new ListenRouter({
      serverCapabilities: () => this.serverCapabilities,
      request: (method, params) => this.request(method, params),
      isConnected: () => this.connectedPeer() !== undefined,
      withStatelessMeta: (params) => this.stateless.withMeta(params),
      onError: options.onError,
    });
    this.handlers = new ClientHandlers(options.onError);
  }

  /** True between a successful `connect` and the end of the connection. */
  get isConnected(): boolean {
    return this.state === 'connected';
  }

  /** The era `connect` settled on: `'stateless'` (2026-07-28) or `'session'` (2024-11-05 … 2025-11-25). */
  get era(): Era | undefined {
    return this.negotiated?.era;
  }

  /** The server's `serverInfo`, once connected (stateless era: from `server/discover`'s `_meta`). */
  get serverInfo(): Implementation | undefined {
    return serverFacts(this.negotiated).info;
  }

  /** The server's declared capabilities, once connected (from `initialize` or `server/discover`). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return serverFacts(this.negotiated).capabilities;
  }

  /** The server's `instructions`, if it gave any. */
  get instructions(): string | undefined {
    return serverFacts(this.negotiated).instructions;
  }

  /**
   * The protocol version in use, once connected: the one the server answered in `initialize`,
   * or the stateless-era version sent in every request's `_meta`.
   */
  get protocolVersion(): string | undefined {
    const negotiated = this.negotiated;
    return negotiated?.era === 'session' ? negotiated.initialize.protocolVersion : this.stateless.version;
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
    const era = checkedEra(options.era, transport);
    if (options.signal?.aborted) throw abortedConnect(era, options.signal);
    const hooks = transport as Transport & ClientTransportHooks;
    const peer = new Peer({
      requestTimeoutMs: this.options.requestTimeoutMs,
      onRequest: (request, inbound) => this.handlers.answer(request.method, request.params ?? {}, inbound),
      onNotification: (notification) => {
        this.listens.route(notification, this.negotiated?.era === 'session');
        this.handlers.dispatch(notification);
      },
      onError: this.options.onError,
      onClose: (error) => this.handleClose(peer, error),
    });
    this.peer = peer;
    this.hooks = hooks;
    this.state = 'connecting';
    this.negotiated = undefined;
    this.stateless.version = undefined;
    this.toolHeaders.clear();
    this.listens.reset();
    try {
      const negotiated = await establish(
        {
          peer,
          transport: this.listens.endsListensOnCancel(transport),
          hooks,
          era,
          signal: options.signal,
          started: () => {
            // Streamable HTTP: when the server forgets the session, the transport has the handshake run again.
            hooks.setSessionLostHandler?.(() => this.reinitialize(peer, hooks));
            hooks.setParamHeaders?.((tool) => this.toolHeaders.get(tool));
          },
          onError: this.options.onError,
        },
        this.negotiation,
      );
      if (negotiated.era === 'stateless') this.stateless.version = negotiated.version;
      this.negotiated = negotiated;
      this.state = 'connected';
    } catch (error) {
      if (this.peer === peer) this.state = 'closed';
      throw error;
    }
  }

  /**
   * Starts over on the same connection after the server lost what it knew (HTTP 404, MCP
   * 2025-11-25, Basic / Transports §"Session Management"; a WebSocket that reconnected).
   * Session era: a new `initialize`, whose answer replaces the one from `connect`. Stateless
   * era: there is no session to restore, so nothing is sent; listens the server forgot are
   * re-opened by the caller (`onReconnect`). Called by the transport, which holds other
   * messages back meanwhile.
   */
  private async reinitialize(peer: Peer, hooks: ClientTransportHooks): Promise<void> {
    if (this.peer !== peer || this.state !== 'connected') {
      throw new NotConnectedError('Not connected: the session was lost after the connection ended');
    }
    if (this.negotiated?.era !== 'session') return;
    this.negotiated = { era: 'session', initialize: await handshake(peer, hooks, this.negotiation) };
  }

  /**
   * Checks that the server is there. Session era: `ping`. The stateless era has no `ping`,
   * so this sends `server/discover` (which every 2026-07-28 server MUST implement) instead
   * and resolves once it is answered.
   */
  async ping(options: ClientRequestOptions = {}): Promise<void> {
    if (this.negotiated?.era === 'stateless')
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
    checkLoggingLevel(level);
    if (this.negotiated?.era === 'stateless') {
      if (!this.connectedPeer())
        throw new NotConnectedError(notConnectedMessage(this.state, Method.LoggingSetLevel));
      this.stateless.logLevel = level;
      return;
    }
    await this.request(Method.LoggingSetLevel, { level }, options);
    this.stateless.logLevel = level;
  }

  /**
   * One page of `tools/list`. Over stateless-era HTTP, tools whose `x-mcp-header`
   * annotations are invalid are left out (MCP 2026-07-28, Basic / Transports §"Streamable
   * HTTP": clients MUST drop them) and reported to `onError`; the others' annotations are
   * remembered so `callTool` can send their `Mcp-Param-*` headers.
   */
  listToolsPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListToolsResult> {
    return this.listPage('tools', cursor, options);
  }

  /**
   * Every tool, following `nextCursor` until the server gives none. A server that repeats a
   * cursor would make this loop forever; it fails with `GANTRY_ERR_PROTOCOL_VIOLATION` instead.
   */
  listTools(options: ClientRequestOptions = {}): Promise<Tool[]> {
    return this.listAll('tools', options);
  }

  /** One page of `prompts/list`. */
  listPromptsPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListPromptsResult> {
    return this.listPage('prompts', cursor, options);
  }

  /** Every prompt, following `nextCursor`. */
  listPrompts(options: ClientRequestOptions = {}): Promise<Prompt[]> {
    return this.listAll('prompts', options);
  }

  /** One page of `resources/list`. */
  listResourcesPage(cursor?: string, options: ClientRequestOptions = {}): Promise<ListResourcesResult> {
    return this.listPage('resources', cursor, options);
  }

  /** Every resource, following `nextCursor`. */
  listResources(options: ClientRequestOptions = {}): Promise<Resource[]> {
    return this.listAll('resources', options);
  }

  /** One page of `resources/templates/list`. */
  listResourceTemplatesPage(
    cursor?: string,
    options: ClientRequestOptions = {},
  ): Promise<ListResourceTemplatesResult> {
    return this.listPage('resourceTemplates', cursor, options);
  }

  /** Every resource template, following `nextCursor`. */
  listResourceTemplates(options: ClientRequestOptions = {}): Promise<ResourceTemplate[]> {
    return this.listAll('resourceTemplates', options);
  }

  /**
   * Calls a tool. A tool that fails answers `isError: true` in the result; protocol errors
   * (unknown method, invalid params) reject with the matching `McpError`. In the stateless
   * era, `input_required` results are answered through the request handlers and retried.
   */
  callTool(
    name: string,
    args: { [key: string]: unknown } | undefined,
    options: CallToolOptions & { task: true | TaskCallOptions },
  ): Promise<TaskHandle>;
  callTool(
    name: string,
    args?: { [key: string]: unknown },
    options?: CallToolOptions,
  ): Promise<CallToolResult>;
  async callTool(
    name: string,
    args?: { [key: string]: unknown },
    options: CallToolOptions & { task?: true | TaskCallOptions } = {},
  ): Promise<CallToolResult | TaskHandle> {
    const params = args === undefined ? { name } : { name, arguments: args };
    if (options.task) {
      const { task, ...plain } = options;
      return this.callToolAsTask(name, params, plain, task === true ? {} : task);
    }
    const result = await this.request<CallToolResult>(Method.ToolsCall, params, options);
    return withArray(result, 'content', `tools/call "${name}"`);
  }

  /** Gets a prompt; in the stateless era `input_required` results are answered and retried. */
  async getPrompt(
    name: string,
    args?: { [key: string]: string },
    options: CallToolOptions = {},
  ): Promise<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    const result = await this.request<GetPromptResult>(Method.PromptsGet, params, options);
    return withArray(result, 'messages', `prompts/get "${name}"`);
  }

  /** Reads a resource; in the stateless era `input_required` results are answered and retried. */
  async readResource(uri: string, options: CallToolOptions = {}): Promise<ReadResourceResult> {
    const result = await this.request<ReadResourceResult>(Method.ResourcesRead, { uri }, options);
    return withArray(result, 'contents', `resources/read "${uri}"`);
  }

  /**
   * Completes a prompt argument or resource-template variable (`completion/complete`, MCP
   * 2025-11-25, Server › Utilities › Completion); `context.arguments` are the ones already given.
   */
  async complete(
    ref: completion.CompletionReference,
    argument: completion.CompletionArgument,
    context?: completion.CompletionRequestContext,
    options: ClientRequestOptions = {},
  ): Promise<completion.Completion> {
    const params = completion.completionParams(ref, argument, context);
    return completion.completionOf(await this.request(Method.CompletionComplete, params, options));
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
    if (this.negotiated?.era === 'stateless')
      return tracedRequest(
        method,
        params,
        options,
        (sent, traced) => this.stateless.request(peer, method, sent, traced) as Promise<T>,
      );
    return tracedRequest(method, params, options, (sent, traced) =>
      peer.request<T>(sent === undefined ? { method } : { method, params: sent }, traced),
    );
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
    return this.listens.open(peer, filter, this.negotiated?.era === 'stateless');
  }

  /**
   * Subscribes to a server notification (e.g. `notifications/tools/list_changed`). Progress
   * for a request made with `onProgress` goes to that callback, not here.
   * @returns a function that removes this handler.
   */
  onNotification(method: string, handler: NotificationHandler): () => void {
    return this.handlers.onNotification(method, handler);
  }

  /**
   * Answers a server → client request method (`sampling/createMessage`, `elicitation/create`,
   * `roots/list`), replacing any previous handler: a JSON-RPC request in the session era, an
   * input request of an `input_required` result in the stateless era. Without a handler, the
   * session era answers −32601 and a stateless-era call needing that input fails locally.
   * Declare the matching capability in `options.capabilities`. An accepted form-mode
   * `elicitation/create` answer gets the requested schema's defaults for the fields it left out.
   */
  setRequestHandler(method: string, handler: ClientRequestHandler): void {
    this.handlers.setRequestHandler(method, handler);
  }

  /** Removes a request handler; the method is answered −32601 again. */
  removeRequestHandler(method: string): void {
    this.handlers.removeRequestHandler(method);
  }

  /** Closes the connection (for stdio: shuts the server process down). Pending requests reject. */
  async close(): Promise<void> {
    const peer = this.peer;
    if (!peer) return;
    // Closing on purpose ends subscriptions cleanly; only a lost connection fails them.
    this.listens.endAll();
    await peer.close();
  }

  /**
   * `callTool(…, { task: true })`: asks for a task where the server supports one for this tool
   * (2025-11-25: `capabilities.tasks` and the tool's `execution.taskSupport`; 2026-07-28: the
   * tasks extension declared on this request), else calls the tool as usual (the handle then
   * holds the result at once).
   */
  private async callToolAsTask(
    name: string,
    params: { [key: string]: unknown },
    options: CallToolOptions,
    task: TaskCallOptions,
  ): Promise<TaskHandle> {
    const peer = this.connectedPeer();
    if (!peer) throw new NotConnectedError(notConnectedMessage(this.state, Method.ToolsCall));
    const minPollMs = task.minPollMs ?? 50;
    if (this.negotiated?.era === 'stateless') {
      const capabilities = this.options.capabilities ?? {};
      const declared = {
        ...capabilities,
        extensions: { ...capabilities.extensions, [TASKS_EXTENSION_ID]: {} },
      };
      const meta = {
        ...(isObject(params._meta) ? params._meta : {}),
        [MetaKey.ClientCapabilities]: declared,
      };
      const sendMeta = (p: { [key: string]: unknown }) => ({
        ...p,
        _meta: { ...(isObject(p._meta) ? p._meta : {}), [MetaKey.ClientCapabilities]: declared },
      });
      const result = await tracedRequest(
        Method.ToolsCall,
        { ...params, _meta: meta },
        options,
        (sent, traced) => this.stateless.request(peer, Method.ToolsCall, sent, traced, true),
      );
      if (result.resultType !== 'task') return new TaskHandle(undefined, undefined, result as CallToolResult);
      return new TaskHandle(
        {
          era: 'stateless',
          minPollMs,
          request: (method, taskParams) =>
            this.stateless.request(peer, method, sendMeta(taskParams), {}, false),
          answer: (requests) => this.stateless.answerTaskInputs(requests, options.signal),
        },
        taskInfoOf(result),
      );
    }
    const capabilities = this.serverCapabilities as
      | { tasks?: { requests?: { tools?: { call?: unknown } } } }
      | undefined;
    let support: string | undefined;
    if (capabilities?.tasks?.requests?.tools?.call !== undefined) {
      const tools = await this.listTools(options);
      support = tools.find((tool) => tool.name === name)?.execution?.taskSupport;
    }
    if (support !== 'optional' && support !== 'required') {
      return new TaskHandle(
        undefined,
        undefined,
        await this.callTool(name, params.arguments as never, options),
      );
    }
    const taskParam = task.ttlMs === undefined ? {} : { ttl: task.ttlMs };
    const created = await this.request<Result>(Method.ToolsCall, { ...params, task: taskParam }, options);
    if (!isObject(created.task)) return new TaskHandle(undefined, undefined, created as CallToolResult);
    return new TaskHandle(
      { era: 'session', minPollMs, request: (method, taskParams) => this.request(method, taskParams) },
      taskInfoOf(created.task as Record<string, unknown>),
    );
  }

  /** One page of a list; over stateless-era HTTP, `tools/list` also refreshes the tools' headers. */
  private listPage<K extends ListKind>(kind: K, cursor: string | undefined, options: ClientRequestOptions) {
    const refreshHeaders = this.negotiated?.era === 'stateless' && this.hooks?.setParamHeaders !== undefined;
    return fetchPage(kind, cursor, {
      request: (method, params) => this.request(method, params, options),
      toolHeaders: refreshHeaders ? this.toolHeaders : undefined,
      onError: this.options.onError,
    });
  }

  /** Every item of a list, following `nextCursor`. */
  private listAll<K extends ListKind>(kind: K, options: ClientRequestOptions): Promise<ListItem<K>[]> {
    return collectPages(kind, (cursor) => this.listPage(kind, cursor, options));
  }

  private connectedPeer(): Peer | undefined {
    return this.state === 'connected' ? this.peer : undefined;
  }

  private handleClose(peer: Peer, error: Error | undefined): void {
    // A late close of an earlier connection must not touch the current one.
    if (this.peer !== peer) return;
    const wasConnected = this.state === 'connected';
    this.state = 'closed';
    this.listens.connectionLost(error);
    // A failed connect rejects instead; `onClose` is for connections that were up.
    if (wasConnected) this.options.onClose?.(error);
  }
}
