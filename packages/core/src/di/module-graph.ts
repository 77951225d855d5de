import { MODULE_METADATA } from '../metadata/keys';
import { bootstrapError } from './errors';
import {
  type DynamicModule,
  type InjectionToken,
  isDynamicModule,
  type ModuleExport,
  type ModuleImport,
  type ModuleMetadata,
  type Provider,
  type Type,
  tokenName,
} from './tokens';

/** A provider after normalization: what to build, and how. */
export type ProviderRecipe =
  | { readonly kind: 'class'; readonly useClass: Type }
  | { readonly kind: 'value'; readonly value: unknown }
  | {
      readonly kind: 'factory';
      readonly factory: (...deps: any[]) => unknown;
      readonly inject: readonly InjectionToken[];
    }
  | { readonly kind: 'existing'; readonly token: InjectionToken };

/** One provider in one module; built at most once (singleton scope). */
export interface ProviderRecord {
  readonly token: InjectionToken;
  readonly recipe: ProviderRecipe;
  readonly host: ModuleNode;
  instance?: unknown;
  building?: Promise<unknown>;
  built: boolean;
}

/** One module of the application graph. */
export class ModuleNode {
  readonly providers = new Map<InjectionToken, ProviderRecord>();
  readonly imports: ModuleNode[] = [];
  readonly exportedTokens = new Set<InjectionToken>();
  readonly exportedModules: ModuleNode[] = [];

  constructor(
    readonly metatype: Type,
    readonly key: unknown,
  ) {}

  get name(): string {
    return this.metatype.name;
  }
}

export function normalizeProvider(
  provider: Provider,
  where: string,
  index: number,
): [InjectionToken, ProviderRecipe] {
  if (typeof provider === 'function') return [provider, { kind: 'class', useClass: provider }];
  if (typeof provider !== 'object' || provider === null || !('provide' in provider)) {
    throw bootstrapError(
      `${where}: providers[${index}] is not a provider. Use a class, or an object { provide, useValue | useClass | useFactory | useExisting }`,
    );
  }
  const token = provider.provide;
  if ('useValue' in provider) return [token, { kind: 'value', value: provider.useValue }];
  if ('useClass' in provider) {
    if (typeof provider.useClass !== 'function') {
      throw bootstrapError(
        `${where}: the provider of ${tokenName(token)} has a useClass that is not a class`,
      );
    }
    return [token, { kind: 'class', useClass: provider.useClass }];
  }
  if ('useFactory' in provider) {
    if (typeof provider.useFactory !== 'function') {
      throw bootstrapError(
        `${where}: the provider of ${tokenName(token)} has a useFactory that is not a function`,
      );
    }
    const inject = provider.inject ?? [];
    inject.forEach((dep, i) => {
      if (dep === undefined || dep === null) {
        throw bootstrapError(
          `${where}: the factory of ${tokenName(token)} has inject[${i}] = ${dep} (a circular file import?)`,
        );
      }
    });
    return [token, { kind: 'factory', factory: provider.useFactory, inject }];
  }
  if ('useExisting' in provider) return [token, { kind: 'existing', token: provider.useExisting }];
  throw bootstrapError(
    `${where}: the provider of ${tokenName(token)} needs one of useValue, useClass, useFactory or useExisting`,
  );
}

/**
 * Builds the module graph from the root, depth first. A module class imported in several places
 * is one node; each dynamic module object is its own node.
 */
export class ModuleGraph {
  readonly nodes: ModuleNode[] = [];
  private readonly byKey = new Map<unknown, ModuleNode>();

  constructor(private readonly overrides: ReadonlyMap<InjectionToken, Provider>) {}

  build(root: ModuleImport): ModuleNode {
    const node = this.visit(root, []);
    for (const each of this.nodes) this.checkExports(each);
    return node;
  }

  private visit(entry: ModuleImport, path: string[]): ModuleNode {
    const dynamic: DynamicModule | undefined = isDynamicModule(entry) ? entry : undefined;
    const metatype = dynamic ? dynamic.module : (entry as Type);
    const key = dynamic ?? metatype;
    const existing = this.byKey.get(key);
    if (existing) return existing;

    const declared: ModuleMetadata | undefined =
      typeof metatype === 'function' ? Reflect.getOwnMetadata(MODULE_METADATA, metatype) : undefined;
    if (!declared) {
      const name = typeof metatype === 'function' ? metatype.name : String(metatype);
      const via = path.length ? ` (imported by ${path.join(' → ')})` : '';
      throw bootstrapError(`${name} is not a module${via}: add @Module({ ... }) to the class`);
    }
    const node = new ModuleNode(metatype, key);
    this.byKey.set(key, node);

    const where = `Module ${metatype.name}`;
    const providers = [...(declared.providers ?? []), ...(dynamic?.providers ?? [])];
    providers.forEach((provider, index) => {
      let [token, recipe] = normalizeProvider(provider, where, index);
      const override = this.overrides.get(token);
      if (override) [, recipe] = normalizeProvider(override, `The override of ${tokenName(token)}`, 0);
      node.providers.set(token, { token, recipe, host: node, built: false });
    });

    const imports = [...(declared.imports ?? []), ...(dynamic?.imports ?? [])];
    imports.forEach((imported, index) => {
      if (imported === undefined || imported === null) {
        throw bootstrapError(`${where}: imports[${index}] is ${imported} (a circular file import?)`);
      }
      node.imports.push(this.visit(imported, [...path, metatype.name]));
    });
    this.nodes.push(node);

    const exports: ModuleExport[] = [...(declared.exports ?? []), ...(dynamic?.exports ?? [])];
    for (const exported of exports) {
      const asModule = isDynamicModule(exported)
        ? this.byKey.get(exported)
        : typeof exported === 'function' && Reflect.getOwnMetadata(MODULE_METADATA, exported)
          ? this.byKey.get(exported)
          : undefined;
      if (asModule) node.exportedModules.push(asModule);
      else if (isDynamicModule(exported)) {
        throw bootstrapError(
          `${where} exports a dynamic module of ${exported.module.name} that it does not import`,
        );
      } else if (typeof exported === 'function' && Reflect.getOwnMetadata(MODULE_METADATA, exported)) {
        throw bootstrapError(
          `${where} exports the module ${exported.name} but does not import it; add it to imports`,
        );
      } else node.exportedTokens.add(exported as InjectionToken);
    }
    return node;
  }

  private checkExports(node: ModuleNode): void {
    for (const token of node.exportedTokens) {
      if (node.providers.has(token)) continue;
      if (node.imports.some((imported) => exportedRecord(imported, token))) continue;
      throw bootstrapError(
        `Module ${node.name} exports ${tokenName(token)}, but neither provides it nor imports a module that exports it. ` +
          `Add ${tokenName(token)} to the providers of ${node.name}, or remove it from its exports.`,
      );
    }
  }
}

/** The record `node` makes available to its importers under `token`, if any. */
export function exportedRecord(
  node: ModuleNode,
  token: InjectionToken,
  seen = new Set<ModuleNode>(),
): ProviderRecord | undefined {
  if (seen.has(node)) return undefined;
  seen.add(node);
  if (node.exportedTokens.has(token)) {
    const own = node.providers.get(token);
    if (own) return own;
    for (const imported of node.imports) {
      const found = exportedRecord(imported, token, seen);
      if (found) return found;
    }
  }
  for (const reexported of node.exportedModules) {
    const found = exportedRecord(reexported, token, seen);
    if (found) return found;
  }
  return undefined;
}
