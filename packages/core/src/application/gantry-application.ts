import type { Transport } from '@gantry/protocol';
import type { Container } from '../di/container';
import type { InjectionToken } from '../di/tokens';
import type { Logger } from '../logger';
import type { Registry } from '../registry/registry';
import type { GantryServer } from '../server/gantry-server';
import type { ServerSession } from '../server/server-session';
import type { ListenHost, McpListener } from '../transports/listener';

/**
 * A bootstrapped application: the DI container, the registry and the protocol engine.
 * `listen()` serves it; `close()` shuts it down gracefully.
 */
export class GantryApplication {
  private readonly listeners: McpListener[] = [];
  private closing?: Promise<void>;

  /** @internal Use `GantryFactory.create`. */
  constructor(
    private readonly container: Container,
    /** The protocol engine (sessions, method table). */
    readonly server: GantryServer,
    readonly logger: Logger,
  ) {}

  /** Tools (and later resources and prompts) served by this app; changeable while serving. */
  get registry(): Registry {
    return this.server.registry;
  }

  /** The provider registered under `token`. */
  get<T>(token: InjectionToken<T>): T {
    return this.container.get(token);
  }

  /**
   * Starts accepting connections through a listener, e.g. `app.listen(stdio())`.
   */
  async listen(listener: McpListener): Promise<void> {
    if (this.closing) throw new Error('The application is closed; create a new one to listen again');
    const host: ListenHost = { server: this.server, logger: this.logger, close: () => this.close() };
    await listener.listen(host);
    this.listeners.push(listener);
  }

  /** Serves one connection on a transport (in-memory pairs, custom transports). */
  connect(transport: Transport): Promise<ServerSession> {
    if (this.closing) return Promise.reject(new Error('The application is closed'));
    return this.server.connect(transport);
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
    await Promise.all(this.listeners.map((listener) => listener.close()));
    await this.server.close();
    await this.container.callHook('onModuleDestroy', { reverse: true });
    await this.container.callHook('onApplicationShutdown', { reverse: true, argument: signal });
  }
}
