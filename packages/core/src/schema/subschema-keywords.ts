/**
 * The keywords of JSON Schema 2020-12 (and the older drafts Gantry reads) whose values are
 * schemas, by the shape of the value (JSON Schema Core 2020-12 §8.2.4 `$defs`, §10 and §11;
 * Validation 2020-12 §8.5 `contentSchema`; draft-07's `definitions` and `dependencies`). `items` and `additionalItems` are left out: their
 * shape changed between drafts, so json-schema-dialect.ts reads them on their own.
 */

/** Keywords whose value is one schema. */
export const ONE_SCHEMA_KEYWORDS = [
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;

/** Keywords whose value is a list of schemas. */
export const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

/** Keywords whose value maps names to schemas (`dependencies` also holds arrays of names). */
export const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
] as const;
