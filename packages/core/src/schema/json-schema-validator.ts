import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { jsonEqual } from './json-value';
import {
  type ArgsValidator,
  indexPath,
  isArgumentsObject,
  notAnObject,
  propertyPath,
  type ValidationIssue,
  type ValidationOutcome,
} from './validation-issue';

/**
 * A small validator for plain JSON Schema objects given to `@Tool({ input })`. It supports:
 * `type` (one or a list; `integer` included), `enum`, `const`, `minimum`, `maximum`,
 * `exclusiveMinimum`, `exclusiveMaximum` (2020-12 numbers, and draft-04 booleans),
 * `minLength`, `maxLength` (in code points), `pattern`, `items` (one schema), `minItems`,
 * `maxItems`, `properties`, `patternProperties`, `required`, `additionalProperties` (false or
 * a schema), `allOf`, `anyOf`, `oneOf`, and boolean schemas.
 *
 * Every other keyword is ignored, so it never rejects what it does not understand: `$ref`,
 * `$defs`, `format` (an annotation by default in 2020-12), `multipleOf`, `uniqueItems`,
 * `prefixItems` and tuple `items`, `contains`, `not`, `if`/`then`/`else`, `dependent*`,
 * `propertyNames`, `unevaluated*`. Messages follow class-validator's wording where one exists.
 */

type Check = (value: unknown, path: string, issues: ValidationIssue[]) => void;
type Schema = Record<string, unknown>;

function invalid(at: string, problem: string): GantryError {
  return new GantryError(LocalErrorCode.InvalidDecorator, `JSON Schema at ${at}: ${problem}`);
}

/** How a message names the value: the last path segment (`city`, `tags[1]`), or `arguments`. */
function subject(path: string): string {
  if (path === '') return 'arguments';
  const dot = path.lastIndexOf('.');
  return dot === -1 ? path : path.slice(dot + 1);
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

const TYPES: Record<string, { test: (v: unknown) => boolean; phrase: string }> = {
  string: { test: (v) => typeof v === 'string', phrase: 'a string' },
  number: { test: (v) => typeof v === 'number' && Number.isFinite(v), phrase: 'a number' },
  integer: { test: (v) => Number.isInteger(v), phrase: 'an integer number' },
  boolean: { test: (v) => typeof v === 'boolean', phrase: 'a boolean value' },
  null: { test: (v) => v === null, phrase: 'null' },
  array: { test: Array.isArray, phrase: 'an array' },
  object: { test: (v) => typeof v === 'object' && v !== null && !Array.isArray(v), phrase: 'an object' },
};

function compileType(
  type: unknown,
  at: string,
): { test: (v: unknown) => boolean; phrase: string } | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  const known = names.map((name) => {
    if (typeof name !== 'string' || !Object.hasOwn(TYPES, name))
      throw invalid(at, `unknown type ${JSON.stringify(name)}`);
    return TYPES[name];
  });
  if (known.length === 1) return known[0];
  return { test: (v) => known.some((t) => t.test(v)), phrase: known.map((t) => t.phrase).join(' or ') };
}

function numberKeyword(schema: Schema, key: string, at: string): number | undefined {
  const value = schema[key];
  if (value === undefined || typeof value === 'boolean') return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(at, `'${key}' must be a number`);
  return value;
}

function regex(pattern: unknown, at: string): RegExp {
  if (typeof pattern !== 'string') throw invalid(at, 'a pattern must be a string');
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      throw invalid(at, `${JSON.stringify(pattern)} is not a valid regular expression`);
    }
  }
}

function schemaList(schema: Schema, key: string, at: string): Check[] | undefined {
  const list = schema[key];
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0)
    throw invalid(at, `'${key}' must be a non-empty array of schemas`);
  return list.map((sub, i) => compileSchema(sub, `${at}/${key}/${i}`) ?? (() => {}));
}

