import { Client, type ClientOptions, type EraPreference } from '@gantry/client';
import {
  type GantryApplication,
  GantryFactory,
  type GantryServerOptions,
  type InjectionToken,
  Module,
  type ModuleMetadata,
  type Provider,
} from '@gantry/core';
import { InMemoryTransport } from '@gantry/protocol';

/** What a testing module is built from: the same shape as `@Module()` minus exports. */
export type TestingModuleMetadata = Pick<ModuleMetadata, 'imports' | 'providers'>;

/** Options of `compile()`: the server options of the app under test. */
export type TestingCompileOptions = Partial<GantryServerOptions>;

/** Options of `createClient()`: the client's own, plus the protocol era to connect in. */
export interface TestingClientOptions extends ClientOptions {
  /**
   * The protocol era the client speaks to the app. Default `'session'`: the session era, with
   * the `initialize` handshake, as tests written before 2026-07-28 expect. `'stateless'` tests the
   * stateless era (per-request `_meta`, `input_required` rounds answered by the client's
   * request handlers, `client.listen()`); `'auto'` probes as `client.connect` does by default.
   */
  era?: EraPreference;
}

/** A compiled testing module: the app, its providers, and clients connected in memory. */
export class TestingModule {
  private readonly clients = new Set<Client>();

  constructor(
    /** The application under test. */
    readonly app: GantryApplication,
  ) {}

  /** The provider registered under `token` (after overrides). */
  get<T>(token: InjectionToken<T>): T {
    return this.app.get(token);
  }

  /**
   * A `Client` connected to the app through an in-memory pipe: `initialize` done (or, with
   * `era: 'stateless'`, `server/discover`), ready to call tools. `options.capabilities` declares
   * client features (sampling, elicitation, roots); register their handlers with
   * `client.setRequestHandler()` — they may also be set after connecting. Closed by `close()`.
   */
  async createClient(
    clientInfo: { name: string; version: string } = { name: 'gantry-test', version: '0.0.0' },
    options: TestingClientOptions = {},
  ): Promise<Client> {
    const { era = 'session', ...clientOptions } = options;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await this.app.connect(serverSide);
    const client = new Client(clientInfo, clientOptions);
    await client.connect(clientSide, { era });
    this.clients.add(client);
    return client;
  }

  /** Closes the clients and the app (shutdown hooks run). */
  async close(): Promise<void> {
    await Promise.all([...this.clients].map((client) => client.close()));
    this.clients.clear();
    await this.app.close();
  }
}

/** Builds a testing module; `overrideProvider` swaps a provider before anything is created. */
export class TestingModuleBuilder {
  private readonly overrides = new Map<InjectionToken, Provider>();

  constructor(private readonly metadata: TestingModuleMetadata) {}

  /** Replaces the provider registered under `token`, wherever it is declared. */
  overrideProvider<T>(token: InjectionToken<T>): OverrideBy<T> {
    return new OverrideBy(this, token, (provider) => this.overrides.set(token, provider));
  }

  /** Creates the app: providers, hooks, tool scan — as `GantryFactory.create` does. */
  async compile(options: TestingCompileOptions = {}): Promise<TestingModule> {
    @Module({ imports: this.metadata.imports ?? [], providers: this.metadata.providers ?? [] })
    class RootTestingModule {}
    const app = await GantryFactory.create(
      RootTestingModule,
      { name: 'gantry-testing', version: '0.0.0', logger: false, ...options },
      { overrides: this.overrides },
    );
    return new TestingModule(app);
  }
}

/** The second half of `overrideProvider(token).useValue(...)`. */
export class OverrideBy<T> {
  constructor(
    private readonly builder: TestingModuleBuilder,
    private readonly token: InjectionToken<T>,
    private readonly set: (provider: Provider) => void,
  ) {}

  useValue(value: T | Partial<T>): TestingModuleBuilder {
    this.set({ provide: this.token, useValue: value });
    return this.builder;
  }

  useClass(cls: new (...args: any[]) => T): TestingModuleBuilder {
    this.set({ provide: this.token, useClass: cls });
    return this.builder;
  }

  useFactory(options: {
    factory: (...deps: any[]) => T | Promise<T>;
    inject?: InjectionToken[];
  }): TestingModuleBuilder {
    this.set({ provide: this.token, useFactory: options.factory, inject: options.inject });
    return this.builder;
  }
}

/**
 * Entry point of `@gantry/testing`.
 *
 * @example
 * ```ts
 * const module = await Test.createTestingModule({ imports: [AppModule] })
 *   .overrideProvider(NotesRepository).useValue(fakeRepository)
 *   .compile();
 * const client = await module.createClient();
 * ```
 */
export const Test = {
  createTestingModule(metadata: TestingModuleMetadata = {}): TestingModuleBuilder {
    return new TestingModuleBuilder(metadata);
  },
};
