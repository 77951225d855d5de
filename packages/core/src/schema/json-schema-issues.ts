import type { ErrorObject } from 'ajv';
import { decodePointerToken } from './json-pointer';
import { subschemasOf } from './json-schema-dialect';
import { indexPath, propertyPath, type ValidationIssue } from './validation-issue';

/**
 * The validator's errors as Gantry's issues: a path in the arguments (`tags[1]`,
 * `address.city`) and a message worded as class-validator words its own (`tags[1] must be a
 * string`, `limit must not be greater than 100`, `query is required`), so a tool reads the same
 * whether its arguments are a DTO class or a plain JSON Schema.
 *
 * Three kinds of error are not shown as they come:
 * - the errors inside a failed `anyOf`, `oneOf` or `contains`: the branch errors only say why each
 *   alternative failed; the one issue says what was expected;
 * - the summary of `if` (the failed `then`/`else` says what is wrong) and of `propertyNames` (each
 *   failing name gets its own issue);
 * - any other keyword of a schema whose `type` the value does not have (`must be a string` says
 *   it; `must be one of…` next to it would only repeat).
 * Issues are ordered as the value is read: the value itself, then missing properties, then each
 * property or element in order, and each place's issues in the order of the schema's keywords.
 */

type Schema = Record<string, unknown>;
type Verbose = ErrorObject & { parentSchema?: unknown; schema?: unknown };

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

const TYPE_PHRASE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer number',
  boolean: 'a boolean value',
  null: 'null',
  array: 'an array',
  object: 'an object',
};

/** class-validator's words for the formats it has a decorator for (IsEmail, IsUrl, IsUUID, IsISO8601…). */
const FORMAT_PHRASE: Record<string, string> = {
  email: 'must be an email',
  uri: 'must be a URL address',
  url: 'must be a URL address',
  uuid: 'must be a UUID',
  'date-time': 'must be a valid ISO 8601 date string',
  date: 'must be a valid ISO 8601 date string',
  ipv4: 'must be an ip address',
  ipv6: 'must be an ip address',
  hostname: 'must be a valid domain name',
};

