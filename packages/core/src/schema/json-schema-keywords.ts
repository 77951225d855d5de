import { GantryError, LocalErrorCode } from '@gantry/protocol';
import type { ValidationIssue } from './validation-issue';

/** The keyword checks of `compileJsonSchemaValidator` that need no sub-schema: types, numbers, strings. */

/** Appends the issues of one value at `path`. */
export type Check = (value: unknown, path: string, issues: ValidationIssue[]) => void;
export type Schema = Record<string, unknown>;

/** A schema the validator cannot use: thrown at compile time, with where and why. */
export function invalid(at: string, problem: string): GantryError {
  return new GantryError(LocalErrorCode.InvalidDecorator, `JSON Schema at ${at}: ${problem}`);
}

/** How a message names the value: the last path segment (`city`, `tags[1]`), or `arguments`. */
export function subject(path: string): string {
  if (path === '') return 'arguments';
  const dot = path.lastIndexOf('.');
  return dot === -1 ? path : path.slice(dot + 1);
}

/** A value as messages show it: strings bare, the rest as JSON. */
export function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** JSON Schema counts string length in code points (2020-12 validation §6.3.1). */
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

export function compileType(
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

export function numberKeyword(schema: Schema, key: string, at: string): number | undefined {
  const value = schema[key];
  if (value === undefined || typeof value === 'boolean') return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(at, `'${key}' must be a number`);
  return value;
}

export function regex(pattern: unknown, at: string): RegExp {
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

export function numberChecks(schema: Schema, at: string, checks: Check[]): void {
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

export function stringChecks(schema: Schema, at: string, checks: Check[]): void {
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
