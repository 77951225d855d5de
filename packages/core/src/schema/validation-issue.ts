/** One failed check: where (`limit`, `tags[1]`, `address.city`; `''` for the arguments as a whole) and why. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** The result of validating arguments: the value the handler receives, or every issue found. */
export type ValidationOutcome<T = unknown> =
  | { ok: true; value: T }
  | { ok: false; issues: ValidationIssue[] };

/** Validates and transforms the raw JSON arguments of one call. Compiled once per tool, at bootstrap. */
export interface ArgsValidator<T = unknown> {
  /** Validates and transforms raw JSON arguments (undefined means {}). Sync when possible: returns a Promise only if it must. */
  validate(input: unknown): ValidationOutcome<T> | Promise<ValidationOutcome<T>>;
}

/** The message for arguments that are not a JSON object (an array, a string, null…). */
const NOT_AN_OBJECT_MESSAGE = 'arguments must be an object';

/** A fresh outcome for arguments that are not an object (fresh, so a caller may keep or change it). */
export function notAnObject(): { ok: false; issues: ValidationIssue[] } {
  return { ok: false, issues: [{ path: '', message: NOT_AN_OBJECT_MESSAGE }] };
}

/** True for what may stand as a tool's arguments: an object that is not an array. */
export function isArgumentsObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `address` + `city` → `address.city`; `''` + `limit` → `limit`. */
export function propertyPath(parent: string, property: string): string {
  return parent === '' ? property : `${parent}.${property}`;
}

/** `tags` + 1 → `tags[1]`. */
export function indexPath(parent: string, index: number | string): string {
  return `${parent}[${index}]`;
}

/**
 * One line for a list of issues, each as `path: message`:
 * `"query: must be a string; limit: must not be greater than 100"`.
 *
 * Messages are kept as class-validator words them (`query must be a string`); when a message
 * starts with the name of the property it is about, that name is dropped in favour of the
 * full path in front, so nested paths read `address.city: must be a string`.
 */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  let line = '';
  for (let i = 0; i < issues.length; i++) {
    if (i > 0) line += '; ';
    line += formatIssue(issues[i]);
  }
  return line;
}

function formatIssue({ path, message }: ValidationIssue): string {
  if (path === '') return message;
  const dot = path.lastIndexOf('.');
  const subjects = dot === -1 ? [path] : [path, path.slice(dot + 1)];
  for (const subject of subjects) {
    if (message.startsWith(`${subject} `)) return `${path}: ${message.slice(subject.length + 1)}`;
  }
  return `${path}: ${message}`;
}
