import { CATCH_METADATA } from '../metadata/keys';
import { decoratorError } from './decorator-error';

/**
 * Limits an exception filter to errors of the given classes (and their subclasses). A filter
 * without `@Catch()` handles every error.
 *
 * @example
 * ```ts
 * @Catch(NoteNotFound)
 * class NoteNotFoundFilter implements ExceptionFilter<NoteNotFound> { catch(e) { return `No note ${e.id}`; } }
 * ```
 */
export function Catch(...types: Function[]): ClassDecorator {
  types.forEach((type, index) => {
    if (typeof type !== 'function') {
      throw decoratorError(`@Catch(): argument #${index} must be an error class`);
    }
  });
  return (target) => {
    Reflect.defineMetadata(CATCH_METADATA, types, target);
  };
}
