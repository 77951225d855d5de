import { OPTION_TITLES_METADATA } from '../schema/schema-keys';
import { decoratorError, memberName } from './decorator-error';

/**
 * Display titles for the values of a choice: a property with `@IsIn([...])` or `@IsEnum(E)`,
 * single-select or multi-select (`{ each: true }`). Elicitation forms show the titles and send
 * back the values (2025-11-25 titled enums; `enumNames` for 2025-06-18 clients). Values left out
 * are shown as themselves. Whether each key is one of the property's values is checked when the
 * schema is generated, where both are known.
 *
 * @example
 * ```ts
 * class ShippingForm {
 *   @IsIn(['std', 'express'])
 *   @OptionTitles({ std: 'Standard (3–5 days)', express: 'Express (next day)' })
 *   speed!: string;
 * }
 * ```
 */
export function OptionTitles(titles: Readonly<Record<string, string>>): PropertyDecorator {
  const example = "e.g. @OptionTitles({ std: 'Standard', express: 'Express' })";
  if (typeof titles !== 'object' || titles === null || Array.isArray(titles)) {
    const got = titles === null ? 'null' : Array.isArray(titles) ? 'an array' : typeof titles;
    throw decoratorError(`@OptionTitles() needs an object of value → title, ${example}; got ${got}`);
  }
  const entries = Object.entries(titles);
  if (entries.length === 0) {
    throw decoratorError(`@OptionTitles() needs at least one value → title, ${example}; got {}`);
  }
  for (const [value, title] of entries) {
    if (typeof title !== 'string' || title.trim() === '') {
      const got = typeof title === 'string' ? 'an empty string' : typeof title;
      throw decoratorError(
        `@OptionTitles(): the title of '${value}' must be a non-empty string, ${example}; got ${got}`,
      );
    }
  }
  const map: ReadonlyMap<string, string> = new Map(entries);
  return (target: object, propertyKey: string | symbol | undefined) => {
    const where = memberName(target, propertyKey);
    if (propertyKey === undefined) {
      throw decoratorError(`@OptionTitles() on ${where}: it titles the values of a property; put it on one`);
    }
    if (Reflect.hasOwnMetadata(OPTION_TITLES_METADATA, target, propertyKey)) {
      throw decoratorError(`@OptionTitles() on ${where}: it already has option titles; keep one`);
    }
    Reflect.defineMetadata(OPTION_TITLES_METADATA, map, target, propertyKey);
  };
}
