import { decoratorError, memberName } from './decorator-error';

/**
 * Records enhancers on a class (for every handler it declares) or on one method. Entries are
 * checked when the class is defined: each must be a class or an object with `method`.
 */
export function enhancerDecorator(
  decorator: string,
  key: symbol,
  method: string,
  entries: readonly unknown[],
): ClassDecorator & MethodDecorator {
  if (entries.length === 0)
    throw decoratorError(`${decorator} needs at least one ${method.replace('can', '')} class or instance`);
  entries.forEach((entry, index) => {
    const ok =
      typeof entry === 'function' ||
      (typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as Record<string, unknown>)[method] === 'function');
    if (!ok) {
      throw decoratorError(
        `${decorator}: argument #${index} is ${entry === undefined ? 'undefined (a circular file import?)' : 'neither a class nor an object'} ` +
          `with a ${method}() method`,
      );
    }
  });
  return ((target: object, propertyKey?: string | symbol) => {
    if (propertyKey === undefined) {
      const existing: unknown[] = Reflect.getOwnMetadata(key, target) ?? [];
      Reflect.defineMetadata(key, [...existing, ...entries], target);
      return;
    }
    if (typeof target === 'function') {
      throw decoratorError(
        `${decorator} on ${memberName(target, propertyKey)}: handlers are instance methods, not static ones`,
      );
    }
    const existing: unknown[] = Reflect.getOwnMetadata(key, target, propertyKey) ?? [];
    Reflect.defineMetadata(key, [...existing, ...entries], target, propertyKey);
  }) as ClassDecorator & MethodDecorator;
}

/** The enhancers recorded on a class and on one of its methods: class ones first. */
export function enhancersOf(key: symbol, cls: Function, propertyKey: string): unknown[] {
  const onClass: unknown[] = Reflect.getMetadata(key, cls) ?? [];
  const onMethod: unknown[] = Reflect.getMetadata(key, cls.prototype, propertyKey) ?? [];
  return [...onClass, ...onMethod];
}
