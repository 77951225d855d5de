import { listItems, maskSource, matchingBracket } from './source-mask';

/** Result of {@link addProvider}: the new text, or why the module was left alone. */
export type ModuleEdit = { ok: true; text: string; changed: boolean } | { ok: false; reason: string };

/** One text insertion (or replacement of `start`..`end`). */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The `@Module({...})` object of a module file and its `providers` array, when it has one. */
interface ModuleShape {
  objectOpen: number;
  objectClose: number;
  /** Brackets of the `providers: [...]` array; undefined when the object has no `providers` key. */
  providers?: { open: number; close: number };
}

/** Past this width a one-line providers array is split into one element per line (Biome's and Prettier's default is 80; this repository's, 110). */
const MAX_LINE = 100;

const PROVIDERS_KEY = /^(?:providers|'providers'|"providers")\s*:/;

/** Finds the one `@Module({...})` call and its providers array, or says why it cannot. */
function moduleShape(source: string, masked: string): ModuleShape | string {
  const calls = [...masked.matchAll(/@Module\s*\(/g)];
  if (calls.length === 0) return 'it has no @Module({ ... }) decorator';
  if (calls.length > 1)
    return `it has ${calls.length} @Module(...) decorators, and which one should get the provider is yours to say`;
  let objectOpen = calls[0].index + calls[0][0].length;
  while (/\s/.test(masked[objectOpen] ?? '')) objectOpen++;
  if (masked[objectOpen] !== '{') return '@Module(...) is not given an object literal';
  const objectClose = matchingBracket(masked, objectOpen);
  if (objectClose === -1) return 'the brackets of @Module({ ... }) do not match';

  const properties = listItems(masked, objectOpen, objectClose);
  const key = properties.find((item) => PROVIDERS_KEY.test(source.slice(item.start, item.end)));
  if (!key) {
    if (properties.some((item) => /^(?:providers\b|\.\.\.)/.test(masked.slice(item.start, item.end)))) {
      return 'its providers are not written as "providers: [...]" in the @Module object';
    }
    return { objectOpen, objectClose };
  }
  let open = key.start + masked.slice(key.start).indexOf(':') + 1;
  while (/\s/.test(masked[open] ?? '')) open++;
  if (masked[open] !== '[') return 'its providers are not an array literal ("providers: [...]")';
  const close = matchingBracket(masked, open);
  if (close === -1 || masked.slice(close + 1, key.end).trim() !== '')
    return 'its providers are not an array literal ("providers: [...]")';
  return { objectOpen, objectClose, providers: { open, close } };
}

/** The leading whitespace of the line that holds `index`. */
function indentAt(source: string, index: number): string {
  const lineStart = source.lastIndexOf('\n', index - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart))?.[0] ?? '';
}

/** Adds `className` as the last element of the array `[...]` at `open`..`close`. */
function appendToArray(
  source: string,
  masked: string,
  open: number,
  close: number,
  className: string,
  eol: string,
): Edit[] {
  const items = listItems(masked, open, close);
  if (items.length === 0) return [{ start: open + 1, end: close, text: className }];
  const last = items[items.length - 1];
  const rest = masked.slice(last.end, close);
  const comma = rest.indexOf(',');
  const trailingComma = comma !== -1 && rest.slice(0, comma).trim() === '';
  if (!rest.includes('\n')) {
    // On one line: [A, B] → [A, B, X]; [A, B,] → [A, B, X,]
    const edit = trailingComma
      ? { start: last.end + comma + 1, end: last.end + comma + 1, text: ` ${className},` }
      : { start: last.end, end: last.end, text: `, ${className}` };
    const lineStart = source.lastIndexOf('\n', open) + 1;
    const lineEnd = source.indexOf('\n', close);
    const lineLength = (lineEnd === -1 ? source.length : lineEnd) - lineStart + edit.text.length;
    const texts = items.map((item) => source.slice(item.start, item.end));
    if (lineLength <= MAX_LINE || texts.some((text) => text.includes('\n'))) return [edit];
    // Too long for one line: one element per line, as a formatter would write it.
    const indent = indentAt(source, open);
    const lines = [...texts, className].map((text) => `${eol}${indent}  ${text},`).join('');
    return [{ start: open, end: close + 1, text: `[${lines}${eol}${indent}]` }];
  }
  // One element per line: a new line after the last element's (after any comment on it).
  let lineEnd = source.indexOf('\n', last.end);
  if (source[lineEnd - 1] === '\r') lineEnd--;
  const line = `${eol}${indentAt(source, last.start)}${className}${trailingComma ? ',' : ''}`;
  const edits: Edit[] = [{ start: lineEnd, end: lineEnd, text: line }];
  if (!trailingComma) edits.unshift({ start: last.end, end: last.end, text: ',' });
  return edits;
}

