import { isObject } from '@gantry/protocol';
import { withUiExtension } from '../apps/ui-extension';
import { Container } from '../di/container';
import type { InjectionToken, ModuleImport, Provider } from '../di/tokens';
import { scanExtensions } from '../extensions/extension-scanner';
import { LimitsRuntime } from '../limits/limits-runtime';
import { DefaultLogger, type Logger, silentLogger } from '../logger';
import { warnAboutUnprovidedHandlers } from '../metadata/handler-classes';
import { GlobalEnhancers } from '../registry/compiled-handler';
import { type ScanResult, scanHandlers } from '../registry/handler-scanner';
import { Registry } from '../registry/registry';
import { GantryServer } from '../server/gantry-server';
import type { GantryServerOptions } from '../server/server-options';
import { detailedSpansOf } from '../telemetry/detailed-spans';
import { GantryApplication } from './gantry-application';

/** @internal Options the testing module adds. */
export interface InternalCreateOptions {
  overrides?: ReadonlyMap<InjectionToken, Provider>;
}

/** Creates applications from a root module. */
export class GantryFactory {
  /**
   * Builds the module graph, creates every provider, scans the handlers (tools, resources,
   * prompts, completions), compiles their pipelines, runs `onModuleInit` and
   * `onApplicationBootstrap`, and returns the app. Misconfiguration (unknown providers,
   * missing metadata, duplicate names) throws here with a message that says what to change.
   *
   * @example
   * ```ts
   * const app = await GantryFactory.create(AppModule, { name: 'notes', version: '1.0.0' });
   * await app.listen(stdio());
   * ```
   */
  static async create(
    rootModule: ModuleImport,
    options: GantryServerOptions,
    internal: InternalCreateOptions = {},
  ): Promise<GantryApplication> {
    if (!options || typeof options.name !== 'string' || typeof options.version !== 'string') {
      throw new TypeError(
        'GantryFactory.create(module, options): options needs { name, version } strings (serverInfo)',
      );
    }
    const logger: Logger = options.logger === false ? silentLogger : (options.logger ?? new DefaultLogger());
    // The registry exists before any provider, so that providers can inject it and change what
    // is served at runtime; it scans through the container once that is built.
    let scanInstance: (instance: object) => ScanResult = () => {
      throw new Error('The registry cannot add handlers before the application has bootstrapped');
    };
    const registry = new Registry((instance) => scanInstance(instance));
    const container = await Container.create(rootModule, {
      overrides: internal.overrides,
      globals: new Map<InjectionToken, unknown>([[Registry, registry]]),
    });
    const globals = new GlobalEnhancers();
    globals.spans = detailedSpansOf(options.telemetry);
    globals.limits = new LimitsRuntime(options.limits, options.cluster, logger);
    const environment = { container, globals, logger };
    scanInstance = (instance) => scanHandlers([{ instance, host: container.root }], environment);
    const hosted = container.hostedInstances();
    registry.load(scanHandlers(hosted, environment));
    warnAboutUnprovidedHandlers(
      hosted.map((entry) => entry.instance),
      logger,
    );
    const extensions = withUiExtension(
      registry,
      scanExtensions(hosted.map((entry) => entry.instance).filter(isObject)),
    );
    const server = new GantryServer(registry, options, logger, extensions);
    await container.callHook('onModuleInit');
    const app = new GantryApplication(container, server, globals, logger);
    try {
      await app.startCluster();
    } catch (error) {
      // Providers were initialized: their shutdown hooks run before the error reaches the caller.
      await app.close().catch(() => undefined);
      throw error;
    }
    await container.callHook('onApplicationBootstrap');
    app.markBootstrapped();
    return app;
  }
}
