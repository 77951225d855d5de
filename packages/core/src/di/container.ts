import { DESIGN_PARAMTYPES, INJECT_METADATA } from '../metadata/keys';
import {
  bootstrapError,
  circularDependencyError,
  missingMetadataError,
  unknownProviderError,
} from './errors';
import type { LifecycleHook } from './lifecycle';
import { exportedRecord, ModuleGraph, type ModuleNode, type ProviderRecord } from './module-graph';
import { type InjectionToken, type ModuleImport, type Provider, type Type, tokenName } from './tokens';

/** Constructor parameter types that cannot be injected without `@Inject` (interfaces, primitives). */
const NOT_INJECTABLE = new Set<unknown>([
  Object,
  String,
  Number,
  Boolean,
  Array,
  Function,
  Symbol,
  BigInt,
  Promise,
]);

interface ResolutionStep {
  readonly record: ProviderRecord;
}

/**
 * The dependency-injection container: builds the module graph, creates every provider once
 * (singleton scope), and runs lifecycle hooks in module order (imports first on the way up,
 * reverse on the way down).
 */
export class Container {
  private readonly enhancers = new Map<ModuleNode, Map<Function, unknown>>();

  private constructor(
    readonly root: ModuleNode,
    readonly modules: readonly ModuleNode[],
    /** Framework providers every module can inject (e.g. the `Registry`). */
    private readonly globals: ReadonlyMap<InjectionToken, ProviderRecord>,
  ) {}

  /** Builds the graph of `rootModule` and instantiates every provider. */
  static async create(
    rootModule: ModuleImport,
    options: {
      overrides?: ReadonlyMap<InjectionToken, Provider>;
      globals?: ReadonlyMap<InjectionToken, unknown>;
    } = {},
  ): Promise<Container> {
    const graph = new ModuleGraph(options.overrides ?? new Map());
    const root = graph.build(rootModule);
    const globals = new Map<InjectionToken, ProviderRecord>();
    for (const [token, value] of options.globals ?? []) {
      globals.set(token, {
        token,
        recipe: { kind: 'value', value },
        host: root,
        built: true,
        instance: value,
      });
    }
    const container = new Container(root, graph.nodes, globals);
    for (const node of graph.nodes) {
      for (const record of node.providers.values()) await container.instantiate(record, []);
    }
    return container;
  }

  /**
   * The instance registered under `token`: first what the root module can see, then any
   * module's provider.
   */
  get<T>(token: InjectionToken<T>): T {
    const record =
      this.lookup(this.root, token) ?? this.modules.map((m) => m.providers.get(token)).find(Boolean);
    if (!record) {
      throw unknownProviderError(
        `No provider for ${tokenName(token)} in the application; add it to a module's providers`,
      );
    }
    return record.instance as T;
  }

  /** Every distinct provider instance with the module that declares it, in module order. */
  hostedInstances(): { instance: unknown; host: ModuleNode }[] {
    const seen = new Set<unknown>();
    const hosted: { instance: unknown; host: ModuleNode }[] = [];
    for (const node of this.modules) {
      for (const record of node.providers.values()) {
        if (!record.built || record.recipe.kind === 'existing' || seen.has(record.instance)) continue;
        seen.add(record.instance);
        hosted.push({ instance: record.instance, host: node });
      }
    }
    return hosted;
  }

  /**
   * An enhancer (guard, interceptor, filter) for a handler declared in `host`: an instance as
   * is; a class that `host` can see as a provider, that provider; any other class built once
   * per module with its constructor dependencies resolved in `host` (NestJS semantics).
   */
  resolveEnhancer<T>(ref: Type<T> | T, host: ModuleNode = this.root): T {
    if (typeof ref !== 'function') return ref;
    const cls = ref as Type<T>;
    const provided = this.lookup(host, cls);
    if (provided?.built) return provided.instance as T;
    let perHost = this.enhancers.get(host);
    if (!perHost) {
      perHost = new Map();
      this.enhancers.set(host, perHost);
    }
    const cached = perHost.get(cls);
    if (cached) return cached as T;
    const deps = this.constructorTokens(cls).map((token, index) => {
      const record = this.lookup(host, token);
      if (!record?.built) {
        throw unknownProviderError(
          this.explainMissing(host, token, `the enhancer ${cls.name} (constructor parameter #${index})`),
        );
      }
      return record.instance;
    });
    const instance = new cls(...deps);
    perHost.set(cls, instance);
    return instance;
  }

  /** Every distinct provider instance, in module order. */
  instances(): unknown[] {
    const seen = new Set<unknown>();
    for (const node of this.modules) {
      for (const record of node.providers.values()) {
        if (record.built && record.recipe.kind !== 'existing') seen.add(record.instance);
      }
    }
    return [...seen];
  }

  /** Calls `hook` on every instance that has it, awaiting each; `reverse` for shutdown hooks. */
  async callHook(hook: LifecycleHook, options: { reverse?: boolean; argument?: string } = {}): Promise<void> {
    const instances = this.instances();
    if (options.reverse) instances.reverse();
    for (const instance of instances) {
      const fn = (instance as Record<string, unknown> | null)?.[hook];
      if (typeof fn === 'function') await fn.call(instance, options.argument);
    }
  }

