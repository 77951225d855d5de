import 'reflect-metadata';

/**
 * Metadata keys of the schema layer, read through the typed getters below.
 * `@Description`, `@Title` and `@OptionTitles` write them; `jsonSchemaFromClass`,
 * `elicitationSchemaFromClass` and the tool scanner read them.
 */

/** The description of a class, or of one of its members (property or method). */
export const DESCRIPTION_METADATA = Symbol('gantry:description');
/** Parameter index → description, per method (or per constructor, on the class). */
export const PARAMETER_DESCRIPTIONS_METADATA = Symbol('gantry:parameter-descriptions');

/**
 * The `@Description` text of a class (`getDescription(Class)`) or of a member
 * (`getDescription(Class.prototype, 'query')`). Inherited descriptions are found too.
 */
export function getDescription(target: object, propertyKey?: string | symbol): string | undefined {
  const text: unknown =
    propertyKey === undefined
      ? Reflect.getMetadata(DESCRIPTION_METADATA, target)
      : Reflect.getMetadata(DESCRIPTION_METADATA, target, propertyKey);
  return typeof text === 'string' ? text : undefined;
}

/** The `@Description` texts of a method's parameters (or a constructor's, with no `propertyKey`). */
export function getParameterDescriptions(
  target: object,
  propertyKey?: string | symbol,
): ReadonlyMap<number, string> | undefined {
  const descriptions: unknown =
    propertyKey === undefined
      ? Reflect.getMetadata(PARAMETER_DESCRIPTIONS_METADATA, target)
      : Reflect.getMetadata(PARAMETER_DESCRIPTIONS_METADATA, target, propertyKey);
  return descriptions instanceof Map ? (descriptions as ReadonlyMap<number, string>) : undefined;
}

/** The `Mcp-Param-*` header a DTO property is mirrored into (`@Header`, 2026-07-28 `x-mcp-header`). */
export const HEADER_METADATA = Symbol('gantry:mcp-header');

/** The `@Header` name of a DTO property, inherited ones too. */
export function getHeaderName(target: object, propertyKey: string | symbol): string | undefined {
  const name: unknown = Reflect.getMetadata(HEADER_METADATA, target, propertyKey);
  return typeof name === 'string' ? name : undefined;
}

/** The display title of a DTO property (`@Title`). */
export const TITLE_METADATA = Symbol('gantry:title');
/** Value → display title, for the allowed values of a DTO property (`@OptionTitles`). */
export const OPTION_TITLES_METADATA = Symbol('gantry:option-titles');

/** The `@Title` text of a DTO property (`getTitle(Class.prototype, 'email')`), inherited ones too. */
export function getTitle(target: object, propertyKey: string | symbol): string | undefined {
  const text: unknown = Reflect.getMetadata(TITLE_METADATA, target, propertyKey);
  return typeof text === 'string' ? text : undefined;
}

/** The `@OptionTitles` of a DTO property (value → title), inherited ones too. */
export function getOptionTitles(
  target: object,
  propertyKey: string | symbol,
): ReadonlyMap<string, string> | undefined {
  const titles: unknown = Reflect.getMetadata(OPTION_TITLES_METADATA, target, propertyKey);
  return titles instanceof Map ? (titles as ReadonlyMap<string, string>) : undefined;
}
