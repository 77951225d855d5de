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
import type { Readiness, ReadinessCheck } from '../transports/health';
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
  private bootstrapped = false;
  private drainStarted = false;
  /** Set when the host closes with `drain: false`: no one is left to answer. */
  private drainSkipped = false;
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
      close: (options) => {
        if (options?.drain === false) this.drainSkipped = true;
        return this.close();
      },
      readiness: () => this.readiness(),
      get refusal() {
        return server.refusal;
      },
      inflightProblem: (auth, connection, count) => server.caps?.problem(auth, connection, count),
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

  /** @internal GantryFactory.create calls it once `onApplicationBootstrap` ran. */
  markBootstrapped(): void {
    this.bootstrapped = true;
  }

  /** True once the application started draining (`close()` or a shutdown signal). */
  get draining(): boolean {
    return this.drainStarted;
  }

  /**
   * Whether the application should get new work, check by check (what `GET /readyz` reports):
   * `bootstrapped`; the cluster backend reachable, when there is a cluster (named by its
   * `backend`, e.g. `redis`); `draining` (fails from the moment the app starts closing).
   */
  readiness(): Readiness {
    const checks: Record<string, ReadinessCheck> = {
      bootstrapped: this.bootstrapped ? OK : { ok: false, error: 'the application is still starting' },
    };
    const link = this.server.cluster;
    if (link) {
      checks[link.backend ?? 'cluster'] = link.available
        ? OK
        : { ok: false, error: 'the cluster backend is unreachable' };
    }
    checks.draining = this.drainStarted ? { ok: false, error: 'the application is shutting down' } : OK;
    return { ready: Object.values(checks).every((check) => check.ok), checks };
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
   * Closes the app gracefully (see `close()`) when the process receives one of `signals`
   * (default SIGTERM and SIGINT), and then ends the process with that signal as it would have
   * without a handler. The drain follows `drainDelayMs` and `shutdownGraceMs` of
   * `GantryFactory.create`.
   *
   * @example
   * ```ts
   * const app = await GantryFactory.create(AppModule, { name, version, shutdownGraceMs: 20_000 });
   * app.enableShutdownHooks();
   * await app.listen(http({ host: '0.0.0.0', port: 3000 }));   // GET /readyz turns 503 on SIGTERM
   * ```
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
   * Graceful shutdown, a drain in steps: readiness fails at once (`GET /readyz` 503); after
   * `drainDelayMs` network transports refuse new sessions, connections and stateless requests
   * with 503 + `Retry-After` (requests on open sessions are still served); listen streams end
   * with their final result; in-flight requests get up to `shutdownGraceMs` to finish, and their
   * responses are delivered. Then the listeners stop, every connection closes (what still runs
   * is cancelled through its `AbortSignal`), and `onModuleDestroy` and `onApplicationShutdown`
   * hooks run. Calling it again returns the same promise.
   */
  close(signal?: string): Promise<void> {
    this.closing ??= this.shutdown(signal);
    return this.closing;
  }

  private async shutdown(signal?: string): Promise<void> {
    await this.drain();
    // Listen streams end with their final result while the transports can still carry it.
    await this.server.endSubscriptions();
    await Promise.all([...this.closeHooks].map((hook) => hook()));
    await Promise.all(this.listeners.map((listener) => listener.close()));
    await this.server.close();
    await this.server.cluster?.close();
    await this.container.callHook('onModuleDestroy', { reverse: true });
    await this.container.callHook('onApplicationShutdown', { reverse: true, argument: signal });
  }

  /** Readiness fails, new work is refused after the delay, in-flight work gets the grace. */
  private async drain(): Promise<void> {
    const { delayMs, graceMs } = this.server.drainTimes;
    this.drainStarted = true;
    const refusal = 'the server is shutting down; retry, another instance will answer';
    if (this.drainSkipped) {
      this.server.refusal = refusal;
      return;
    }
    if (delayMs > 0) await delay(delayMs);
    this.server.refusal = refusal;
    await this.server.endSubscriptions();
    const inflight = this.server.inflight;
    if (inflight.size === 0 || graceMs === 0) return;
    this.logger.info(`Draining: waiting up to ${graceMs} ms for ${inflight.size} in-flight request(s)`);
    let timer: NodeJS.Timeout | undefined;
    const expired = await Promise.race([
      inflight.settled().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (expired) {
      this.logger.warn(
        `The shutdown grace ended with ${inflight.size} request(s) running: they are cancelled`,
      );
    }
    // The last responses reach their transports (the Peer sends them after the handler settles).
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const OK: ReadinessCheck = { ok: true };

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
