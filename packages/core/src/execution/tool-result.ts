import type { CallToolResult, ContentBlock } from '@gantry/protocol';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/** True for an MCP content block (text, image, audio, resource link, embedded resource). */
export function isContentBlock(value: unknown): value is ContentBlock {
  return (
    typeof value === 'object' &&
    value !== null &&
    CONTENT_TYPES.has((value as { type?: unknown }).type as string) &&
    !Array.isArray(value)
  );
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content)
  );
}

/**
 * Maps what a tool method returned to a `CallToolResult`:
 * - a string → one text block;
 * - `undefined` / `null` → no content;
 * - a content block, or an array of content blocks → that content;
 * - an object with a `content` array (a full `CallToolResult`) → passed through;
 * - anything else (numbers, booleans, plain objects, arrays of values) → its JSON as one text block.
 */
export function toCallToolResult(value: unknown): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (isCallToolResult(value)) return value;
  if (isContentBlock(value)) return { content: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) ?? String(value) }] };
}

/** A tool execution error (`isError: true`) whose single text block is `message`. */
export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
