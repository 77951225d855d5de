import { COMPLETIONS_METADATA } from '../metadata/keys';
import { decoratorError, memberName } from './decorator-error';

export interface CompleteTarget {
  /** The prompt whose argument this completes (its wire name). */
  prompt?: string;
  /** The URI template whose variable this completes. */
  resource?: string;
}

export interface CompletionDescriptor {
  readonly propertyKey: string;
  readonly argument: string;
  readonly target: Readonly<CompleteTarget>;
}

/**
 * Completes one argument of a prompt or one variable of a resource template, for
 * `completion/complete`. The method receives the typed prefix and a context with the other
 * arguments already given (2025-06-18+), and returns values (at most 100 are sent) or
 * `{ values, total?, hasMore? }`. Without a target it binds to the prompt or template of the
 * same class that has that argument.
 *
 * @example
 * ```ts
 * @Complete('id')
 * completeId(prefix: string) { return this.notes.idsStartingWith(prefix); }
 * ```
 */
export function Complete(argument: string, target: CompleteTarget = {}): MethodDecorator {
  if (typeof argument !== 'string' || argument === '') {
    throw decoratorError("@Complete() needs the argument name it completes, e.g. @Complete('language')");
  }
  if (target.prompt !== undefined && target.resource !== undefined) {
    throw decoratorError(`@Complete('${argument}'): give either 'prompt' or 'resource', not both`);
  }
  return (proto, propertyKey, descriptor) => {
    const where = memberName(proto, propertyKey);
    if (
      typeof proto === 'function' ||
      typeof propertyKey !== 'string' ||
      typeof descriptor?.value !== 'function'
    ) {
      throw decoratorError(`@Complete() on ${where}: it decorates instance methods`);
    }
    const existing: CompletionDescriptor[] = Reflect.getOwnMetadata(COMPLETIONS_METADATA, proto) ?? [];
    Reflect.defineMetadata(
      COMPLETIONS_METADATA,
      [...existing, Object.freeze({ propertyKey, argument, target })],
      proto,
    );
  };
}
