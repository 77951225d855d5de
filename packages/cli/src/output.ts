import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  ObjectJsonSchema,
  ReadResourceResult,
  ResourceContents,
} from '@gantry/protocol';

/** Where the CLI writes: `process.stdout`/`process.stderr`, or buffers in tests. */
export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** The real streams. */
export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr };
}

/** Width for tables: the terminal's, else `$COLUMNS`, else 80 (output piped to a file or a program). */
export function outputWidth(io: Io): number {
  if (io.stdout.isTTY && io.stdout.columns) return io.stdout.columns;
  const columns = Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 20 ? columns : 80;
}

/** `value` as indented JSON and a newline: what `--json` prints. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

const GAP = '  ';
const ELLIPSIS = '…';
/** A column other than the last is cut to this when the table is too wide. */
const MAX_INNER_COLUMN = 32;
/** The last column keeps at least this much, even if lines then exceed the width. */
const MIN_LAST_COLUMN = 16;

/**
 * An aligned table with a header row. Cells are flattened to one line; the last column
 * (descriptions) is cut with an ellipsis so lines fit `width`, inner columns only when they
 * alone would leave it less than {@link MIN_LAST_COLUMN}.
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
): string {
  const cells = [headers, ...rows].map((row) => row.map(oneLine));
  const last = headers.length - 1;
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const inner = () => widths.slice(0, last).reduce((sum, w) => sum + w + GAP.length, 0);
  for (let column = 0; column < last && width - inner() < MIN_LAST_COLUMN; column++) {
    widths[column] = Math.min(widths[column], Math.max(headers[column].length, MAX_INNER_COLUMN));
  }
  widths[last] = Math.min(widths[last], Math.max(MIN_LAST_COLUMN, width - inner()));
  return cells
    .map((row) =>
      row
        .map((cell, column) => {
          const text = truncate(cell, widths[column]);
          return column === last ? text : text.padEnd(widths[column]);
        })
        .join(GAP)
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1)).trimEnd()}${ELLIPSIS}`;
}

/** `query, tag?, limit?`: the properties of an input schema, optional ones marked with `?`. */
export function describeSchemaArguments(schema: ObjectJsonSchema | undefined): string {
  const properties = Object.keys(schema?.properties ?? {});
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return properties.map((name) => (required.has(name) ? name : `${name}?`)).join(', ');
}

/** Bytes of base64 data, for `[image image/png, 1234 bytes]`. */
function decodedBytes(base64: string): number {
  return Buffer.byteLength(base64, 'base64');
}

/** One content block as text: text as is, binary data as a `[kind mime, N bytes]` placeholder. */
export function formatContentBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${decodedBytes(block.data)} bytes]`;
    case 'resource_link': {
      const details = [block.name, block.mimeType].filter(Boolean).join(', ');
      return `[resource link ${block.uri}${details ? ` (${details})` : ''}]`;
    }
    case 'resource':
      return formatResourceContents(block.resource, true);
    default:
      // A content type from a newer revision: show it rather than drop it.
      return JSON.stringify(block);
  }
}

function formatResourceContents(contents: ResourceContents, withHeader: boolean): string {
  const mime = contents.mimeType ? ` ${contents.mimeType}` : '';
  if ('blob' in contents && typeof contents.blob === 'string') {
    return `[resource ${contents.uri}${mime}, ${decodedBytes(contents.blob)} bytes]`;
  }
  const text = (contents as { text?: string }).text ?? '';
  return withHeader ? `[resource ${contents.uri}${mime}]\n${text}` : text;
}

/** Joins blocks of text, each ending with exactly one newline. */
function lines(parts: readonly string[]): string {
  return parts.map((part) => (part.endsWith('\n') ? part : `${part}\n`)).join('');
}

/**
 * A tool result for people: its content blocks, then `structuredContent` as indented JSON. A
 * text block that only repeats the structured content as JSON (what servers send for older
 * clients, 2025-11-25 tools §"Structured Content") is not printed twice.
 */
export function formatCallToolResult(result: CallToolResult): string {
  const structured = result.structuredContent;
  const structuredJson = structured === undefined ? undefined : JSON.stringify(structured);
  const parts: string[] = [];
  for (const block of result.content) {
    if (structuredJson !== undefined && block.type === 'text' && sameJson(block.text, structuredJson))
      continue;
    parts.push(formatContentBlock(block));
  }
  if (structured !== undefined) parts.push(JSON.stringify(structured, null, 2));
  return lines(parts);
}

function sameJson(text: string, json: string): boolean {
  if (text === json) return true;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/** A read resource: one item's text as is; several items each under a `[resource uri]` header. */
export function formatReadResourceResult(result: ReadResourceResult): string {
  const several = result.contents.length > 1;
  return lines(result.contents.map((contents) => formatResourceContents(contents, several)));
}

/** A prompt: its messages, each under a `[role]` line, separated by blank lines. */
export function formatPromptResult(result: GetPromptResult): string {
  return result.messages
    .map((message) => lines([`[${message.role}]`, formatContentBlock(message.content)]))
    .join('\n');
}
