import type { ObjectJsonSchema } from '@gantry/protocol';
import { decoratorError } from '../decorators/decorator-error';
import {
  type DtoContext,
  type DtoModel,
  type PropertyModel,
  readDtoModel,
  suggestDecorator,
} from './dto-model';
import { jsonCopy } from './json-value';
import {
  emptyDraft,
  type JsonType,
  knownConstraint,
  resolveType,
  type SchemaDraft,
} from './known-constraints';
import { CONDITIONAL_VALIDATION, NESTED_VALIDATION } from './metadata-sources';
import { getHeaderName, getTitle } from './schema-keys';

type Schema = Record<string, unknown>;

/** The keywords of a draft, in a fixed order so `tools/list` is byte-for-byte stable. */
function draftKeywords(draft: SchemaDraft, type: JsonType | undefined): [string, unknown][] {
  const keywords: [string, unknown][] = [];
  const put = (key: string, value: unknown) => {
    if (value !== undefined) keywords.push([key, value]);
  };
  put('enum', draft.enumValues && [...draft.enumValues]);
  put('format', draft.format);
  put('pattern', draft.patterns[0]);
  // `@IsNotEmpty()` on a string is `minLength: 1` (class-validator rejects only '').
  const notEmpty = draft.notEmpty && type === 'string' ? 1 : undefined;
  put('minLength', notEmpty === undefined ? draft.minLength : Math.max(draft.minLength ?? 0, notEmpty));
  put('maxLength', draft.maxLength);
  put('minimum', draft.minimum);
  put('exclusiveMinimum', draft.exclusiveMinimum);
  put('maximum', draft.maximum);
  put('exclusiveMaximum', draft.exclusiveMaximum);
  return keywords;
}

function arrayKeywords(draft: SchemaDraft): [string, unknown][] {
  const keywords: [string, unknown][] = [];
  if (draft.minItems !== undefined) keywords.push(['minItems', draft.minItems]);
  if (draft.maxItems !== undefined) keywords.push(['maxItems', draft.maxItems]);
  return keywords;
}

/** Patterns past the first one (two `@Matches()`), which must all match. */
function extraPatterns(draft: SchemaDraft): [string, unknown][] {
  return draft.patterns.length > 1
    ? [['allOf', draft.patterns.slice(1).map((pattern) => ({ pattern }))]]
    : [];
}

/** `{ type, title, description, ...rest }`: a property's labels come right after its type. */
function withLabels(schema: Schema, title: string | undefined, description: string | undefined): Schema {
  if (title === undefined && description === undefined) return schema;
  const rest = { ...schema };
  delete rest.type;
  const labels: Schema = {};
  if (title !== undefined) {
    delete rest.title;
    labels.title = title;
  }
  if (description !== undefined) {
    delete rest.description;
    labels.description = description;
  }
  return schema.type === undefined ? { ...labels, ...rest } : { type: schema.type, ...labels, ...rest };
}

function typeOf(
  model: DtoModel,
  property: PropertyModel,
  draft: SchemaDraft,
  extra?: JsonType,
): JsonType | undefined {
  const claims = extra ? [...draft.types, { type: extra, decorator: 'ValidateNested' }] : draft.types;
  const resolved = resolveType(claims);
  if ('conflict' in resolved) {
    // Decorators apply bottom-up: the later claim is the one written first.
    const [b, a] = resolved.conflict;
    throw decoratorError(
      `${model.label}: property '${property.name}' has conflicting type decorators (@${a.decorator}() says ${a.type}, @${b.decorator}() says ${b.type}); keep one`,
    );
  }
  return resolved.type;
}

/** The value schema of the items of an array (from `{ each: true }` validators). */
function itemsSchema(model: DtoModel, property: PropertyModel, draft: SchemaDraft): Schema {
  const type = typeOf(model, property, draft);
  return Object.fromEntries([
    ...(type ? [['type', type] as [string, unknown]] : []),
    ...draftKeywords(draft, type),
    ...extraPatterns(draft),
  ]);
}

