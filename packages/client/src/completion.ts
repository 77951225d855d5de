// `completion/complete` (MCP 2025-11-25, Server › Utilities › Completion): the typed request
// of `Client.complete`, its checks of what the caller gives, and of what the server answers.
import type { Result } from '@gantry/protocol';
import { isObject, preview, protocolViolation } from './client-support';

/** What is being completed: a prompt (by name) or a resource template (by URI template). */
export type CompletionReference =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

/** The argument (prompt) or URI-template variable (resource) being completed, and what was typed so far. */
export interface CompletionArgument {
  name: string;
  value: string;
}

/** The arguments already given (MCP 2025-06-18+), so completions can depend on them. */
export interface CompletionRequestContext {
  arguments?: { [name: string]: string };
}

/** The server's suggestions: at most 100 `values`, the `total` there are, and whether more exist. */
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

const SIGNATURE = 'Client.complete(ref, argument, context?)';

/** The params of `completion/complete`, once checked; a TypeError names what is wrong. */
export function completionParams(
  ref: CompletionReference,
  argument: CompletionArgument,
  context: CompletionRequestContext | undefined,
): { [key: string]: unknown } {
  const refType = isObject(ref) ? ref.type : undefined;
  if (refType === 'ref/prompt' ? !isName((ref as { name?: unknown }).name) : refType !== 'ref/resource') {
    throw new TypeError(
      `${SIGNATURE}: ref must be { type: 'ref/prompt', name } or { type: 'ref/resource', uri }, got ${preview(ref)}`,
    );
  }
  if (refType === 'ref/resource' && !isName((ref as { uri?: unknown }).uri)) {
    throw new TypeError(`${SIGNATURE}: a ref/resource needs "uri", the URI template, got ${preview(ref)}`);
  }
  if (!isObject(argument) || !isName(argument.name) || typeof argument.value !== 'string') {
    throw new TypeError(
      `${SIGNATURE}: argument must be { name, value } with a non-empty name and a string value, got ${preview(argument)}`,
    );
  }
  const params: { [key: string]: unknown } = {
    ref: { ...ref },
    argument: { name: argument.name, value: argument.value },
  };
  if (context === undefined) return params;
  const given = isObject(context) ? context.arguments : undefined;
  const valid =
    isObject(context) &&
    (given === undefined ||
      (isObject(given) && !Array.isArray(given) && Object.values(given).every((v) => typeof v === 'string')));
  if (!valid) {
    throw new TypeError(
      `${SIGNATURE}: context must be { arguments?: { [name]: string } }, got ${preview(context)}`,
    );
  }
  if (given !== undefined) params.context = { arguments: { ...given } };
  return params;
}

/** The `completion` of a `completion/complete` result, once checked. */
export function completionOf(result: Result): Completion {
  const completion = result.completion;
  if (
    !isObject(completion) ||
    !Array.isArray(completion.values) ||
    !completion.values.every((value) => typeof value === 'string') ||
    (completion.total !== undefined && typeof completion.total !== 'number') ||
    (completion.hasMore !== undefined && typeof completion.hasMore !== 'boolean')
  ) {
    throw protocolViolation(
      `completion/complete answered without a "completion" of { values: string[], total?: number, hasMore?: boolean }: ${preview(result)}`,
    );
  }
  const answer: Completion = { values: completion.values as string[] };
  if (completion.total !== undefined) answer.total = completion.total as number;
  if (completion.hasMore !== undefined) answer.hasMore = completion.hasMore as boolean;
  return answer;
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