  private lookup(node: ModuleNode, token: InjectionToken): ProviderRecord | undefined {
    const own = node.providers.get(token);
    if (own) return own;
    for (const imported of node.imports) {
      const found = exportedRecord(imported, token);
      if (found) return found;
    }
    return this.globals.get(token);
  }

  private async instantiate(record: ProviderRecord, path: ResolutionStep[]): Promise<unknown> {
    if (record.built) return record.instance;
    if (path.some((step) => step.record === record)) {
      const cycle = [...path.slice(path.findIndex((step) => step.record === record)), { record }]
        .map((step) => tokenName(step.record.token))
        .join(' → ');
      throw circularDependencyError(
        `Circular dependency: ${cycle} (in module ${record.host.name}). ` +
          'Break the cycle, e.g. move the shared logic into a third provider that both depend on.',
      );
    }
    if (record.building) return record.building;
    const next = [...path, { record }];
    record.building = this.build(record, next).then((instance) => {
      record.instance = instance;
      record.built = true;
      return instance;
    });
    return record.building;
  }

  private async build(record: ProviderRecord, path: ResolutionStep[]): Promise<unknown> {
    const recipe = record.recipe;
    switch (recipe.kind) {
      case 'value':
        return recipe.value;
      case 'existing':
        return this.resolve(record, recipe.token, path, `useExisting of ${tokenName(record.token)}`);
      case 'factory': {
        const deps: unknown[] = [];
        for (const [index, token] of recipe.inject.entries()) {
          deps.push(
            await this.resolve(
              record,
              token,
              path,
              `the factory of ${tokenName(record.token)} (inject[${index}])`,
            ),
          );
        }
        try {
          return await recipe.factory(...deps);
        } catch (error) {
          throw bootstrapError(
            `The factory of ${tokenName(record.token)} in module ${record.host.name} threw: ${(error as Error).message}`,
            error,
          );
        }
      }
      case 'class': {
        const tokens = this.constructorTokens(recipe.useClass);
        const deps: unknown[] = [];
        for (const [index, token] of tokens.entries()) {
          deps.push(
            await this.resolve(
              record,
              token,
              path,
              `${recipe.useClass.name} (constructor parameter #${index})`,
            ),
          );
        }
        return new recipe.useClass(...deps);
      }
    }
  }

  private resolve(
    owner: ProviderRecord,
    token: InjectionToken,
    path: ResolutionStep[],
    what: string,
  ): Promise<unknown> {
    const found = this.lookup(owner.host, token);
    if (found) return this.instantiate(found, path);
    throw unknownProviderError(this.explainMissing(owner.host, token, what));
  }

  private explainMissing(host: ModuleNode, token: InjectionToken, what: string): string {
    const name = tokenName(token);
    const head = `Cannot resolve ${name}, needed by ${what} in module ${host.name}.`;
    const hiddenIn = host.imports.find((imported) => imported.providers.has(token));
    if (hiddenIn) {
      return `${head} ${hiddenIn.name} provides ${name} but does not export it: add ${name} to the exports of ${hiddenIn.name}.`;
    }
    const elsewhere = this.modules.find((node) => node.providers.has(token));
    if (elsewhere) {
      return `${head} It is provided by ${elsewhere.name}, which ${host.name} does not import: import ${elsewhere.name} into ${host.name} (and export ${name} from it).`;
    }
    return `${head} Add ${name} to the providers of ${host.name}, or import a module that exports it.`;
  }

  /** The tokens a class's constructor needs: `@Inject` first, else the emitted parameter types. */
  private constructorTokens(cls: Type): InjectionToken[] {
    const paramtypes: unknown[] | undefined = Reflect.getMetadata(DESIGN_PARAMTYPES, cls);
    // Inherited like the parameter types: a subclass without its own constructor keeps its parent's @Inject tokens.
    const explicit: Map<number, InjectionToken> = Reflect.getMetadata(INJECT_METADATA, cls) ?? new Map();
    const count = Math.max(paramtypes?.length ?? 0, cls.length, ...[...explicit.keys()].map((i) => i + 1));
    const tokens: InjectionToken[] = [];
    for (let index = 0; index < count; index++) {
      const token = explicit.get(index) ?? paramtypes?.[index];
      if (explicit.has(index)) {
        tokens.push(token as InjectionToken);
        continue;
      }
      if (paramtypes === undefined) {
        throw missingMetadataError(
          `Cannot inject ${cls.name}: constructor parameter #${index} has no type information (no design:paramtypes metadata). ` +
            'Either compile with decorator metadata (tsc with "emitDecoratorMetadata": true, or swc with ' +
            'jsc.transform.decoratorMetadata; esbuild and tsx do not emit it) and make sure the class has @Injectable(), ' +
            `or name each dependency explicitly with @Inject(Token) on parameter #${index}.`,
        );
      }
      if (token === undefined) {
        throw missingMetadataError(
          `Cannot inject ${cls.name}: the type of constructor parameter #${index} is undefined at runtime, ` +
            'usually a circular file import. Use @Inject(Token) on that parameter, or break the import cycle.',
        );
      }
      if (NOT_INJECTABLE.has(token)) {
        throw missingMetadataError(
          `Cannot inject ${cls.name}: constructor parameter #${index} has type ${(token as Function).name} ` +
            '(an interface, a type alias or a primitive leaves no runtime type). Use @Inject(Token) on that parameter.',
        );
      }
      tokens.push(token as InjectionToken);
    }
    return tokens;
  }
}
