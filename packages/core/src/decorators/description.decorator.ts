import { DESCRIPTION_METADATA, PARAMETER_DESCRIPTIONS_METADATA } from '../schema/schema-keys';
import { decoratorError, memberName } from './decorator-error';

/** `@Description` fits a class, a property, a method or a parameter. */
export type DescriptionDecorator = ClassDecorator & PropertyDecorator & MethodDecorator & ParameterDecorator;

/**
 * Describes a DTO property (→ `description` in the JSON Schema advertised by `tools/list`),
 * a DTO class, a method or a parameter. It only records the text; readers decide its use.
 *
 * @example
 * ```ts
 * class SearchNotes {
 *   @IsString() @Description('Words to look for')
 *   query!: string;
 * }
 * ```
 */
export function Description(text: string): DescriptionDecorator {
  if (typeof text !== 'string' || text.trim() === '') {
    const got = typeof text === 'string' ? 'an empty string' : typeof text;
    throw decoratorError(
      `@Description() needs a non-empty string, e.g. @Description('Words to look for'); got ${got}`,
    );
  }
  return (target: object, propertyKey?: string | symbol, descriptorOrIndex?: PropertyDescriptor | number) => {
    if (typeof descriptorOrIndex === 'number') {
      const where = `${memberName(target, propertyKey ?? 'constructor')} parameter #${descriptorOrIndex}`;
      const existing: Map<number, string> | undefined =
        propertyKey === undefined
          ? Reflect.getOwnMetadata(PARAMETER_DESCRIPTIONS_METADATA, target)
          : Reflect.getOwnMetadata(PARAMETER_DESCRIPTIONS_METADATA, target, propertyKey);
      if (existing?.has(descriptorOrIndex)) {
        throw decoratorError(`@Description() on ${where}: it already has a description; keep one`);
      }
      const descriptions = new Map(existing).set(descriptorOrIndex, text);
      if (propertyKey === undefined)
        Reflect.defineMetadata(PARAMETER_DESCRIPTIONS_METADATA, descriptions, target);
      else Reflect.defineMetadata(PARAMETER_DESCRIPTIONS_METADATA, descriptions, target, propertyKey);
      return;
    }
    const where = memberName(target, propertyKey);
    const already =
      propertyKey === undefined
        ? Reflect.hasOwnMetadata(DESCRIPTION_METADATA, target)
        : Reflect.hasOwnMetadata(DESCRIPTION_METADATA, target, propertyKey);
    if (already) throw decoratorError(`@Description() on ${where}: it already has a description; keep one`);
    if (propertyKey === undefined) Reflect.defineMetadata(DESCRIPTION_METADATA, text, target);
    else Reflect.defineMetadata(DESCRIPTION_METADATA, text, target, propertyKey);
  };
}
