import type { Logger } from '../logger';
import { INJECTABLE_METADATA } from './keys';

/**
 * Classes with `@Tool`, `@Resource` or `@Prompt` methods, and classes some module declares as a
 * provider, as the decorators ran. Decorators run when a class is defined, so by bootstrap every
 * imported handler class is known; one that no module provides serves nothing, silently, which
 * is the commonest first-hour mistake (a new tools class not added to `providers`).
 */
const handlerClasses = new Set<Function>();
const declaredProviders = new Set<Function>();
/** Classes already warned about: once per class and process, however many apps bootstrap. */
const warned = new Set<Function>();

/** Called by the handler decorators with the decorated prototype's class. */
export function recordHandlerClass(cls: Function): void {
  handlerClasses.add(cls);
}

/** Called by `@Module()` with a class its providers (or a dynamic module's) name. */
export function recordDeclaredProvider(cls: Function): void {
  declaredProviders.add(cls);
}

/** Whether `provider` is `handler` or a subclass of it (inherited handler methods count). */
function covers(provider: Function, handler: Function): boolean {
  return provider === handler || provider.prototype instanceof handler;
}

/**
 * Warns once per class about `@Injectable()` handler classes that neither this app (its built
 * provider instances) nor any module defined so far provides. Another module counts, so that a
 * process with two apps, each with its own tools, warns about neither. A plain class (without
 * `@Injectable()`) is taken for a plugin the app creates itself and hands to
 * `app.registry.add()` at runtime, so it is left alone.
 */
export function warnAboutUnprovidedHandlers(instances: readonly unknown[], logger: Logger): void {
  const provided = new Set<Function>(declaredProviders);
  for (const instance of instances) {
    if (typeof instance !== 'object' || instance === null) continue;
    // An object made by Object.create(null) has no constructor.
    if (typeof instance.constructor === 'function') provided.add(instance.constructor);
  }
  for (const handler of handlerClasses) {
    if (warned.has(handler) || Reflect.getMetadata(INJECTABLE_METADATA, handler) !== true) continue;
    if ([...provided].some((provider) => covers(provider, handler))) continue;
    warned.add(handler);
    const name = handler.name || 'an anonymous class';
    logger.warn(
      `${name} has @Tool, @Resource or @Prompt methods but is in no module's providers, so none of them is served; ` +
        `add ${name} to the providers of a module (e.g. @Module({ providers: [${name}] })).`,
    );
  }
}
