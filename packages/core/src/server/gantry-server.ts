import {
  CapabilityMissingError,
  ErrorCode,
  GantryError,
  type Implementation,
  type InboundRequest,
  type InitializeResult,
  InvalidParamsError,
  isStatelessRequest,
  type JSONRPCRequest,
  type JSONRPCResponse,
  LocalErrorCode,
  McpError,
  Method,
  type Result,
  type ServerCapabilities,
  StatelessMethod,
  TASKS_EXTENSION_ID,
  type Transport,
} from '@gantry/protocol';
import { UI_EXTENSION_ID } from '../apps/ui-constants';
import type { ClusterLink } from '../cluster/cluster';
import { ClusterFanOut } from '../cluster/cluster-fan-out';
import type { SessionInfo } from '../context/context-session';
import { McpContext } from '../context/mcp-context';
import type { ExtensionDefinition } from '../extensions/extension-scanner';
import type { Logger } from '../logger';
import { DEFAULT_PAGE_SIZE } from '../registry/pagination';
import type { Registry } from '../registry/registry';
import { cacheHintProblem } from '../stateless/cache-hint';
import { StatelessDispatcher } from '../stateless/stateless-dispatcher';
import { coversUri, SubscriptionHub } from '../stateless/subscriptions';
import { extensionTaskMethods, sessionTaskMethods } from '../tasks/task-methods';
import { TaskService } from '../tasks/task-service';
import { type ConnectionTelemetry, connectionTelemetry, ServerTelemetry } from '../telemetry/telemetry';
import type { ConnectOptions, Exchange, TransportInfo } from '../transports/connection-host';
import { completionCompleteHandler } from './completion-handler';
import { type DrainTimes, resolveDrainTimes } from './drain-times';
import { serveExchange } from './exchange';
import { InflightCaps } from './inflight-caps';
import { InflightWork } from './inflight-work';
import type { MethodHandler, MethodTable } from './method-table';
import { checkParamsDepth, resolveMaxParamsDepth } from './params-depth';
import { promptHandlers } from './prompt-handlers';
import { resourceHandlers } from './resource-handlers';
import type { GantryServerOptions } from './server-options';
import { ServerSession, type SessionHost } from './server-session';
import { type SessionMethod, sessionMethods } from './session-methods';
import { toolHandlers } from './tool-handlers';

export type { ConnectOptions } from '../transports/connection-host';

/**
 * The protocol engine: one per application. It owns the method tables (built once), the live
 * sessions, and the notifications that go to all of them (list changes, resource updates).
 * Every request on a connection goes through `dispatch`, which routes it by era.
 */
export class GantryServer implements SessionHost {
  /** Every method a session serves: those of both eras, and the session-only ones. */
  readonly methods: MethodTable<ServerSession>;
  readonly sessions = new Set<ServerSession>();
  readonly requestTimeoutMs: number | undefined;
  /** Deepest nesting accepted in a request's params (`maxParamsDepth`). */
  readonly maxParamsDepth: number;
  private readonly serverInfo: Implementation;
  readonly capabilities: ServerCapabilities;
  private readonly elicitations = new Map<string, ServerSession>();
  private readonly rootsListeners = new Set<(session: SessionInfo) => void>();
  private readonly pendingListChanges = new Set<string>();
  /** Stateless-era `subscriptions/listen` streams. */
  readonly hub: SubscriptionHub;
  /** Serves stateless-era (2026-07-28) requests on any connection. */
  readonly stateless: StatelessDispatcher;
  /** The deployment's cluster, when there is one. */
  readonly cluster: ClusterLink | undefined;
  readonly nodeId: string | undefined;
  private readonly fanOut: ClusterFanOut | undefined;
  /** The requests running on this node, which a draining application waits for. */
  readonly inflight = new InflightWork();
  /** `limits.maxInflightPerSession` / `maxInflightPerPrincipal`; undefined when both are off. */
  readonly caps: InflightCaps | undefined;
  /** Why new work is refused while the application drains (see `ConnectionHost.refusal`). */
  refusal: string | undefined;
  /** `drainDelayMs` and `shutdownGraceMs`, checked. */
  readonly drainTimes: DrainTimes;
  /** OpenTelemetry spans and metrics of every request (no-ops without an SDK). */
  readonly telemetry: ServerTelemetry;
  /** Tools that run as tasks (`@Tool({ task })`); undefined when none does. */
  readonly tasks: TaskService | undefined;
  /** The last exchange transport seen and its telemetry: transports pass one object for all. */
  private exchangeTransport?: TransportInfo;
  private exchangeTelemetry: ConnectionTelemetry = connectionTelemetry(undefined);

