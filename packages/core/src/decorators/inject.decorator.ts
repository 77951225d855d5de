import type { InjectionToken } from '../di/tokens';
import { INJECT_METADATA } from '../metadata/keys';
import { decoratorError, memberName } from './decorator-error';

/**
 * Names the token to inject into a constructor parameter. Needed for string/symbol tokens and
 * interfaces, and whenever the code is compiled without decorator metadata (esbuild, tsx).
 *
 * @example
 * ```ts
 * constructor(@Inject(NOTES_DIR) private readonly dir: string) {}
 * ```
 */
export function Inject(token: InjectionToken): ParameterDecorator {
  if (token === undefined || token === null) {
    throw decoratorError(
      '@Inject() needs a token (a class, string or symbol). An undefined class here usually means a circular file import.',
    );
  }
  return (target, propertyKey, index) => {
    if (propertyKey !== undefined) {
      throw decoratorError(
        `@Inject() on ${memberName(target, propertyKey)}: only constructor parameters can be injected`,
      );
    }
    const existing: Map<number, InjectionToken> =
      Reflect.getOwnMetadata(INJECT_METADATA, target) ?? new Map();
    existing.set(index, token);
    Reflect.defineMetadata(INJECT_METADATA, existing, target);
  };
}
