import { encodePointerToken } from './json-pointer';
import { schemaProblem } from './json-schema-problems';
import { ONE_SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './subschema-keywords';

/**
 * Reads a plain JSON Schema as JSON Schema 2020-12, the dialect MCP 2025-11-25 makes the default
 * (Basic § JSON Schema Usage), and returns a copy for the validator; the schema the tool
 * advertises is left as its author wrote it.
 *
 * Users still write draft-07 (and older) schemas, with or without `$schema`: zod-to-json-schema
 * declares draft-07, many hand-written schemas use tuple `items`. The keywords whose meaning
 * changed are rewritten to their 2020-12 form, so they are enforced rather than refused:
 * - tuple `items: [a, b]` → `prefixItems: [a, b]`, and then `additionalItems: x` → `items: x`
 *   (`additionalItems` without tuple `items` meant nothing and is dropped);
 * - draft-04 `exclusiveMinimum: true` next to `minimum: n` → `exclusiveMinimum: n` (and maximum);
 * - a `$schema` naming draft-04, -06, -07 or 2019-09 is dropped after that rewrite. Any other
 *   `$schema` is refused: the validator knows no other dialect, and MCP 2025-11-25 asks to fail
 *   with an error rather than validate by the wrong rules.
 * `definitions` and `dependencies` need no rewrite: the validator knows them.
 *
 * The copy also checks every `pattern` and `patternProperties` key, so a bad one is reported
 * with its place in the schema. A pattern is a Unicode regular expression (2020-12 validation
 * § 6.3.3); one that only compiles without the `u` flag (`[\w-.]`) is accepted as such, as
 * Gantry always did.
 */

const DIALECT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const OLDER_DIALECTS = new Set(
  ['draft-04/schema', 'draft-06/schema', 'draft-07/schema', 'draft/2019-09/schema'].flatMap((tail) =>
    ['http', 'https'].flatMap((scheme) => [
      `${scheme}://json-schema.org/${tail}`,
      `${scheme}://json-schema.org/${tail}#`,
    ]),
  ),
);

type Schema = Record<string, unknown>;

export interface PrepareOptions {
  /** Keep `format` (asserted by the validator); false drops it, so it stays an annotation. */
  formats: boolean;
}

/** A regular expression as the validator will build it: with the `u` flag when it compiles so. */
export function patternRegExp(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    if (!flags.includes('u')) throw error;
    return new RegExp(pattern, flags.replace('u', ''));
  }
}

function checkPattern(pattern: unknown, at: string): void {
  if (typeof pattern !== 'string') throw schemaProblem(at, 'a pattern must be a string');
  try {
    patternRegExp(pattern, 'u');
  } catch {
    throw schemaProblem(at, `${JSON.stringify(pattern)} is not a valid regular expression`);
  }
}

function checkDialect(value: unknown, at: string): void {
  if (
    typeof value === 'string' &&
    (value === DIALECT_2020 || value === `${DIALECT_2020}#` || OLDER_DIALECTS.has(value))
  )
    return;
  throw schemaProblem(
    at,
    `$schema ${JSON.stringify(value)} is a dialect Gantry cannot validate; use JSON Schema 2020-12 (${DIALECT_2020}) or draft-07, or leave $schema out`,
  );
}

function prepare(schema: unknown, at: string, options: PrepareOptions): unknown {
  if (typeof schema === 'boolean') return schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw schemaProblem(at, 'a schema must be an object or a boolean');
  const source = schema as Schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(source)) copy[key] = value;

  if (source.$schema !== undefined) {
    checkDialect(source.$schema, at);
    if (source.$schema !== DIALECT_2020 && source.$schema !== `${DIALECT_2020}#`) delete copy.$schema;
  }
  if (!options.formats) delete copy.format;
  if (source.pattern !== undefined) checkPattern(source.pattern, `${at}/pattern`);

  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof source[exclusive] !== 'boolean') continue;
    delete copy[exclusive];
    if (source[exclusive] === true && typeof source[bound] === 'number') {
      copy[exclusive] = source[bound];
      delete copy[bound];
    }
  }

  if (Array.isArray(source.items)) {
    copy.prefixItems = source.items.map((item, i) => prepare(item, `${at}/items/${i}`, options));
    delete copy.items;
    if (source.additionalItems !== undefined)
      copy.items = prepare(source.additionalItems, `${at}/additionalItems`, options);
  } else if (source.items !== undefined) {
    copy.items = prepare(source.items, `${at}/items`, options);
  }
  delete copy.additionalItems;

  for (const key of ONE_SCHEMA_KEYWORDS) {
    if (source[key] !== undefined) copy[key] = prepare(source[key], `${at}/${key}`, options);
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = source[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0)
      throw schemaProblem(at, `'${key}' must be a non-empty array of schemas`);
    copy[key] = list.map((item, i) => prepare(item, `${at}/${key}/${i}`, options));
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = source[key];
    if (map === undefined) continue;
    if (typeof map !== 'object' || map === null || Array.isArray(map))
      throw schemaProblem(at, `'${key}' must be an object`);
    const entries: Schema = {};
    for (const [name, item] of Object.entries(map)) {
      if (key === 'patternProperties') checkPattern(name, `${at}/patternProperties`);
      // draft-07 `dependencies` also maps a property to the names it requires.
      entries[name] =
        key === 'dependencies' && Array.isArray(item)
          ? item
          : prepare(item, `${at}/${key}/${encodePointerToken(name)}`, options);
    }
    copy[key] = entries;
  }
  return copy;
}

/** The 2020-12 copy of `schema` the validator compiles; throws a `GantryError` naming the place of a problem. */
export function prepareSchema(schema: object, options: PrepareOptions): object {
  return prepare(schema, '#', options) as object;
}

/** The schemas directly under `schema` (in its 2020-12 form), for walks over a compiled schema. */
export function subschemasOf(schema: Schema): unknown[] {
  const found: unknown[] = [];
  if (schema.items !== undefined) found.push(schema.items);
  for (const key of ONE_SCHEMA_KEYWORDS) if (schema[key] !== undefined) found.push(schema[key]);
  for (const key of SCHEMA_LIST_KEYWORDS)
    if (Array.isArray(schema[key])) found.push(...(schema[key] as unknown[]));
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = schema[key];
    if (typeof map === 'object' && map !== null) found.push(...Object.values(map));
  }
  return found;
}
