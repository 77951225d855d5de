import { RESOURCE_LISTS_METADATA } from '../metadata/keys';
import { decoratorError, memberName } from './decorator-error';

/** What `@ResourceList` records. */
export interface ResourceListDescriptor {
  readonly propertyKey: string;
  /** The template it enumerates; undefined means the class's only template. */
  readonly uriTemplate?: string;
}

/**
 * Enumerates the concrete resources of a URI template for `resources/list`. The method returns
 * objects with at least `uri` (and optionally `name`, `title`, `description`, `mimeType`,
 * `size`); missing names default to the URI.
 *
 * @example
 * ```ts
 * @ResourceList('notes://{id}')
 * async allNotes() { return (await this.notes.all()).map((n) => ({ uri: `notes://${n.id}`, name: n.title })); }
 * ```
 */
export function ResourceList(uriTemplate?: string): MethodDecorator {
  if (uriTemplate !== undefined && typeof uriTemplate !== 'string') {
    throw decoratorError(
      "@ResourceList() takes the URI template it enumerates, e.g. @ResourceList('notes://{id}')",
    );
  }
  return (target, propertyKey, descriptor) => {
    const where = memberName(target, propertyKey);
    if (
      typeof target === 'function' ||
      typeof propertyKey !== 'string' ||
      typeof descriptor?.value !== 'function'
    ) {
      throw decoratorError(`@ResourceList() on ${where}: it decorates instance methods`);
    }
    const existing: ResourceListDescriptor[] = Reflect.getOwnMetadata(RESOURCE_LISTS_METADATA, target) ?? [];
    Reflect.defineMetadata(
      RESOURCE_LISTS_METADATA,
      [...existing, Object.freeze({ propertyKey, uriTemplate })],
      target,
    );
  };
}
