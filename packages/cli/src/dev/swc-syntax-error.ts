import { relative } from 'node:path';

/** Where a syntax error is, 1-based, and what swc said about it. */
export interface SyntaxErrorLocation {
  readonly line: number;
  readonly column: number;
  /**
   * The column is where swc drew the caret, in its display of the line (tabs shown as
   * `SWC_TAB_WIDTH` spaces), not a character count; `sourceColumn` converts it.
   */
  readonly displayed?: boolean;
  readonly message: string;
  /** How many further diagnostics swc reported (often follow-ups of the first). */
  readonly more: number;
}

/** How many spaces swc's snippets show for a tab. */
const SWC_TAB_WIDTH = 4;

/** The 1-based character column of `line` that swc displayed at 1-based `displayColumn`. */
export function sourceColumn(line: string, displayColumn: number): number {
  let width = 0;
  for (let index = 0; index < line.length; index++) {
    if (width >= displayColumn - 1) return index + 1;
    width += line[index] === '\t' ? SWC_TAB_WIDTH : 1;
  }
  return line.length + 1;
}

/** Lines of source shown before and after the failing one. */
const CONTEXT_LINES = 2;

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are what we strip
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Reads the first diagnostic out of the message of an error thrown by `@swc/core`'s
 * `transformSync`. swc renders each diagnostic as a framed snippet:
 *
 * ```
 *   x Expression expected
 *    ,-[/project/src/main.ts:4:1]
 *  3 |   m() {
 *  4 |     return a +;
 *    :               ^
 * ```
 *
 * followed by "Caused by: Syntax Error" and a native backtrace nobody needs. The line is the
 * snippet line above the first caret line, the column the caret's offset past the gutter.
 * Returns undefined when the message is not a syntax error in that shape.
 */
export function locateSwcSyntaxError(error: unknown): SyntaxErrorLocation | undefined {
  // Not `instanceof Error`: the native addon's errors may come from another realm (Jest's vm).
  const raw = (error as { message?: unknown } | null)?.message;
  const text = (typeof raw === 'string' ? raw : String(error)).replace(ANSI, '');
  if (!/Syntax Error/.test(text)) return undefined;
  const lines = text.split('\n');
  const diagnostics = lines.filter((line) => /^\s*x /.test(line));
  const first = lines.findIndex((line) => /^\s*x /.test(line));
  if (first === -1) return undefined;
  const message = lines[first].replace(/^\s*x /, '').trim();
  for (let i = first + 1; i < lines.length && !/^\s*x /.test(lines[i]); i++) {
    const caret = lines[i].indexOf('^');
    if (caret === -1 || !/^\s*:/.test(lines[i])) continue;
    const snippet = /^\s*(\d+) \| /.exec(lines[i - 1]);
    if (!snippet) break;
    return {
      line: Number(snippet[1]),
      column: caret - snippet[0].length + 1,
      displayed: true,
      message,
      more: diagnostics.length - 1,
    };
  }
  // No caret: fall back on the header's position.
  const header = /,-\[.*:(\d+):(\d+)\]/.exec(lines.slice(first).join('\n'));
  if (!header) return undefined;
  return { line: Number(header[1]), column: Number(header[2]), message, more: diagnostics.length - 1 };
}

/**
 * `file:line:col: message` and a few lines of the source with the failing one marked and a
 * caret under the column, the way compilers print a syntax error.
 */
export function formatCodeFrame(options: {
  file: string;
  source: string;
  location: SyntaxErrorLocation;
  cwd?: string;
}): string {
  const { source } = options;
  const shown = relative(options.cwd ?? process.cwd(), options.file) || options.file;
  const lines = source.split(/\r?\n/);
  const location = options.location.displayed
    ? {
        ...options.location,
        column: sourceColumn(lines[options.location.line - 1] ?? '', options.location.column),
      }
    : options.location;
  const from = Math.max(1, location.line - CONTEXT_LINES);
  const to = Math.min(lines.length, location.line + CONTEXT_LINES);
  const width = String(to).length;
  const out = [`${shown}:${location.line}:${location.column}: syntax error: ${location.message}`];
  for (let number = from; number <= to; number++) {
    const marker = number === location.line ? '>' : ' ';
    const gutter = `${marker} ${String(number).padStart(width)} |`;
    const text = lines[number - 1] ?? '';
    out.push(text === '' ? gutter : `${gutter} ${text}`);
    if (number === location.line) {
      // Tabs stay tabs, so the caret lines up under what the editor shows.
      const lead = text.slice(0, Math.max(0, location.column - 1)).replace(/[^\t]/g, ' ');
      out.push(`  ${' '.repeat(width)} | ${lead}^`);
    }
  }
  if (location.more > 0) {
    out.push(`(swc reported ${location.more} more error${location.more === 1 ? '' : 's'} after this one)`);
  }
  return `${out.join('\n')}\n`;
}

/** The code frame for an swc error, or undefined when it is not a syntax error swc located. */
export function describeSwcSyntaxError(
  error: unknown,
  file: string,
  source: string,
  cwd?: string,
): string | undefined {
  const location = locateSwcSyntaxError(error);
  return location ? formatCodeFrame({ file, source, location, cwd }) : undefined;
}