function numberChecks(schema: Schema, at: string, checks: Check[]): void {
  let minimum = numberKeyword(schema, 'minimum', at);
  let maximum = numberKeyword(schema, 'maximum', at);
  let exclusiveMinimum = numberKeyword(schema, 'exclusiveMinimum', at);
  let exclusiveMaximum = numberKeyword(schema, 'exclusiveMaximum', at);
  // draft-04: `exclusiveMinimum: true` makes `minimum` exclusive.
  if (schema.exclusiveMinimum === true && minimum !== undefined)
    [exclusiveMinimum, minimum] = [minimum, undefined];
  if (schema.exclusiveMaximum === true && maximum !== undefined)
    [exclusiveMaximum, maximum] = [maximum, undefined];
  const bound = (limit: number | undefined, fails: (v: number, l: number) => boolean, words: string) => {
    if (limit === undefined) return;
    checks.push((v, path, issues) => {
      if (typeof v === 'number' && fails(v, limit))
        issues.push({ path, message: `${subject(path)} ${words} ${limit}` });
    });
  };
  bound(minimum, (v, l) => v < l, 'must not be less than');
  bound(maximum, (v, l) => v > l, 'must not be greater than');
  bound(exclusiveMinimum, (v, l) => v <= l, 'must be greater than');
  bound(exclusiveMaximum, (v, l) => v >= l, 'must be less than');
}

function stringChecks(schema: Schema, at: string, checks: Check[]): void {
  const minLength = numberKeyword(schema, 'minLength', at);
  const maxLength = numberKeyword(schema, 'maxLength', at);
  if (minLength !== undefined) {
    checks.push((v, path, issues) => {
      if (typeof v === 'string' && (v.length < minLength || codePoints(v) < minLength)) {
        issues.push({
          path,
          message: `${subject(path)} must be longer than or equal to ${minLength} characters`,
        });
      }
    });
  }
  if (maxLength !== undefined) {
    checks.push((v, path, issues) => {
      if (typeof v === 'string' && v.length > maxLength && codePoints(v) > maxLength) {
        issues.push({
          path,
          message: `${subject(path)} must be shorter than or equal to ${maxLength} characters`,
        });
      }
    });
  }
  if (schema.pattern !== undefined) {
    const re = regex(schema.pattern, `${at}/pattern`);
    checks.push((v, path, issues) => {
      if (typeof v === 'string' && !re.test(v)) {
        issues.push({ path, message: `${subject(path)} must match /${re.source}/ regular expression` });
      }
    });
  }
}

function arrayChecks(schema: Schema, at: string, checks: Check[]): void {
  const items = schema.items;
  // Tuple `items` (draft-07 arrays) is not supported and ignored.
  const itemCheck = items === undefined || Array.isArray(items) ? null : compileSchema(items, `${at}/items`);
  if (itemCheck) {
    checks.push((v, path, issues) => {
      if (!Array.isArray(v)) return;
      for (let i = 0; i < v.length; i++) itemCheck(v[i], indexPath(path, i), issues);
    });
  }
  const minItems = numberKeyword(schema, 'minItems', at);
  const maxItems = numberKeyword(schema, 'maxItems', at);
  if (minItems !== undefined) {
    checks.push((v, path, issues) => {
      if (Array.isArray(v) && v.length < minItems) {
        issues.push({ path, message: `${subject(path)} must contain at least ${minItems} elements` });
      }
    });
  }
  if (maxItems !== undefined) {
    checks.push((v, path, issues) => {
      if (Array.isArray(v) && v.length > maxItems) {
        issues.push({ path, message: `${subject(path)} must contain no more than ${maxItems} elements` });
      }
    });
  }
}

function objectChecks(schema: Schema, at: string, checks: Check[]): void {
  const { required, properties, patternProperties, additionalProperties } = schema;
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((k) => typeof k === 'string')) {
      throw invalid(at, "'required' must be an array of property names");
    }
    checks.push((v, path, issues) => {
      if (!isArgumentsObject(v)) return;
      for (const key of required) {
        if (!Object.hasOwn(v, key))
          issues.push({ path: propertyPath(path, key), message: `${key} is required` });
      }
    });
  }
  const declared = new Map<string, Check | null>();
  if (properties !== undefined) {
    if (!isArgumentsObject(properties)) throw invalid(at, "'properties' must be an object");
    for (const [key, sub] of Object.entries(properties))
      declared.set(key, compileSchema(sub, `${at}/properties/${key}`));
  }
  const patterns: [RegExp, Check | null][] = [];
  if (patternProperties !== undefined) {
    if (!isArgumentsObject(patternProperties)) throw invalid(at, "'patternProperties' must be an object");
    for (const [pattern, sub] of Object.entries(patternProperties)) {
      patterns.push([
        regex(pattern, `${at}/patternProperties`),
        compileSchema(sub, `${at}/patternProperties/${pattern}`),
      ]);
    }
  }
  const extra =
    additionalProperties === undefined || additionalProperties === true
      ? null
      : compileSchema(additionalProperties, `${at}/additionalProperties`);
  if (declared.size === 0 && patterns.length === 0 && extra === null) return;
  checks.push((v, path, issues) => {
    if (!isArgumentsObject(v)) return;
    for (const key of Object.keys(v)) {
      const value = v[key];
      const keyPath = propertyPath(path, key);
      let matched = declared.has(key);
      declared.get(key)?.(value, keyPath, issues);
      for (const [re, check] of patterns) {
        if (re.test(key)) {
          matched = true;
          check?.(value, keyPath, issues);
        }
      }
      if (matched || extra === null) continue;
      if (additionalProperties === false)
        issues.push({ path: keyPath, message: `property ${key} should not exist` });
      else extra(value, keyPath, issues);
    }
  });
}

