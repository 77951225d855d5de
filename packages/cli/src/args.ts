import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';

/** Commander's accumulator for repeatable options (`-a x=1 -a y=2`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * The arguments of `gantry call`: the `--args` JSON object, then each `-a key=value` set on it.
 *
 * - A value is parsed as JSON when it parses (`3`, `true`, `null`, `{"a":1}`, `["x"]`, `"007"`)
 *   and is a string otherwise (`hello`, `007`, `1.2.3`). Quote a JSON string to keep digits
 *   text: `-a 'id="123"'`.
 * - Dots in a key nest: `-a filter.tag=work` gives `{ "filter": { "tag": "work" } }`. A key
 *   with a literal dot goes through `--args`.
 * - `-a` wins over `--args` for the same key; the same `-a` key twice is an error.
 */
export function parseToolArguments(
  json: string | undefined,
  pairs: readonly string[],
): Record<string, unknown> {
  const args = json === undefined ? {} : parseArgsJson(json);
  const given = new Set<string>();
  for (const pair of pairs) {
    const { key, value } = splitPair(pair);
    for (const other of given) {
      if (other === key) throw new CliError(`-a ${key} is given twice`, ExitCode.Usage);
      if (other.startsWith(`${key}.`)) {
        throw new CliError(`-a ${key} would replace the object that -a ${other} sets`, ExitCode.Usage);
      }
    }
    given.add(key);
    setPath(args, key, parseValue(value));
  }
  return args;
}

/**
 * The arguments of `gantry prompt`: each `-a key=value`, values kept as strings, since MCP
 * prompt arguments are strings (2025-11-25 `GetPromptRequest`: `arguments: { [key]: string }`).
 */
export function parsePromptArguments(pairs: readonly string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const pair of pairs) {
    const { key, value } = splitPair(pair);
    if (Object.hasOwn(args, key)) throw new CliError(`-a ${key} is given twice`, ExitCode.Usage);
    args[key] = value;
  }
  return args;
}

/** Parses `--args`: it must be a JSON object; anything else is a usage error naming the problem. */
export function parseArgsJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `--args is not valid JSON (${(error as Error).message}): ${excerpt(text)}`,
      ExitCode.Usage,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new CliError(`--args must be a JSON object such as '{"query":"x"}', got ${kind}`, ExitCode.Usage);
  }
  return value as Record<string, unknown>;
}

function splitPair(pair: string): { key: string; value: string } {
  const equals = pair.indexOf('=');
  const key = equals === -1 ? '' : pair.slice(0, equals);
  if (key === '' || key.split('.').some((part) => part === '')) {
    throw new CliError(`-a needs key=value, got ${JSON.stringify(pair)}`, ExitCode.Usage);
  }
  return { key, value: pair.slice(equals + 1) };
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    const next = Object.hasOwn(node, part) ? node[part] : undefined;
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      setOwn(node, part, created);
      node = created;
    } else if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      node = next as Record<string, unknown>;
    } else {
      throw new CliError(
        `-a ${key}: ${parts.slice(0, i + 1).join('.')} is already set to ${JSON.stringify(next)}, not an object`,
        ExitCode.Usage,
      );
    }
  }
  setOwn(node, parts[parts.length - 1], value);
}

/** Sets an own property: `-a __proto__.x=1` makes a key, as JSON.parse would, not a prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function excerpt(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * The `-a` values that JSON reading turned into something else than the string the tool's
 * input schema asks for (`-a name=42` against `name: { type: 'string' }`), as one usage
 * error with a line per argument and the quoting that sends text; undefined when there are
 * none. A server validating such a value reports every constraint the number breaks (type,
 * minLength, pattern…); the cause is one: how `-a` reads its value.
 */
export function stringArgumentMismatches(
  pairs: readonly string[],
  inputSchema: unknown,
): CliError | undefined {
  const lines: string[] = [];
  for (const pair of pairs) {
    const { key, value: text } = splitPair(pair);
    const value = parseValue(text);
    if (typeof value === 'string') continue;
    const types = schemaTypes(schemaAt(inputSchema, key));
    if (!types.includes('string') || types.includes(jsonType(value))) continue;
    if (jsonType(value) === 'integer' && types.includes('number')) continue;
    lines.push(
      `-a ${pair}: "${key}" is a string, but ${excerpt(text)} reads as JSON (${describeJson(value)}); ` +
        `quote it to send the text: -a '${key}=${JSON.stringify(text)}'`,
    );
  }
  return lines.length === 0 ? undefined : new CliError(lines.join('\n'), ExitCode.Usage);
}

/** The subschema of `schema` for a dotted `-a` key, through `properties`. */
function schemaAt(schema: unknown, key: string): unknown {
  let node = schema;
  for (const part of key.split('.')) {
    const properties = isRecord(node) ? node.properties : undefined;
    node = isRecord(properties) && Object.hasOwn(properties, part) ? properties[part] : undefined;
  }
  return node;
}

function schemaTypes(schema: unknown): string[] {
  if (!isRecord(schema)) return [];
  const { type } = schema;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/** The JSON Schema type name of a JSON value (2020-12 Validation §6.1.1). */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function describeJson(value: unknown): string {
  const type = jsonType(value);
  if (type === 'integer') return 'a number';
  if (type === 'null') return 'null';
  return type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