  constructor(
    readonly registry: Registry,
    private readonly options: GantryServerOptions,
    readonly logger: Logger,
    extensions: readonly ExtensionDefinition[] = [],
  ) {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${String(options.pageSize)}`);
    }
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.drainTimes = resolveDrainTimes(options);
    this.cluster = options.cluster;
    this.nodeId = options.cluster?.nodeId;
    this.fanOut = options.cluster ? new ClusterFanOut(options.cluster, logger) : undefined;
    this.maxParamsDepth = resolveMaxParamsDepth(options.maxParamsDepth);
    this.caps = InflightCaps.of(options.limits);
    this.telemetry = new ServerTelemetry(options.telemetry, options.version, (method, name) =>
      method === Method.ToolsCall ? registry.tools.has(name) : registry.prompts.has(name),
    );
    const declare = options.capabilities ?? {};
    const hasTools = registry.tools.size > 0 || declare.tools === true;
    const hasResources = registry.resources.size + registry.templates.size > 0 || declare.resources === true;
    const hasPrompts = registry.prompts.size > 0 || declare.prompts === true;

    const capabilities: ServerCapabilities = {};
    const hasTaskTools = registry.tools.definitions().some((tool) => tool.task !== undefined);
    this.tasks =
      hasTaskTools || options.tasks !== undefined
        ? new TaskService({
            options: options.tasks,
            clusterStore: options.cluster?.tasks,
            nodeId: options.cluster?.nodeId,
            logger,
            inflight: this.inflight,
          })
        : undefined;
    let extensionTaskTable: [string, MethodHandler][] | undefined;
    // The methods of both eras; the stateless dispatcher wraps the ones it serves.
    const shared = new Map<string, MethodHandler>();
    const add = (entries: [string, MethodHandler][]) => {
      for (const [method, handler] of entries) shared.set(method, handler);
    };
    if (hasTools) {
      capabilities.tools = { listChanged: true };
      add(toolHandlers(registry, pageSize, logger, this.tasks));
    }
    if (hasResources) {
      capabilities.resources = { subscribe: true, listChanged: true };
      add(resourceHandlers(registry, pageSize));
    }
    if (hasPrompts) {
      capabilities.prompts = { listChanged: true };
      add(promptHandlers(registry, pageSize));
    }
    capabilities.logging = {};
    if (hasPrompts || hasResources) {
      capabilities.completions = {};
      add([completionCompleteHandler(registry)]);
    }
    const extensionMethods = addExtensions(extensions, capabilities, shared);
    const methods = new Map<string, SessionMethod>(shared);
    if (this.tasks) {
      // MCP 2025-11-25 Tasks § Capabilities; and the 2026-07-28 extension in server/discover.
      capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
      capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION_ID]: {} };
      for (const [method, handler] of sessionTaskMethods(this.tasks, pageSize)) methods.set(method, handler);
      extensionTaskTable = extensionTaskMethods(this.tasks);
    }
    for (const [method, handler] of sessionMethods(registry, hasResources)) methods.set(method, handler);
    this.methods = methods;
    this.capabilities = capabilities;

    const info: Implementation = { name: options.name, version: options.version };
    if (options.title !== undefined) info.title = options.title;
    if (options.description !== undefined) info.description = options.description;
    if (options.websiteUrl !== undefined) info.websiteUrl = options.websiteUrl;
    if (options.icons !== undefined) info.icons = options.icons;
    this.serverInfo = info;

    for (const [kind, hint] of Object.entries(options.cache ?? {})) {
      const problem = hint === undefined ? undefined : cacheHintProblem(hint);
      if (problem) throw new TypeError(`The cache option '${kind}' ${problem}`);
    }
    this.hub = new SubscriptionHub(capabilities, this.telemetry, this.tasks);
    const tasks = this.tasks;
    if (tasks) this.telemetry.observeTasks(() => tasks.running);
    this.stateless = new StatelessDispatcher({
      registry,
      methods: shared,
      extensionMethods,
      taskMethods: extensionTaskTable,
      capabilities,
      serverInfo: info,
      instructions: options.instructions,
      options: clusterStatelessOptions(options),
      cache: options.cache,
      hub: this.hub,
      services: {
        resourceUpdated: (uri) => this.resourceUpdated(uri),
        resourceListChanged: () => this.resourceListChanged(),
        completeElicitation: (id) => this.completeElicitation(id),
      },
      logger,
    });

    registry.capabilityProblem = (kinds) => {
      const missing = (['tools', 'resources', 'prompts'] as const).filter(
        (kind) => kinds[kind] && !capabilities[kind],
      );
      if (missing.length === 0 && kinds.ui && capabilities.extensions?.[UI_EXTENSION_ID] === undefined) {
        return `the server did not advertise the MCP Apps extension ${UI_EXTENSION_ID} at bootstrap; serve at least one @UiResource from the start`;
      }
      if (missing.length === 0) return undefined;
      return (
        `the server did not declare the ${missing.join(' and ')} capability at bootstrap, so clients could not use them; ` +
        `create the app with { capabilities: { ${missing.map((m) => `${m}: true`).join(', ')} } }`
      );
    };
    registry.notices = {
      resourceListChanged: () => this.resourceListChanged(),
      resourceUpdated: (uri) => this.resourceUpdated(uri),
    };
    registry.tools.onChange(() => this.listChanged(Method.ToolsListChanged, hasTools));
    registry.resources.onChange(() => this.listChanged(Method.ResourcesListChanged, hasResources));
    registry.templates.onChange(() => this.listChanged(Method.ResourcesListChanged, hasResources));
    registry.prompts.onChange(() => this.listChanged(Method.PromptsListChanged, hasPrompts));
  }

  /** Serves one connection on `transport`. */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<ServerSession> {
    const session = new ServerSession(
      this,
      options.auth,
      options.streams,
      options.maxInflight,
      options.replica,
    );
    session.telemetry = connectionTelemetry(options.transport);
    session.remoteAddress = options.remoteAddress;
    const mode = options.mode ?? 'session';
    if (mode !== 'session')
      session.assumeInitialized(mode.sessionless.protocolVersion, mode.sessionless.reason);
    this.sessions.add(session);
    const opened = mode === 'session' ? performance.now() : undefined;
    if (opened !== undefined) this.telemetry.sessionOpened();
    session.onClose(() => {
      this.sessions.delete(session);
      for (const [id, owner] of this.elicitations) if (owner === session) this.elicitations.delete(id);
      if (opened !== undefined) {
        const seconds = (performance.now() - opened) / 1000;
        this.telemetry.sessionClosed(seconds, session.telemetry, session.protocolVersion);
      }
    });
    await session.connect(transport);
    return session;
  }

  /**
   * Serves one request that arrived on a connection: a stateless-era request (one that
   * describes itself in `_meta`, MCP 2026-07-28) goes to the stateless dispatcher on any
   * connection; every other request to the connection's session.
   */
  dispatch(
    request: JSONRPCRequest,
    inbound: InboundRequest,
    connection: ServerSession,
  ): Result | Promise<Result> {
    const telemetry = this.telemetry;
    // Without an SDK nothing is instrumented: two identity checks, then the request as ever.
    if (!telemetry.active) return this.route(request, inbound, connection);
    return telemetry.serve(
      request,
      connection.telemetry,
      isStatelessRequest(request) ? undefined : connection,
      () => this.route(request, inbound, connection),
    );
  }

  private route(
    request: JSONRPCRequest,
    inbound: InboundRequest,
    connection: ServerSession,
  ): Result | Promise<Result> {
    // Before anything walks the params recursively (validators, digests, JSON.stringify).
    checkParamsDepth(request.method, request.params, this.maxParamsDepth);
    if (this.refusal !== undefined) {
      const refused = this.refusedStream(request.method);
      if (refused) throw refused;
    }
    // Refused before the handler runs; counted per connection and per principal while it runs.
    const release = this.caps?.enter(connection.auth, connection);
    let outcome: Result | Promise<Result>;
    try {
      outcome = this.serveOn(request, inbound, connection);
    } catch (error) {
      release?.();
      throw error;
    }
    return this.inflight.track(outcome, release);
  }

  private serveOn(
    request: JSONRPCRequest,
    inbound: InboundRequest,
    connection: ServerSession,
  ): Result | Promise<Result> {
    if (isStatelessRequest(request)) return this.stateless.handle(request, inbound, connection);
    return connection.serve(request, inbound);
  }

  /**
   * While draining, a new listen stream is refused: it would only hold the grace and then end.
   * Other requests on open connections are served.
   */
  private refusedStream(method: string): McpError | undefined {
    if (method !== StatelessMethod.SubscriptionsListen) return undefined;
    return new McpError(ErrorCode.InternalError, `Service Unavailable: ${this.refusal}`, {
      retryAfterMs: 2000,
    });
  }

  /**
   * Serves one stateless-era request that stands alone (see `ConnectionHost.exchange`): no
   * session and no Peer, one `InboundRequest` over the exchange.
   */
  exchange(request: JSONRPCRequest, exchange: Exchange): Promise<JSONRPCResponse | undefined> {
    const refused = this.refusal === undefined ? undefined : this.refusedStream(request.method);
    if (refused) return Promise.resolve({ jsonrpc: '2.0', id: request.id, error: refused.toJSON() });
    // A stateless exchange has no session: only the principal's cap applies.
    let release: (() => void) | undefined;
    try {
      release = this.caps?.enter(exchange.auth, undefined);
    } catch (error) {
      return Promise.resolve({ jsonrpc: '2.0', id: request.id, error: (error as McpError).toJSON() });
    }
    return this.serveExchange(request, exchange, release);
  }

  /** `serveExchange` never rejects, so `release` runs once its response is known. */
  private serveExchange(
    request: JSONRPCRequest,
    exchange: Exchange,
    release: (() => void) | undefined,
  ): Promise<JSONRPCResponse | undefined> {
    const telemetry = this.telemetry;
    if (!telemetry.active) {
      return this.inflight.track(serveExchange(this, request, exchange), release) as Promise<
        JSONRPCResponse | undefined
      >;
    }
    if (exchange.transport !== this.exchangeTransport) {
      this.exchangeTransport = exchange.transport;
      this.exchangeTelemetry = connectionTelemetry(exchange.transport);
    }
    return this.inflight.track(
      telemetry.serveExchange(request, this.exchangeTelemetry, () => serveExchange(this, request, exchange)),
      release,
    ) as Promise<JSONRPCResponse | undefined>;
  }

  /** The `initialize` result for the answered version. */
  initializeResult(protocolVersion: string): InitializeResult {
    const result: InitializeResult = {
      protocolVersion,
      capabilities: this.capabilities,
      serverInfo: this.serverInfo,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  /**
   * Sends `notifications/resources/updated` to every session subscribed to `uri` (or to a parent
   * of it) and to every stateless-era listen stream subscribed to it.
   */
  async resourceUpdated(uri: string): Promise<void> {
    await Promise.all([this.resourceUpdatedHere(uri), this.fanOut?.resourceUpdated(uri)]);
  }

  /**
   * The part of `resourceUpdated` for this node's own connections (another node announced the
   * change, or it happened here). Clustered sessions get it through the cluster's streams.
   */
  async resourceUpdatedHere(uri: string): Promise<void> {
    const sends: Promise<void>[] = this.hub.resourceUpdated(uri);
    for (const session of this.sessions) {
      if (session.replica) continue;
      for (const subscribed of session.subscriptions) {
        // The updated URI may be a sub-resource of the subscribed one
        // (MCP 2025-11-25, Server Features / Resources §Subscriptions).
        if (coversUri(subscribed, uri)) {
          sends.push(session.notify(Method.ResourcesUpdated, { uri }).catch(() => undefined));
          break;
        }
      }
    }
    await Promise.all(sends);
  }

  /**
   * Tells every session that the list of resources changed (`notifications/resources/list_changed`),
   * e.g. when a `@ResourceList` would now enumerate different resources.
   */
  resourceListChanged(): void {
    this.listChanged(Method.ResourcesListChanged, this.capabilities.resources !== undefined);
  }

  /** @internal Remembers which session started a URL elicitation. */
  rememberElicitation(elicitationId: string, session: ServerSession): void {
    this.elicitations.set(elicitationId, session);
  }

  /**
   * Tells the client that started URL elicitation `elicitationId` that it is complete
   * (`notifications/elicitation/complete`). Returns false when no open session started it.
   */
  async completeElicitation(elicitationId: string): Promise<boolean> {
    const session = this.elicitations.get(elicitationId);
    if (!session) return false;
    this.elicitations.delete(elicitationId);
    await session.notify(Method.ElicitationComplete, { elicitationId });
    return true;
  }

  /** Subscribes to `notifications/roots/list_changed` from any session. */
  onRootsListChanged(listener: (session: SessionInfo) => void): () => void {
    this.rootsListeners.add(listener);
    return () => this.rootsListeners.delete(listener);
  }

  /** @internal */
  rootsChanged(session: ServerSession): void {
    for (const listener of this.rootsListeners) {
      try {
        listener(session);
      } catch (error) {
        this.logger.error('A roots listener failed:', error);
      }
    }
  }

  /**
   * Ends the stateless-era listen streams (of one connection, when given) with their final
   * result (`resultType: "complete"`), and waits until those results reach the transports.
   */
  async endSubscriptions(connection?: object): Promise<void> {
    if (connection === undefined ? this.hub.size === 0 : this.hub.countOn(connection) === 0) return;
    this.hub.endAll(connection);
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Closes every session. */
  async close(): Promise<void> {
    await this.endSubscriptions();
    await this.tasks?.close();
    await Promise.all([...this.sessions].map((session) => session.close()));
  }

  /** Changes in one tick are sent once per kind, to sessions whose capability was declared. */
  private listChanged(method: string, declared: boolean): void {
    if (!declared) return;
    if (this.pendingListChanges.size === 0) {
      queueMicrotask(() => {
        const methods = [...this.pendingListChanges];
        this.pendingListChanges.clear();
        this.listChangedHere(methods);
        void this.fanOut?.listChanged(methods);
      });
    }
    this.pendingListChanges.add(method);
  }

  /**
   * Sends list changes to this node's own connections and listen streams (another node announced
   * them, or they happened here). Clustered sessions get them through the cluster's streams.
   */
  listChangedHere(methods: readonly string[]): void {
    for (const session of this.sessions) {
      if (session.replica) continue;
      for (const m of methods)
        session.notify(m).catch((error) => this.logger.debug('list_changed not sent:', error));
    }
    for (const m of methods) this.hub.listChanged(m);
  }
}

/**
 * Behind a load balancer, an `input_required` retry may reach any node, which must verify the
 * `requestState` another signed: several nodes need one key, so a cluster without one is refused.
 */
function clusterStatelessOptions(options: GantryServerOptions): GantryServerOptions['stateless'] {
  const cluster = options.cluster;
  if (!cluster) return options.stateless;
  const key = options.stateless?.requestStateKey ?? cluster.requestStateKey ?? process.env.GANTRY_STATE_KEY;
  if (key === undefined || key === '') {
    throw new GantryError(
      LocalErrorCode.Bootstrap,
      'A cluster needs one requestState key shared by every node: set GANTRY_STATE_KEY, or pass ' +
        'stateless.requestStateKey (or requestStateKey to the cluster), at least 32 bytes',
    );
  }
  return { ...options.stateless, requestStateKey: key };
}

/** Every method MCP itself defines, in either era: an extension may add none of them. */
const CORE_METHODS: ReadonlySet<string> = new Set<string>([
  ...Object.values(Method),
  ...Object.values(StatelessMethod),
]);

/**
 * Advertises each extension in `capabilities.extensions` and adds its methods to `shared`
 * (served in both eras); returns the method names added.
 */
function addExtensions(
  extensions: readonly ExtensionDefinition[],
  capabilities: ServerCapabilities,
  shared: Map<string, MethodHandler>,
): string[] {
  if (extensions.length === 0) return [];
  capabilities.extensions = Object.fromEntries(
    extensions.map((extension) => [extension.id, extension.settings]),
  );
  const added: string[] = [];
  for (const extension of extensions) {
    for (const [method, handler] of extension.methods) {
      if (CORE_METHODS.has(method) || shared.has(method)) {
        throw new GantryError(
          LocalErrorCode.DuplicateName,
          `${extension.owner} (extension ${extension.id}) cannot serve ${method}: MCP itself defines that method`,
        );
      }
      shared.set(method, async (params, inbound, session) => {
        const ctx = new McpContext(inbound, session);
        try {
          return (await handler(params, ctx)) as Result;
        } catch (error) {
          // Before 2026-07-28 no code means "missing client capability": the request is invalid.
          if (error instanceof CapabilityMissingError && ctx.era === 'session') {
            throw new InvalidParamsError(`Invalid params: ${error.message}`);
          }
          throw error;
        }
      });
      added.push(method);
    }
  }
  return added;
}
