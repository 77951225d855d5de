import type { Transport } from '@gantry/protocol';
import type { ClusterMessage } from '../cluster/cluster';
import type { ContextResources, SessionInfo } from '../context/mcp-context';
import type { Container } from '../di/container';
import type { InjectionToken } from '../di/tokens';
import type { CanActivate, EnhancerRef, ExceptionFilter, Interceptor } from '../execution/enhancers';
import type { Logger } from '../logger';
import type { GlobalEnhancers } from '../registry/compiled-handler';
import type { Registry } from '../registry/registry';
import { bindFilter } from '../registry/scan-target';
import type { ConnectOptions, GantryServer } from '../server/gantry-server';
import type { ServerSession } from '../server/server-session';
import { CONNECTION_HOST, type ConnectionHost } from '../transports/connection-host';
import type { McpListener } from '../transports/listener';
import { type InjectInput, type InjectOptions, type InjectResult, inject } from './inject';

/**
 * A bootstrapped application: the DI container, the registry and the protocol engine.
 * `listen()` serves it; `close()` shuts it down gracefully.
 */
export class GantryApplication {
  private readonly listeners: McpListener[] = [];
  private readonly closeHooks = new Set<() => void | Promise<void>>();
  private closing?: Promise<void>;
  private readonly clusterListeners = new Set<(message: ClusterMessage) => void>();
  /** @internal What transports get: `connectionHostOf(app)`. */
  readonly [CONNECTION_HOST]: ConnectionHost;

  /** @internal Use `GantryFactory.create`. */
  constructor(
    private readonly container: Container,
    /** The protocol engine (sessions, method table). */
    readonly server: GantryServer,
    private readonly globals: GlobalEnhancers,
    readonly logger: Logger,
  ) {
    this[CONNECTION_HOST] = {
      logger,
      connect: (transport, options) => this.connect(transport, options),
      exchange: (request, exchange) => server.exchange(request, exchange),
      endSubscriptions: (connection) => server.endSubscriptions(connection),
      onClose: (hook) => {
        this.closeHooks.add(hook);
        return () => this.closeHooks.delete(hook);
      },
      servesNetwork: () => server.stateless.warnIfKeyIsEphemeral(),
      findTool: (name) => server.registry.tools.get(name),
      telemetry: server.telemetry,
      close: () => this.close(),
      cluster: server.cluster && {
        link: server.cluster,
        onMessage: (listener) => {
          this.clusterListeners.add(listener);
          return () => this.clusterListeners.delete(listener);
        },
      },
    };
  }

  /** @internal Starts the cluster link (GantryFactory.create does, at bootstrap). */
  async startCluster(): Promise<void> {
    const link = this.server.cluster;
    if (!link) return;
    await link.start({
      receive: (message) => {
        // Another node's change, for this node's own connections and listen streams.
        if (message.kind === 'list-changed') this.server.listChangedHere(message.methods);
        else if (message.kind === 'resource-updated') void this.server.resourceUpdatedHere(message.uri);
        for (const listener of this.clusterListeners) {
          try {
            listener(message);
          } catch (error) {
            this.logger.error('A cluster message could not be handled:', error);
          }
        }
      },
      availability: (available) => {
        if (available) this.logger.info('The cluster backend is reachable again');
        else
          this.logger.warn(
            'The cluster backend is unreachable: session-era requests are refused until it returns',
          );
      },
    });
  }

  /** Tools, resources and prompts served by this app; changeable while serving. */
  get registry(): Registry {
    return this.server.registry;
  }

  /**
   * Resource notifications: `app.resources.updated(uri)` tells subscribed sessions;
   * `app.resources.listChanged()` tells every session the resource list changed.
   */
  get resources(): ContextResources {
    return {
      updated: (uri) => this.server.resourceUpdated(uri),
      listChanged: () => this.server.resourceListChanged(),
    };
  }

