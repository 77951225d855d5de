import {
  type Check,
  compileType,
  display,
  invalid,
  numberChecks,
  numberKeyword,
  regex,
  type Schema,
  stringChecks,
  subject,
} from './json-schema-keywords';
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

function schemaList(schema: Schema, key: string, at: string): Check[] | undefined {
  const list = schema[key];
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0)
    throw invalid(at, `'${key}' must be a non-empty array of schemas`);
  return list.map((sub, i) => compileSchema(sub, `${at}/${key}/${i}`) ?? (() => {}));
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
