import { isDynamicModule, type ModuleMetadata } from '../di/tokens';
import { recordDeclaredProvider } from '../metadata/handler-classes';
import { MODULE_METADATA } from '../metadata/keys';
import { decoratorError } from './decorator-error';

const MODULE_KEYS = new Set(['imports', 'providers', 'exports']);

/**
 * Declares a module: the providers it owns, the modules it imports, and what it exports to
 * its importers (NestJS semantics).
 *
 * @example
 * ```ts
 * @Module({ imports: [StorageModule], providers: [NotesTools] })
 * export class AppModule {}
 * ```
 */
export function Module(metadata: ModuleMetadata = {}): ClassDecorator {
  if (typeof metadata !== 'object' || metadata === null) {
    throw decoratorError('@Module() takes an object such as { imports: [], providers: [], exports: [] }');
  }
  for (const key of Object.keys(metadata)) {
    if (!MODULE_KEYS.has(key)) {
      throw decoratorError(`@Module(): unknown key '${key}'; the keys are imports, providers and exports`);
    }
  }
  return (target) => {
    for (const key of MODULE_KEYS) {
      const list = (metadata as Record<string, unknown>)[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        throw decoratorError(`@Module() on ${target.name}: '${key}' must be an array`);
      }
      list.forEach((entry, index) => {
        if (entry === undefined || entry === null) {
          throw decoratorError(
            `@Module() on ${target.name}: ${key}[${index}] is ${entry}. This usually means a circular file import: ` +
              'the referenced class was not defined yet when the module file ran. Move the class or break the import cycle.',
          );
        }
        if (key === 'imports' && typeof entry !== 'function' && !isDynamicModule(entry)) {
          throw decoratorError(
            `@Module() on ${target.name}: imports[${index}] must be a module class or a dynamic module ({ module, ... })`,
          );
        }
      });
    }
    recordProviders(metadata.providers);
    for (const entry of metadata.imports ?? []) {
      if (isDynamicModule(entry)) recordProviders(entry.providers);
    }
    Reflect.defineMetadata(MODULE_METADATA, metadata, target);
  };
}

/** Tells the bootstrap check for unprovided handler classes which classes a module provides. */
function recordProviders(providers: readonly unknown[] | undefined): void {
  for (const provider of providers ?? []) {
    if (typeof provider === 'function') {
      recordDeclaredProvider(provider);
      continue;
    }
    if (typeof provider !== 'object' || provider === null) continue;
    const { provide, useClass, useValue } = provider as {
      provide?: unknown;
      useClass?: unknown;
      useValue?: unknown;
    };
    if (typeof provide === 'function') recordDeclaredProvider(provide);
    if (typeof useClass === 'function') recordDeclaredProvider(useClass);
    // An object made by Object.create(null) has no constructor to record.
    if (typeof useValue === 'object' && useValue !== null && typeof useValue.constructor === 'function')
      recordDeclaredProvider(useValue.constructor);
  }
}
