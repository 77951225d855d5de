import { GantryError, LocalErrorCode } from '@gantry/protocol';
import type { ErrorObject } from 'ajv';
import { decodePointerToken, encodePointerToken } from './json-pointer';
import { ONE_SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './subschema-keywords';

/**
 * Why a plain JSON Schema cannot be compiled, said as `JSON Schema at <pointer>: <problem>`:
 * from the meta-schema check (a keyword with a value of the wrong kind) or from compiling (a
 * `$ref` that does not resolve). Thrown at bootstrap; the caller puts the tool's name in front.
 */

/** A schema the validator cannot use: where (a JSON Pointer fragment, `#/properties/a`) and why. */
export function schemaProblem(at: string, problem: string): GantryError {
  return new GantryError(LocalErrorCode.InvalidDecorator, `JSON Schema at ${at}: ${problem}`);
}

/** Keywords whose value is one schema, or a list or map of them (2020-12 and older). */
const ONE = new Set<string>(['items', 'additionalItems', ...ONE_SCHEMA_KEYWORDS]);
const MANY = new Set<string>([...SCHEMA_LIST_KEYWORDS, ...SCHEMA_MAP_KEYWORDS]);

const KIND: Record<string, string> = {
  number: 'a number',
  integer: 'an integer',
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};
const TYPE_NAMES = new Set(Object.keys(KIND));

/** The schema that holds the wrong keyword, its pointer, and the keyword: `/properties/a/type` → `#/properties/a`, `type`. */
function locate(schema: unknown, pointer: string): { owner: unknown; at: string; keyword: string } {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/');
  let owner = schema;
  let at = '#';
  let i = 0;
  while (i < tokens.length) {
    const token = decodePointerToken(tokens[i]);
    const step =
      ONE.has(token) && i + 1 < tokens.length && !/^\d+$/.test(tokens[i + 1])
        ? 1
        : MANY.has(token) && i + 2 < tokens.length
          ? 2
          : 0;
    if (step === 0) return { owner, at, keyword: token };
    let next = (owner as Record<string, unknown>)[token];
    if (step === 2) next = (next as Record<string, unknown>)?.[decodePointerToken(tokens[i + 1])];
    at += `/${tokens.slice(i, i + step).join('/')}`;
    owner = next;
    i += step;
  }
  return { owner, at, keyword: '' };
}

function kind(type: unknown): string {
  if (Array.isArray(type)) {
    if (type.includes('object') && type.includes('boolean')) return 'a schema (an object or a boolean)';
    return type.map(kind).join(' or ');
  }
  return KIND[type as string] ?? String(type);
}

/** The first problem the meta-schema found, said so its author can fix it. */
export function metaSchemaProblem(schema: object, errors: readonly ErrorObject[]): GantryError {
  // The deepest error names the wrong value; `anyOf`/`oneOf` only say that no form matched.
  let chosen = errors[0];
  for (const error of errors) {
    const deeper = error.instancePath.length > chosen.instancePath.length;
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf' && (deeper || chosen.keyword === 'anyOf'))
      chosen = error;
  }
  const { owner, at, keyword } = locate(schema, chosen.instancePath);
  if (keyword === 'type') {
    const value = (owner as Record<string, unknown>).type;
    const names = Array.isArray(value) ? value : [value];
    const unknown = names.find((name) => typeof name !== 'string' || !TYPE_NAMES.has(name));
    if (unknown !== undefined) return schemaProblem(at, `unknown type ${JSON.stringify(unknown)}`);
  }
  if (keyword === 'required') return schemaProblem(at, "'required' must be an array of property names");
  const problem =
    chosen.keyword === 'type'
      ? `must be ${kind(chosen.params.type)}`
      : (chosen.message ?? `fails '${chosen.keyword}'`);
  return schemaProblem(at, keyword === '' ? problem : `'${keyword}' ${problem}`);
}

/** Where the first `$ref` with this value is, for a reference that does not resolve. */
function findRef(schema: unknown, ref: string, at: string): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  if (!Array.isArray(schema) && typeof (schema as { $ref?: unknown }).$ref === 'string') {
    const value = (schema as { $ref: string }).$ref;
    if (value === ref || ref.endsWith(value)) return at;
  }
  for (const [key, value] of Object.entries(schema)) {
    const found = findRef(value, ref, `${at}/${encodePointerToken(key)}`);
    if (found) return found;
  }
  return undefined;
}

/** A compile error of the validator, said with its place when it is a `$ref` that does not resolve. */
export function compileProblem(schema: object, error: unknown): GantryError {
  const missing = (error as { missingRef?: unknown }).missingRef;
  if (typeof missing === 'string') {
    const at = findRef(schema, missing, '#') ?? '#';
    return schemaProblem(
      at,
      `$ref ${JSON.stringify(missing)} does not resolve to a schema; define it under $defs (schemas are never fetched)`,
    );
  }
  return schemaProblem('#', error instanceof Error ? error.message : String(error));
}