  /** The provider registered under `token`. */
  get<T>(token: InjectionToken<T>): T {
    return this.container.get(token);
  }

  /** Guards for every handler, before class and method guards. Classes are built by the container. */
  useGlobalGuards(...guards: EnhancerRef<CanActivate>[]): this {
    this.globals.add(
      'guards',
      guards.map((g) => this.container.resolveEnhancer(g)),
    );
    return this;
  }

  /** Interceptors around every handler, outside class and method interceptors. */
  useGlobalInterceptors(...interceptors: EnhancerRef<Interceptor>[]): this {
    this.globals.add(
      'interceptors',
      interceptors.map((i) => this.container.resolveEnhancer(i)),
    );
    return this;
  }

  /** Exception filters for every handler, tried after class and method filters. */
  useGlobalFilters(...filters: EnhancerRef<ExceptionFilter>[]): this {
    this.globals.add(
      'filters',
      filters.map((f) => bindFilter(this.container.resolveEnhancer(f))),
    );
    return this;
  }

  /**
   * Tells the client that started URL elicitation `elicitationId` (with `ctx.elicitUrl`) that
   * the out-of-band flow is complete. Returns false when that session is gone.
   */
  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.server.completeElicitation(elicitationId);
  }

  /** Observes `notifications/roots/list_changed` (the session's roots cache is already cleared). */
  onRootsListChanged(listener: (session: SessionInfo) => void): () => void {
    return this.server.onRootsListChanged(listener);
  }

  /** Starts accepting connections through a listener, e.g. `app.listen(stdio())`. */
  async listen(listener: McpListener): Promise<void> {
    if (this.closing) throw new Error('The application is closed; create a new one to listen again');
    await listener.listen(this[CONNECTION_HOST]);
    this.listeners.push(listener);
  }

  /** Serves one connection on a transport (in-memory pairs, custom transports). */
  connect(transport: Transport, options?: ConnectOptions): Promise<ServerSession> {
    if (this.closing) return Promise.reject(new Error('The application is closed'));
    return this.server.connect(transport, options);
  }

  /**
   * Serves JSON-RPC messages in-process on a fresh connection and resolves with the responses
   * to its requests (in order) once all arrived, plus `notifications`, `requests` and `messages`
   * the server sent meanwhile; then closes that connection. For tests:
   * `const [res] = await app.inject({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { initialize: true })`.
   */
  inject(input: InjectInput, options?: InjectOptions): Promise<InjectResult> {
    return inject(this[CONNECTION_HOST], input, options);
  }

  /**
   * Closes the app gracefully when the process receives one of `signals` (default SIGTERM and
   * SIGINT): listen streams get their final result, in-flight calls are cancelled, shutdown
   * hooks run, and then the process ends with that signal as it would have without a handler.
   */
  enableShutdownHooks(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): this {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const s of signals) process.off(s, onSignal);
      this.close(signal)
        .catch((error) => this.logger.error('Error while shutting down:', error))
        .finally(() => process.kill(process.pid, signal));
    };
    for (const signal of signals) process.once(signal, onSignal);
    return this;
  }

  /**
   * Graceful shutdown: stops the listeners, closes every connection (in-flight calls are
   * cancelled through their `AbortSignal`), then runs `onModuleDestroy` and
   * `onApplicationShutdown` hooks. Calling it again returns the same promise.
   */
  close(signal?: string): Promise<void> {
    this.closing ??= this.shutdown(signal);
    return this.closing;
  }

  private async shutdown(signal?: string): Promise<void> {
    // Listen streams end with their final result while the transports can still carry it.
    await this.server.endSubscriptions();
    await Promise.all([...this.closeHooks].map((hook) => hook()));
    await Promise.all(this.listeners.map((listener) => listener.close()));
    await this.server.close();
    await this.server.cluster?.close();
    await this.container.callHook('onModuleDestroy', { reverse: true });
    await this.container.callHook('onApplicationShutdown', { reverse: true, argument: signal });
  }
}