function propertySchema(model: DtoModel, property: PropertyModel): Schema {
  const own = emptyDraft();
  const items = emptyDraft();
  let unknown = false;
  let each = false;
  for (const metadata of property.metadatas) {
    if (metadata.type === CONDITIONAL_VALIDATION) continue;
    if (metadata.each) each = true;
    if (metadata.type === NESTED_VALIDATION) continue;
    const known = knownConstraint(metadata.name);
    // Custom and unknown constraints are allowed: they validate, but add nothing to the schema.
    if (!known) unknown = true;
    else known.apply(metadata.each ? items : own, metadata.constraints ?? []);
  }
  const type = typeOf(model, property, own);
  if (each && type !== 'array') {
    throw decoratorError(
      `${model.label}: property '${property.name}' has validators with { each: true } but no @IsArray(); add @IsArray()`,
    );
  }
  if (!own.described && !unknown && !property.nested) {
    const suggestion = suggestDecorator(model.dto, property.name, property.initial);
    throw decoratorError(
      `${model.label}: property '${property.name}' has no type decorator; add one such as ${suggestion}`,
    );
  }
  const nested = property.nested ? schemaOfModel(property.nested) : undefined;
  const title = getTitle(model.dto.prototype, property.name);
  let entries: [string, unknown][];
  if (nested && type !== 'array') {
    typeOf(model, property, own, 'object');
    entries = Object.entries(withLabels(nested, title, property.description));
  } else {
    const item = nested ?? (each ? itemsSchema(model, property, items) : undefined);
    entries = Object.entries(withLabels(type ? { type } : {}, title, property.description));
    entries.push(...draftKeywords(own, type));
    if (item) entries.push(['items', item]);
    entries.push(...arrayKeywords(own), ...extraPatterns(own));
  }
  // A `null` initializer is a default only where null is allowed (with @IsOptional()).
  const fills = property.initial !== undefined && (property.initial !== null || property.optional);
  const initial = fills ? jsonCopy(property.initial) : undefined;
  if (initial) entries.push(['default', initial.value]);
  const header = getHeaderName(model.dto.prototype, property.name);
  if (header !== undefined) entries.push(['x-mcp-header', header]);
  return Object.fromEntries(entries);
}

/** The schema of a model already read (nested classes included). */
export function schemaOfModel(model: DtoModel): ObjectJsonSchema {
  const schema: ObjectJsonSchema = { type: 'object' };
  if (model.description !== undefined) schema.description = model.description;
  if (model.properties.length > 0) {
    schema.properties = Object.fromEntries(model.properties.map((p) => [p.name, propertySchema(model, p)]));
    // A property with an initializer is not required: when the caller leaves it out, the
    // instance keeps its default (plainToInstance starts from `new Dto()`) and validation
    // passes. A `null` initializer fills nothing: without @IsOptional() it still fails.
    const required = model.properties.filter((p) => !p.optional && p.initial == null).map((p) => p.name);
    if (required.length > 0) schema.required = required;
  }
  schema.additionalProperties = false;
  return schema;
}

/**
 * JSON Schema 2020-12 for a DTO class, built from class-validator metadata (getMetadataStorage()).
 * Property order is declaration order (base classes first); no `$schema` key, as 2020-12 is
 * MCP's default dialect. Misuse throws a `GantryError` (`GANTRY_ERR_INVALID_DECORATOR`) that
 * names the class, the property and what to add.
 *
 * @example
 * ```ts
 * class SearchNotes {
 *   @IsString() @Description('Words to look for') query!: string;
 *   @IsOptional() @IsInt() @Min(1) @Max(100) limit = 10;
 * }
 * jsonSchemaFromClass(SearchNotes);
 * // { type: 'object',
 * //   properties: { query: { type: 'string', description: 'Words to look for' },
 * //                 limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
 * //   required: ['query'], additionalProperties: false }
 * ```
 */
export function jsonSchemaFromClass(dto: Function, options?: DtoContext): ObjectJsonSchema {
  return schemaOfModel(readDtoModel(dto, options));
}
