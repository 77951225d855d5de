import { decoratorError } from '../decorators/decorator-error';
import {
  type ElicitationSchema,
  type ElicitationSchemaOptions,
  FORMATS,
  isRecord,
  PRIMITIVES,
  quoted,
  type Schema,
  TITLED_VERSION,
  titledEnumsAllowed,
} from './elicitation-form-rules';

/** What a hand-written value is, for messages. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** `[1, 2]` for a list, else as `show` says. */
function listed(value: unknown): string {
  return Array.isArray(value) ? `[${quoted(value)}]` : show(value);
}

/** `a string`, `an integer`. */
const withArticle = (kind: string) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;

type Fail = (what: string) => Error;

const LABEL_KEYS: readonly string[] = ['type', 'title', 'description'];
const ROOT_KEYS: readonly string[] = ['$schema', 'type', 'properties', 'required'];

/** The keys a field of this kind may have, besides `type`, `title` and `description`. */
const FIELD_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'format', 'default'],
  'single-select': ['enum', 'enumNames', 'default'],
  'titled single-select': ['oneOf', 'default'],
  number: ['minimum', 'maximum', 'default'],
  integer: ['minimum', 'maximum', 'default'],
  boolean: ['default'],
  'multi-select': ['items', 'minItems', 'maxItems', 'default'],
};

/** The items of a multi-select: `{ anyOf: [{ const, title }] }` or `{ type: 'string', enum }`. */
function itemsKind(items: unknown): 'titled' | 'untitled' | undefined {
  const keys = isRecord(items) ? Object.keys(items).sort().join(',') : '';
  if (keys === 'anyOf') return 'titled';
  if (keys === 'enum,type' && (items as Schema).type === 'string') return 'untitled';
  return undefined;
}

function kindOf(field: Schema, at: Fail): string {
  switch (field.type) {
    case 'string':
      if (field.oneOf !== undefined && field.enum !== undefined) {
        throw at('has both enum and oneOf; a choice lists its values once');
      }
      return field.oneOf !== undefined
        ? 'titled single-select'
        : field.enum !== undefined
          ? 'single-select'
          : 'string';
    case 'number':
    case 'integer':
    case 'boolean':
      return field.type;
    case 'array':
      if (itemsKind(field.items) === undefined) {
        throw at(
          `is a list whose items are not a choice of strings; ${PRIMITIVES} (a list only as a multi-select, items { type: 'string', enum: [...] } or { anyOf: [{ const, title }] })`,
        );
      }
      return 'multi-select';
    case 'object':
      throw at(`is an object; ${PRIMITIVES}`);
    case undefined:
      throw at("has no type; give it one of 'string', 'number', 'integer' or 'boolean'");
    default:
      throw at(`has type ${show(field.type)}; ${PRIMITIVES}`);
  }
}

function checkCount(field: Schema, low: string, high: string, at: Fail, integer: boolean): void {
  for (const key of [low, high]) {
    const value = field[key];
    if (value === undefined) continue;
    const ok = integer ? Number.isInteger(value) && (value as number) >= 0 : Number.isFinite(value);
    if (!ok)
      throw at(`has ${key} ${show(value)}; it must be ${integer ? 'a whole number ≥ 0' : 'a finite number'}`);
  }
  if (
    field[low] !== undefined &&
    field[high] !== undefined &&
    (field[low] as number) > (field[high] as number)
  ) {
    throw at(`has ${low} ${field[low]} above ${high} ${field[high]}; no answer could fit`);
  }
}

/** A non-empty list of distinct strings: the values of a choice. */
function checkValues(list: unknown, key: string, at: Fail): string[] {
  if (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === 'string')) {
    throw at(`needs ${key} to be a non-empty list of strings; got ${listed(list)}`);
  }
  const twice = list.find((value, i) => list.indexOf(value) !== i);
  if (twice !== undefined) throw at(`lists ${show(twice)} twice in ${key}`);
  return list;
}

/** `[{ const, title }]`, the options of a titled choice; returns their values. */
function checkTitledOptions(list: unknown, key: string, at: Fail): string[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw at(`needs ${key} to be a non-empty list of { const, title } options; got ${listed(list)}`);
  }
  list.forEach((option, i) => {
    const keys = isRecord(option) ? Object.keys(option).sort().join(',') : '';
    if (keys !== 'const,title' || typeof option.const !== 'string' || typeof option.title !== 'string') {
      throw at(`has ${key}[${i}] that is not { const: string, title: string }`);
    }
  });
  return checkValues(
    list.map((option: Schema) => option.const),
    `${key} consts`,
    at,
  );
}

function checkChoiceDefault(value: unknown, values: readonly string[], at: Fail): void {
  if (value !== undefined && !values.includes(value as string)) {
    throw at(`has default ${show(value)}, which is not one of its values (${quoted(values)})`);
  }
}