/** Adds `providers: [className]` to an object that has no providers key. */
function addProvidersKey(
  source: string,
  masked: string,
  shape: ModuleShape,
  className: string,
  eol: string,
): Edit[] {
  const { objectOpen: open, objectClose: close } = shape;
  const properties = listItems(masked, open, close);
  if (properties.length === 0) return [{ start: open + 1, end: close, text: ` providers: [${className}] ` }];
  const first = properties[0];
  const text = masked.slice(open + 1, first.start).includes('\n')
    ? `${eol}${indentAt(source, first.start)}providers: [${className}],`
    : ` providers: [${className}],`;
  return [{ start: open + 1, end: open + 1, text }];
}

/** The statement `import … from '…'` (or `import '…'`) that starts at `start`: where it ends and its style. */
function importStatement(
  masked: string,
  start: number,
): { end: number; quote: string; semicolon: boolean } | undefined {
  const open = masked.slice(start).search(/['"]/);
  if (open === -1) return undefined;
  const quote = masked[start + open];
  const close = masked.indexOf(quote, start + open + 1);
  if (close === -1) return undefined;
  const semicolon = masked[close + 1] === ';';
  return { end: close + 1 + (semicolon ? 1 : 0), quote, semicolon };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `source` imports `className` (by name, in any import of braces). */
export function importsClass(source: string, masked: string, className: string): boolean {
  const pattern = new RegExp(
    `^\\s*import\\s+(?:type\\s+)?\\{[^}]*\\b${escapeRegExp(className)}\\b[^}]*\\}`,
    'gm',
  );
  for (const match of source.matchAll(pattern)) {
    const at = match.index + match[0].length - match[0].trimStart().length;
    if (masked.startsWith('import', at)) return true;
  }
  return false;
}

/** The import line for `className`, placed after the file's last import. */
export function addImport(masked: string, className: string, importPath: string, eol: string): Edit[] {
  let last: ReturnType<typeof importStatement>;
  for (const match of masked.matchAll(/^[ \t]*import\b/gm)) {
    const statement = importStatement(masked, match.index);
    if (statement && (!last || statement.end > last.end)) last = statement;
  }
  const quote = last?.quote ?? "'";
  const line = `import { ${className} } from ${quote}${importPath}${quote}${last?.semicolon === false ? '' : ';'}`;
  return last
    ? [{ start: last.end, end: last.end, text: `${eol}${line}` }]
    : [{ start: 0, end: 0, text: `${line}${eol}` }];
}

export function applyEdits(source: string, edits: Edit[]): string {
  // From the end of the file backwards, so earlier offsets stay valid; of two edits at one
  // place, the one listed later goes in first and so ends up after the other.
  const order = edits.map((edit, index) => ({ edit, index }));
  order.sort((a, b) => b.edit.start - a.edit.start || b.index - a.index);
  let text = source;
  for (const { edit } of order) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return text;
}

/** The provider names listed in the module's providers array, as written (`[]` without one). */
export function listedProviders(source: string): string[] | string {
  const masked = maskSource(source);
  const shape = moduleShape(source, masked);
  if (typeof shape === 'string') return shape;
  if (!shape.providers) return [];
  return listItems(masked, shape.providers.open, shape.providers.close).map((item) =>
    source.slice(item.start, item.end),
  );
}

/**
 * Registers `className` in a module file: adds `import { className } from 'importPath'` after
 * the last import and `className` at the end of the `providers: [...]` array of the file's one
 * `@Module({...})` (adding the key when there is none). It is a text edit that keeps the
 * file's layout (one line or one element per line, trailing commas, quotes, semicolons,
 * CRLF), checked by reading the result again: the providers must be the old ones plus
 * `className`. Anything it cannot edit safely is reported with a reason instead.
 */
export function addProvider(source: string, className: string, importPath: string): ModuleEdit {
  const masked = maskSource(source);
  const shape = moduleShape(source, masked);
  if (typeof shape === 'string') return { ok: false, reason: shape };
  const before = listedProviders(source) as string[];
  const eol = source.includes('\r\n') ? '\r\n' : '\n';

  const edits: Edit[] = [];
  if (!before.includes(className)) {
    edits.push(
      ...(shape.providers
        ? appendToArray(source, masked, shape.providers.open, shape.providers.close, className, eol)
        : addProvidersKey(source, masked, shape, className, eol)),
    );
  }
  if (!importsClass(source, masked, className)) edits.push(...addImport(masked, className, importPath, eol));
  if (edits.length === 0) return { ok: true, text: source, changed: false };
  const text = applyEdits(source, edits);

  const problem = verify(text, before, className);
  return problem ? { ok: false, reason: problem } : { ok: true, text, changed: true };
}

/** Why `text` is not the module with `className` added to `before`, or undefined when it is. */
export function verify(text: string, before: readonly string[], className: string): string | undefined {
  const after = listedProviders(text);
  if (typeof after === 'string') return `the edited file could not be read back (${after})`;
  const expected = before.includes(className) ? before : [...before, className];
  if (after.length !== expected.length || after.some((item, i) => item !== expected[i])) {
    return `the edit did not give the expected providers (got [${after.join(', ')}])`;
  }
  if (!importsClass(text, maskSource(text), className)) return 'the edit did not give the import';
  return undefined;
}