/** The message after the subject (`must be a string`); undefined for errors that name their own subject. */
function predicate(error: Verbose): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = Array.isArray(p.type) ? p.type : [p.type];
      return `must be ${types.map((t) => TYPE_PHRASE[t as string] ?? t).join(' or ')}`;
    }
    case 'enum':
      return `must be one of the following values: ${(p.allowedValues as unknown[]).map(display).join(', ')}`;
    case 'const':
      return `must be equal to ${display(p.allowedValue)}`;
    case 'minimum':
      return `must not be less than ${p.limit}`;
    case 'maximum':
      return `must not be greater than ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'multipleOf':
      return `must be divisible by ${p.multipleOf}`;
    case 'minLength':
      return `must be longer than or equal to ${p.limit} characters`;
    case 'maxLength':
      return `must be shorter than or equal to ${p.limit} characters`;
    case 'pattern':
      return `must match /${p.pattern}/ regular expression`;
    case 'format':
      return FORMAT_PHRASE[p.format as string] ?? `must match format "${p.format}"`;
    case 'minItems':
      return `must contain at least ${p.limit} elements`;
    case 'maxItems':
    case 'items':
    case 'unevaluatedItems':
      return `must contain no more than ${p.limit} elements`;
    case 'uniqueItems':
      return `must contain unique elements (elements ${p.j} and ${p.i} are equal)`;
    case 'contains':
      return p.maxContains === undefined
        ? `must contain at least ${p.minContains} elements matching the 'contains' schema`
        : `must contain at least ${p.minContains} and no more than ${p.maxContains} elements matching the 'contains' schema`;
    case 'minProperties':
      return `must have at least ${p.limit} properties`;
    case 'maxProperties':
      return `must have no more than ${p.limit} properties`;
    case 'not':
      return "must not match the schema in 'not'";
    case 'anyOf':
      return 'must match at least one of the allowed schemas';
    case 'oneOf': {
      const passing = p.passingSchemas;
      if (!Array.isArray(passing)) return 'must match exactly one of the allowed schemas (it matches 0)';
      // The validator stops at the second match: the count is exact only if that was the last branch.
      const exact = Array.isArray(error.schema) && passing[1] === error.schema.length - 1;
      return `must match exactly one of the allowed schemas (it matches ${exact ? 2 : '2 or more'})`;
    }
    case 'false schema':
      return 'is not allowed';
    default:
      return error.message ?? `must satisfy '${error.keyword}'`;
  }
}

/** A place in the value: Gantry's path, and each step's rank for ordering (see `compareRanks`). */
interface Place {
  path: string;
  ranks: number[];
}

/** Rank of a step: index of the element, or of the property among the object's keys; -1 if the property is absent. */
function place(data: unknown, pointer: string, child?: string): Place {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map(decodePointerToken);
  if (child !== undefined) tokens.push(child);
  let path = '';
  const ranks: number[] = [];
  let value = data;
  for (const token of tokens) {
    if (Array.isArray(value)) {
      path = indexPath(path, token);
      ranks.push(Number(token));
      value = value[Number(token)];
    } else {
      path = propertyPath(path, token);
      const holder = typeof value === 'object' && value !== null ? (value as Schema) : undefined;
      const present = holder !== undefined && Object.hasOwn(holder, token);
      if (ranks.at(-1) !== -1) ranks.push(present ? Object.keys(holder).indexOf(token) : -1);
      value = present ? holder[token] : undefined;
    }
  }
  return { path, ranks };
}

/** The value itself before its parts; a missing property before present ones; then in order. */
function compareRanks(a: number[], b: number[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function startsWithPointer(pointer: string, prefix: string): boolean {
  return pointer === prefix || pointer.startsWith(`${prefix}/`);
}

/** Every schema object reachable from `roots` (following local `$ref`s into `document`); null if a `$ref` leads elsewhere. */
function reachable(roots: unknown[], document: unknown): Set<unknown> | null {
  const seen = new Set<unknown>();
  const stack = [...roots];
  while (stack.length > 0) {
    const schema = stack.pop();
    if (typeof schema !== 'object' || schema === null || seen.has(schema)) continue;
    seen.add(schema);
    stack.push(...subschemasOf(schema as Schema));
    for (const key of ['$ref', '$dynamicRef']) {
      const ref = (schema as Schema)[key];
      if (typeof ref !== 'string') continue;
      if (!ref.startsWith('#/') && ref !== '#') return null;
      let target: unknown = document;
      for (const token of ref.slice(2).split('/').filter(Boolean))
        target = (target as Schema | undefined)?.[decodePointerToken(decodeURIComponent(token))];
      if (target === undefined) return null;
      stack.push(target);
    }
  }
  return seen;
}

/** Marks the errors a failed `anyOf`/`oneOf`/`contains` at `index` holds: the run just before it, from its branches. */
function markBranchErrors(
  errors: readonly Verbose[],
  index: number,
  document: unknown,
  hidden: boolean[],
): void {
  const owner = errors[index];
  const branches = Array.isArray(owner.schema) ? owner.schema : [owner.schema];
  const inside = reachable(branches, document);
  for (let i = index - 1; i >= 0; i--) {
    const error = errors[i];
    if (!startsWithPointer(error.instancePath, owner.instancePath)) break;
    if (inside !== null && !inside.has(error.parentSchema)) break;
    if (inside === null && error.parentSchema === owner.parentSchema) break;
    hidden[i] = true;
  }
}

/** The issues of one failed validation. `document` is the compiled schema, `data` the value validated. */
export function issuesFromErrors(
  errors: readonly ErrorObject[],
  document: unknown,
  data: unknown,
): ValidationIssue[] {
  const all = errors as readonly Verbose[];
  const hidden = all.map((e) => e.keyword === 'if' || e.keyword === 'propertyNames');
  for (let i = 0; i < all.length; i++) {
    const keyword = all[i].keyword;
    if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'contains')
      markBranchErrors(all, i, document, hidden);
  }
  const mistyped = new Set<string>();
  for (const error of all) if (error.keyword === 'type') mistyped.add(error.instancePath);
  const found: (ValidationIssue & { ranks: number[] })[] = [];
  for (let i = 0; i < all.length; i++) {
    const error = all[i];
    if (hidden[i]) continue;
    if (error.keyword !== 'type' && mistyped.has(error.instancePath)) {
      const sameSchema = all.some(
        (other) =>
          other.keyword === 'type' &&
          other.instancePath === error.instancePath &&
          other.parentSchema === error.parentSchema,
      );
      if (sameSchema) continue;
    }
    found.push(issueOf(error, data));
  }
  found.sort((a, b) => compareRanks(a.ranks, b.ranks));
  return found.map(({ path, message }) => ({ path, message }));
}

function issueOf(error: Verbose, data: unknown): ValidationIssue & { ranks: number[] } {
  const p = error.params as Record<string, unknown>;
  const propertyName = (error as { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    const { path, ranks } = place(data, error.instancePath);
    return { path, ranks, message: `property name ${propertyName} ${predicate(error)}` };
  }
  switch (error.keyword) {
    case 'required': {
      const key = p.missingProperty as string;
      return { ...place(data, error.instancePath, key), message: `${key} is required` };
    }
    case 'dependentRequired':
    case 'dependencies': {
      const key = p.missingProperty as string;
      return {
        ...place(data, error.instancePath, key),
        message: `${key} is required when ${p.property} is present`,
      };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const key = (p.additionalProperty ?? p.unevaluatedProperty) as string;
      return { ...place(data, error.instancePath, key), message: `property ${key} should not exist` };
    }
    default: {
      const at = place(data, error.instancePath);
      return { ...at, message: `${subject(at.path)} ${predicate(error)}` };
    }
  }
}
