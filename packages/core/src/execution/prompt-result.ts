import { type GetPromptResult, InternalError, type PromptMessage } from '@gantry/protocol';
import { isContentBlock } from './tool-result';

function isMessage(value: unknown): value is PromptMessage {
  const role = (value as { role?: unknown } | null)?.role;
  return (
    (role === 'user' || role === 'assistant') && isContentBlock((value as { content?: unknown }).content)
  );
}

function toMessage(item: unknown, prompt: string): PromptMessage {
  if (typeof item === 'string') return { role: 'user', content: { type: 'text', text: item } };
  if (isMessage(item)) return item;
  if (isContentBlock(item)) return { role: 'user', content: item };
  throw new InternalError(
    `Internal error: prompt '${prompt}' returned an item that is neither a string, a content block nor a { role, content } message`,
  );
}

/**
 * Maps what a prompt method returned to a `GetPromptResult`:
 * - a string → one user text message; a content block (image, audio, resource, resource link)
 *   → one user message with it;
 * - a `{ role, content }` message, or an array mixing messages, strings and content blocks;
 * - an object with `messages` → passed through.
 * The decorator's description is added when the result has none.
 */
export function toGetPromptResult(
  returned: unknown,
  prompt: string,
  description: string | undefined,
): GetPromptResult {
  let result: GetPromptResult;
  if (
    typeof returned === 'object' &&
    returned !== null &&
    Array.isArray((returned as GetPromptResult).messages)
  ) {
    result = returned as GetPromptResult;
  } else if (Array.isArray(returned)) {
    result = { messages: returned.map((item) => toMessage(item, prompt)) };
  } else {
    result = { messages: [toMessage(returned, prompt)] };
  }
  if (description !== undefined && result.description === undefined) return { description, ...result };
  return result;
}
