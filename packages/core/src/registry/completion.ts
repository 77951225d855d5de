import type { InboundRequest } from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import type { McpContext } from '../context/mcp-context';
import type { CompiledHandler } from './compiled-handler';

/** The `completion` object of a `completion/complete` result. */
export interface CompletionValues {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** What a `@Complete` method receives besides the typed prefix. */
export interface CompletionContext {
  /** The argument (or template variable) being completed. */
  readonly argument: string;
  /** Arguments the user already gave (2025-06-18+ `context.arguments`); empty otherwise. */
  readonly arguments: Readonly<Record<string, string>>;
  readonly mcp: McpContext;
}

/** The raw input of a completion pipeline. */
export interface CompletionRequest {
  readonly value: string;
  readonly arguments: Readonly<Record<string, string>>;
}

/** A completer: static values from a decorator, or a `@Complete` method's compiled pipeline. */
export type Completer =
  | { readonly kind: 'static'; readonly values: readonly string[] }
  | { readonly kind: 'method'; readonly source: string; readonly handler: CompiledHandler<CompletionValues> };

/** The spec's cap on values per completion result. */
export const MAX_COMPLETION_VALUES = 100;

/** Normalizes what a completer returned: at most 100 values, with `total` and `hasMore`. */
export function toCompletionValues(returned: unknown, source: string): CompletionValues {
  const given: CompletionValues | null = Array.isArray(returned)
    ? { values: returned }
    : (returned as CompletionValues | null);
  if (!given || !Array.isArray(given.values) || !given.values.every((v) => typeof v === 'string')) {
    throw new TypeError(
      `${source} must return an array of strings or { values: string[], total?, hasMore? }`,
    );
  }
  const values = given.values.slice(0, MAX_COMPLETION_VALUES);
  const total = given.total ?? given.values.length;
  const hasMore = given.hasMore ?? given.values.length > MAX_COMPLETION_VALUES;
  const result: CompletionValues = { values, total };
  if (hasMore) result.hasMore = true;
  return result;
}

/** Static values that start with the typed prefix (case-insensitive), in their declared order. */
export function completeStatic(values: readonly string[], prefix: string): CompletionValues {
  const lower = prefix.toLowerCase();
  return toCompletionValues(
    values.filter((v) => v.toLowerCase().startsWith(lower)),
    'static completion',
  );
}

/** Runs a completer. */
export function runCompleter(
  completer: Completer,
  request: CompletionRequest,
  inbound: InboundRequest,
  session: ContextSession,
): CompletionValues | Promise<CompletionValues> {
  if (completer.kind === 'static') return completeStatic(completer.values, request.value);
  return completer.handler.run(request, inbound, session);
}
