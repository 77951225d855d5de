/** A class that can be constructed (a provider, a module, a DTO). */
export type Type<T = unknown> = new (...args: any[]) => T;

/** An abstract class, usable as a token but not constructed. */
export type AbstractType<T = unknown> = abstract new (...args: any[]) => T;

/** What a provider is registered under and injected by. */
export type InjectionToken<T = unknown> = string | symbol | Type<T> | AbstractType<T>;

export interface ValueProvider<T = unknown> {
  provide: InjectionToken<T>;
  useValue: T;
}

export interface ClassProvider<T = unknown> {
  provide: InjectionToken<T>;
  useClass: Type<T>;
}

export interface FactoryProvider<T = unknown> {
  provide: InjectionToken<T>;
  useFactory: (...deps: any[]) => T | Promise<T>;
  inject?: InjectionToken[];
}

export interface ExistingProvider<T = unknown> {
  provide: InjectionToken<T>;
  useExisting: InjectionToken<T>;
}

/** A class (registered under itself) or a custom provider. */
export type Provider<T = unknown> =
  | Type<T>
  | ValueProvider<T>
  | ClassProvider<T>
  | FactoryProvider<T>
  | ExistingProvider<T>;

/** A module configured at import time, e.g. `StorageModule.forRoot({ dir })`. */
export interface DynamicModule {
  module: Type;
  imports?: ModuleImport[];
  providers?: Provider[];
  exports?: ModuleExport[];
}

export type ModuleImport = Type | DynamicModule;
/** A token this module makes available to importers, or an imported module it re-exports. */
export type ModuleExport = InjectionToken | DynamicModule;

export interface ModuleMetadata {
  imports?: ModuleImport[];
  providers?: Provider[];
  exports?: ModuleExport[];
}

/** A readable name for a token, for error messages. */
export function tokenName(token: unknown): string {
  if (typeof token === 'function') return token.name || '<anonymous class>';
  if (typeof token === 'symbol') return token.toString();
  if (typeof token === 'string') return JSON.stringify(token);
  return String(token);
}

export function isDynamicModule(value: unknown): value is DynamicModule {
  return typeof value === 'object' && value !== null && 'module' in value;
}
