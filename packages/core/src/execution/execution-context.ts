import type { McpContext } from '../context/mcp-context';

/** What kind of handler a request reaches. */
export type HandlerKind = 'tool' | 'resource' | 'prompt' | 'completion';

/**
 * One context for every kind of handler, given to guards, interceptors and exception
 * filters: which handler, with which arguments, for which request.
 */
export interface ExecutionContext {
  /** `tool`, `resource`, `prompt` or `completion`. */
  readonly kind: HandlerKind;
  /** `call` when a request runs the handler; `list` when a guard decides what a list shows. */
  readonly phase: 'call' | 'list';
  /** The tool or prompt name, or the resource URI (template); for completions, the prompt or template completed. */
  readonly name: string;
  /**
   * Tools and prompts: the arguments, raw (as sent) while guards run, validated and
   * transformed once interceptors and the handler run. Resources: `{ uri, variables }`.
   * Completions: `{ value, arguments }`. `undefined` in the list phase.
   */
  readonly args: unknown;
  /** The request context (session, client info and capabilities, auth, signal, …). */
  readonly mcp: McpContext;
  /** The class that declares the handler. */
  getClass(): Function;
  /** The handler method itself. */
  getHandler(): Function;
}
