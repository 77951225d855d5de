import { GantryError, LocalErrorCode } from '@gantry/protocol';

/** A decorator used wrongly: thrown when the class is defined, with what to change. */
export function decoratorError(message: string): GantryError {
  return new GantryError(LocalErrorCode.InvalidDecorator, message);
}

/** `Class.method` for messages, from a decorator's `target` and `propertyKey`. */
export function memberName(target: object, propertyKey: string | symbol | undefined): string {
  const ctor = typeof target === 'function' ? target : target.constructor;
  const className = (ctor as Function).name || '<anonymous class>';
  return propertyKey === undefined ? className : `${className}.${String(propertyKey)}`;
}