function checkField(name: string, field: unknown, stateless: boolean, fail: Fail): void {
  const at = (what: string) => fail(`property '${name}' ${what}`);
  if (!isRecord(field)) throw at(`must be a schema object such as { type: 'string' }; got ${show(field)}`);
  const kind = kindOf(field, at);
  if (!stateless && (kind === 'titled single-select' || kind === 'multi-select')) {
    throw at(
      `is ${withArticle(kind)}, which needs protocol version ${TITLED_VERSION}; 2025-06-18 clients know only { type: 'string', enum, enumNames }`,
    );
  }
  const allowed = [...LABEL_KEYS, ...FIELD_KEYS[kind]];
  for (const key of Object.keys(field)) {
    if (!allowed.includes(key)) {
      throw at(
        `has '${key}', which ${withArticle(kind)} field of an elicitation form cannot have; allowed: ${allowed.join(', ')}`,
      );
    }
    if (key === 'default' && !stateless && kind !== 'boolean') {
      throw at(
        `has a default, which 2025-06-18 allows only on booleans; remove it (${TITLED_VERSION} allows it)`,
      );
    }
  }
  for (const key of ['title', 'description']) {
    if (field[key] !== undefined && typeof field[key] !== 'string')
      throw at(`has ${key} ${show(field[key])}; it must be a string`);
  }
  switch (kind) {
    case 'string':
      checkCount(field, 'minLength', 'maxLength', at, true);
      if (field.format !== undefined && !FORMATS.has(field.format)) {
        throw at(
          `has format ${show(field.format)}; elicitation forms allow only email, uri, date and date-time`,
        );
      }
      if (field.default !== undefined && typeof field.default !== 'string')
        throw at(`has default ${show(field.default)}; it must be a string`);
      return;
    case 'number':
    case 'integer': {
      checkCount(field, 'minimum', 'maximum', at, false);
      const value = field.default;
      if (value !== undefined && !(kind === 'integer' ? Number.isInteger(value) : Number.isFinite(value))) {
        throw at(`has default ${show(value)}; it must be ${kind === 'integer' ? 'an integer' : 'a number'}`);
      }
      return;
    }
    case 'boolean':
      if (field.default !== undefined && typeof field.default !== 'boolean')
        throw at(`has default ${show(field.default)}; it must be true or false`);
      return;
    case 'single-select': {
      const values = checkValues(field.enum, 'enum', at);
      if (field.enumNames !== undefined) {
        const names = field.enumNames;
        if (
          !Array.isArray(names) ||
          names.length !== values.length ||
          !names.every((n) => typeof n === 'string')
        ) {
          throw at(`has enumNames that are not one string per enum value (${values.length})`);
        }
      }
      checkChoiceDefault(field.default, values, at);
      return;
    }
    case 'titled single-select':
      checkChoiceDefault(field.default, checkTitledOptions(field.oneOf, 'oneOf', at), at);
      return;
    case 'multi-select': {
      const items = field.items as Schema;
      const values =
        itemsKind(items) === 'titled'
          ? checkTitledOptions(items.anyOf, 'items.anyOf', at)
          : checkValues(items.enum, 'items.enum', at);
      checkCount(field, 'minItems', 'maxItems', at, true);
      const value = field.default;
      if (value !== undefined) {
        if (!Array.isArray(value)) throw at(`has default ${show(value)}; it must be a list of its values`);
        for (const item of value) checkChoiceDefault(item, values, at);
      }
      return;
    }
  }
}

/**
 * Checks a hand-written form-mode `requestedSchema` against the spec's restrictions for the
 * negotiated protocol version (MCP 2025-11-25 and 2025-06-18, Client Features › Elicitation › Requested Schema): a flat `type: 'object'` with
 * `properties` and optional `required` (and `$schema` from 2025-11-25); each property a string
 * (format email/uri/date/date-time), number, integer, boolean, single choice or (2025-11-25)
 * multi-select, with only the keywords its kind allows. Returns the schema itself, or throws a
 * `GantryError` (`GANTRY_ERR_INVALID_DECORATOR`) naming the first problem.
 *
 * @example
 * ```ts
 * checkElicitationSchema(
 *   { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
 *   { protocolVersion: '2025-06-18', context: "Tool 'signup'" },
 * );
 * ```
 */
export function checkElicitationSchema(schema: object, options: ElicitationSchemaOptions): ElicitationSchema {
  const label = options.context ?? 'Elicitation requestedSchema';
  const stateless = titledEnumsAllowed(options.protocolVersion, label);
  const fail = (what: string) => decoratorError(`${label}: ${what}`);
  if (!isRecord(schema)) {
    throw fail(`must be an object schema { type: 'object', properties: { … } }; got ${show(schema)}`);
  }
  for (const key of Object.keys(schema)) {
    if (key === '$schema' && !stateless) {
      throw fail(
        `has '$schema', which needs protocol version ${TITLED_VERSION}; leave it out for 2025-06-18 clients`,
      );
    }
    if (!ROOT_KEYS.includes(key)) {
      throw fail(
        `has '${key}', which is not part of the restricted schema of elicitation forms; keep only ${stateless ? '$schema, ' : ''}type, properties and required`,
      );
    }
  }
  if (schema.$schema !== undefined && typeof schema.$schema !== 'string') {
    throw fail(`has $schema ${show(schema.$schema)}; it must be a dialect URI string`);
  }
  if (schema.type !== 'object') throw fail(`must have type 'object'; got ${show(schema.type)}`);
  const properties = schema.properties;
  if (!isRecord(properties)) {
    throw fail(`needs properties, an object of field name → schema; got ${show(properties)}`);
  }
  for (const [name, field] of Object.entries(properties)) checkField(name, field, stateless, fail);
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required))
      throw fail(`has required ${show(schema.required)}; it must be a list of property names`);
    for (const name of schema.required) {
      if (typeof name !== 'string' || !Object.hasOwn(properties, name)) {
        throw fail(`lists ${show(name)} in required, which is not one of its properties`);
      }
    }
  }
  return schema as unknown as ElicitationSchema;
}