function combinators(schema: Schema, at: string, checks: Check[]): void {
  const allOf = schemaList(schema, 'allOf', at);
  if (allOf) {
    checks.push((v, path, issues) => {
      for (const check of allOf) check(v, path, issues);
    });
  }
  const anyOf = schemaList(schema, 'anyOf', at);
  const matches = (check: Check, v: unknown, path: string) => {
    const scratch: ValidationIssue[] = [];
    check(v, path, scratch);
    return scratch.length === 0;
  };
  if (anyOf) {
    checks.push((v, path, issues) => {
      if (!anyOf.some((check) => matches(check, v, path))) {
        issues.push({ path, message: `${subject(path)} must match at least one of the allowed schemas` });
      }
    });
  }
  const oneOf = schemaList(schema, 'oneOf', at);
  if (oneOf) {
    checks.push((v, path, issues) => {
      const count = oneOf.filter((check) => matches(check, v, path)).length;
      if (count !== 1) {
        issues.push({
          path,
          message: `${subject(path)} must match exactly one of the allowed schemas (it matches ${count})`,
        });
      }
    });
  }
}

/** A check for one schema, or null when it accepts everything. */
function compileSchema(schema: unknown, at: string): Check | null {
  if (schema === true) return null;
  if (schema === false)
    return (_v, path, issues) => issues.push({ path, message: `${subject(path)} is not allowed` });
  if (!isArgumentsObject(schema)) throw invalid(at, 'a schema must be an object or a boolean');
  const type = compileType(schema.type, at);
  const checks: Check[] = [];
  if (schema.enum !== undefined) {
    const values = schema.enum;
    if (!Array.isArray(values)) throw invalid(at, "'enum' must be an array");
    const words = values.map(display).join(', ');
    checks.push((v, path, issues) => {
      if (!values.some((allowed) => jsonEqual(allowed, v))) {
        issues.push({ path, message: `${subject(path)} must be one of the following values: ${words}` });
      }
    });
  }
  if (Object.hasOwn(schema, 'const')) {
    const expected = schema.const;
    checks.push((v, path, issues) => {
      if (!jsonEqual(expected, v))
        issues.push({ path, message: `${subject(path)} must be equal to ${display(expected)}` });
    });
  }
  numberChecks(schema, at, checks);
  stringChecks(schema, at, checks);
  arrayChecks(schema, at, checks);
  objectChecks(schema, at, checks);
  combinators(schema, at, checks);
  if (!type && checks.length === 0) return null;
  return (value, path, issues) => {
    if (type && !type.test(value)) {
      issues.push({ path, message: `${subject(path)} must be ${type.phrase}` });
      return;
    }
    for (const check of checks) check(value, path, issues);
  };
}

/**
 * Compiles a validator for a plain JSON Schema (the `@Tool({ input })` form). Arguments must be
 * an object (undefined means `{}`); the value returned is the input itself, never changed.
 * An invalid schema throws a `GantryError` at once.
 *
 * @example
 * ```ts
 * const validator = compileJsonSchemaValidator({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
 * validator.validate({ q: 1 }); // { ok: false, issues: [{ path: 'q', message: 'q must be a string' }] }
 * ```
 */
export function compileJsonSchemaValidator(schema: object): ArgsValidator<Record<string, unknown>> {
  const check = compileSchema(schema, '#');
  return {
    validate(input: unknown): ValidationOutcome<Record<string, unknown>> {
      const value = input === undefined ? {} : input;
      if (!isArgumentsObject(value)) return notAnObject();
      if (check === null) return { ok: true, value };
      const issues: ValidationIssue[] = [];
      check(value, '', issues);
      return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
    },
  };
}
