import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';

/** The result of setting one server entry in a configuration file's text. */
export interface ConfigEdit {
  /** The entry that was there under the same name, as data; undefined when there was none. */
  readonly existing: unknown;
  /** The whole new text. */
  readonly text: string;
}

/**
 * Sets `servers[name] = entry` in JSON text (comments and trailing commas allowed, as VS Code's
 * mcp.json has them), where `servers` is the object at `serversKey`, created when missing.
 *
 * The edit is textual: jsonc-parser gives the offsets, and only the new (or replaced) entry is
 * written, so every other byte of the file stays as it was: other servers, unrelated keys,
 * their order, comments, indentation (the file's own unit is detected) and line endings.
 * JSON.parse + JSON.stringify would reorder integer-like keys and drop comments.
 */
export function setJsonEntry(options: {
  text: string | undefined;
  file: string;
  serversKey: readonly string[];
  name: string;
  entry: unknown;
}): ConfigEdit {
  const { text, file, serversKey, name, entry } = options;
  if (text === undefined || text.trim() === '') {
    return { existing: undefined, text: `${JSON.stringify(nest([...serversKey, name], entry), null, 2)}\n` };
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || root === undefined) {
    const at =
      errors.length > 0
        ? ` (${printParseErrorCode(errors[0].error)} at ${lineColumn(text, errors[0].offset)})`
        : '';
    throw new CliError(
      `${file} is not valid JSON${at}; fix it, or move it away to start a new one, and run gantry install again`,
      ExitCode.Usage,
    );
  }
  if (root.type !== 'object') {
    throw new CliError(
      `${file} holds a JSON ${root.type}, not an object; fix it, or move it away`,
      ExitCode.Usage,
    );
  }
  const editor = new JsonTextEditor(text);
  let node = root;
  for (let depth = 0; depth < serversKey.length; depth++) {
    const property = propertyOf(node, serversKey[depth]);
    const value = property?.children?.[1];
    if (property === undefined || value === undefined) {
      return {
        existing: undefined,
        text: editor.insert(node, serversKey[depth], nest([...serversKey.slice(depth + 1), name], entry)),
      };
    }
    if (value.type === 'null')
      return { existing: undefined, text: editor.replace(value, nest([name], entry)) };
    if (value.type !== 'object') {
      throw new CliError(
        `${file}: "${serversKey.slice(0, depth + 1).join('.')}" is a JSON ${value.type}, not an object of servers; fix it, or move the file away`,
        ExitCode.Usage,
      );
    }
    node = value;
  }
  const current = propertyOf(node, name)?.children?.[1];
  if (current !== undefined) return { existing: nodeValue(current), text: editor.replace(current, entry) };
  return { existing: undefined, text: editor.insert(node, name, entry) };
}

/** Writes a value at one place in the text, in the file's own style. */
class JsonTextEditor {
  private readonly unit: string;
  private readonly eol: string;

  constructor(private readonly text: string) {
    this.unit = detectIndentUnit(text);
    this.eol = text.includes('\r\n') ? '\r\n' : '\n';
  }

  /** The text with `key: value` added as the last property of `object`. */
  insert(object: Node, key: string, value: unknown): string {
    const properties = object.children ?? [];
    const last = properties.at(-1);
    if (last !== undefined) {
      const indent = this.propertyIndent(object, properties[0]);
      const end = last.offset + last.length;
      // After the last property's own trailing comma (JSONC allows one) and line comment, so
      // both stay with the property they belong to.
      const comma = /^[ \t]*,/.exec(this.text.slice(end))?.[0];
      let at = end + (comma?.length ?? 0);
      at += /^[ \t]*(?:\/\/[^\r\n]*)?(?=\r?\n)/.exec(this.text.slice(at))?.[0].length ?? 0;
      const added = `${this.eol}${indent}${this.property(key, value, indent)}`;
      return comma === undefined
        ? `${this.text.slice(0, end)},${this.text.slice(end, at)}${added}${this.text.slice(at)}`
        : this.splice(at, at, added);
    }
    const outer = this.lineIndent(object.offset);
    const indent = outer + this.unit;
    const open = object.offset + 1;
    const close = object.offset + object.length - 1;
    const property = `${this.eol}${indent}${this.property(key, value, indent)}`;
    // `{}` or `{ }`: the braces get their own lines. Anything else inside (a comment) is kept.
    if (this.text.slice(open, close).trim() === '')
      return this.splice(open, close, `${property}${this.eol}${outer}`);
    return this.splice(open, open, property);
  }

  /** The text with the value `node` spans replaced by `value`. */
  replace(node: Node, value: unknown): string {
    return this.splice(
      node.offset,
      node.offset + node.length,
      this.format(value, this.lineIndent(node.offset)),
    );
  }

  private property(key: string, value: unknown, indent: string): string {
    return `${JSON.stringify(key)}: ${this.format(value, indent)}`;
  }

  /** `value` as JSON in the file's indent unit, its later lines starting at `indent`. */
  private format(value: unknown, indent: string): string {
    return JSON.stringify(value, null, this.unit).split('\n').join(`${this.eol}${indent}`);
  }

  /** The indentation of an object's properties: its first property's, if that starts a line. */
  private propertyIndent(object: Node, first: Node): string {
    const lineStart = this.text.lastIndexOf('\n', first.offset - 1) + 1;
    const before = this.text.slice(lineStart, first.offset);
    return before.trim() === '' ? before : this.lineIndent(object.offset) + this.unit;
  }

  private lineIndent(offset: number): string {
    const lineStart = this.text.lastIndexOf('\n', offset - 1) + 1;
    return /^[ \t]*/.exec(this.text.slice(lineStart))![0];
  }

  private splice(start: number, end: number, insert: string): string {
    return this.text.slice(0, start) + insert + this.text.slice(end);
  }
}

/** The first indentation found on a line that starts with a key or value, else two spaces. */
function detectIndentUnit(text: string): string {
  const indented = /^([ \t]+)["{[\d\-tfn]/m.exec(text);
  return indented?.[1] ?? '  ';
}

function propertyOf(object: Node, key: string): Node | undefined {
  return object.children?.find((property) => property.children?.[0]?.value === key);
}

/** `{ a: { b: value } }` for `['a', 'b']`. */
function nest(keys: readonly string[], value: unknown): unknown {
  return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** A node as plain data, for comparing an existing entry with the new one. */
function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries(
        (node.children ?? []).map((property) => [
          property.children![0].value,
          nodeValue(property.children![1]),
        ]),
      );
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
