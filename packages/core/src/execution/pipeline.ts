import { type InboundRequest, InvalidParamsError } from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import { McpContext } from '../context/mcp-context';
import type { ValidationIssue, ValidationOutcome } from '../schema';
import { InputRequiredSignal } from '../stateless/input-round';
import type { PipelineSpans } from '../telemetry/detailed-spans';
import type { CallHandler, CanActivate, ExceptionFilter, Interceptor } from './enhancers';
import type { ExecutionContext, HandlerKind } from './execution-context';

/** An exception filter with the error classes it handles (`null`: every error). */
export interface BoundFilter {
  readonly filter: ExceptionFilter;
  readonly catches: readonly Function[] | null;
}

/** The enhancers that apply to one handler, outermost first (global → class → method). */
export interface ResolvedEnhancers {
  readonly guards: readonly CanActivate[];
  readonly interceptors: readonly Interceptor[];
  /** Nearest first (method → class → global). */
  readonly filters: readonly BoundFilter[];
}

export interface PipelineSpec<Out> {
  readonly kind: HandlerKind;
  readonly name: string;
  readonly handlerClass: Function;
  readonly handler: Function;
  readonly enhancers: ResolvedEnhancers;
  /** Validates and transforms the raw arguments; absent when the kind has nothing to validate. */
  readonly validate?: (raw: unknown) => ValidationOutcome | PromiseLike<ValidationOutcome>;
  /** The answer to arguments that failed validation (a tool error result, or a thrown error). */
  readonly onInvalid?: (issues: ValidationIssue[], raw: unknown) => Out;
  /** Calls the method with its arguments built from the validated value. */
  readonly invoke: (value: unknown, mcp: McpContext | undefined) => unknown;
  /** Maps what the method (or the interceptors) returned to the wire result; `value` is the validated input. */
  readonly map: (returned: unknown, value: unknown) => Out | PromiseLike<Out>;
  /**
   * What happens to an error no filter handled: rethrow, or turn it into a result. Told the
   * request and its session, for the log line it may write ({@link requestLogBindings}).
   */
  readonly onError: (error: unknown, inbound: InboundRequest, session: ContextSession) => Out;
  /** The method takes `@Ctx()`. */
  readonly needsContext: boolean;
  /** Spans around guards, validation and interceptors (`telemetry.detailedSpans`). */
  readonly spans?: PipelineSpans;
}

/** Runs one request through a compiled pipeline. */
export type CompiledPipeline<Out> = (
  raw: unknown,
  inbound: InboundRequest,
  session: ContextSession,
) => Out | Promise<Out>;

/** Access denied by a guard: answered like an unknown item, with a message that says why. */
export class AccessDeniedError extends InvalidParamsError {
  override name = 'AccessDeniedError';
}

export function accessDenied(kind: HandlerKind, name: string): AccessDeniedError {
  const what = kind === 'resource' ? `resource ${name}` : `${kind} '${name}'`;
  return new AccessDeniedError(`Access denied: ${what} is not available to this caller`, { [kind]: name });
}

class Context implements ExecutionContext {
  constructor(
    readonly kind: HandlerKind,
    readonly phase: 'call' | 'list',
    readonly name: string,
    public args: unknown,
    readonly mcp: McpContext,
    private readonly handlerClass: Function,
    private readonly handler: Function,
  ) {}
  getClass(): Function {
    return this.handlerClass;
  }
  getHandler(): Function {
    return this.handler;
  }
}

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<T>).then === 'function';
}

/** Runs guards in order; resolves to false at the first that denies. Sync when every guard is. */
export function runGuards(
  guards: readonly CanActivate[],
  context: ExecutionContext,
): boolean | Promise<boolean> {
  for (let i = 0; i < guards.length; i++) {
    const verdict = guards[i].canActivate(context);
    if (isThenable<boolean>(verdict)) {
      return Promise.resolve(verdict).then(async (allowed) => {
        if (!allowed) return false;
        for (let j = i + 1; j < guards.length; j++) if (!(await guards[j].canActivate(context))) return false;
        return true;
      });
    }
    if (!verdict) return false;
  }
  return true;
}

/**
 * Whether a guarded item is shown to the caller of a list request: its guards run with
 * `phase: 'list'` and no arguments.
 */
export function visibleInList(
  spec: Pick<PipelineSpec<unknown>, 'kind' | 'name' | 'handlerClass' | 'handler' | 'enhancers'>,
  inbound: InboundRequest,
  session: ContextSession,
): boolean | Promise<boolean> {
  const guards = spec.enhancers.guards;
  if (guards.length === 0) return true;
  const mcp = new McpContext(inbound, session);
  const context = new Context(spec.kind, 'list', spec.name, undefined, mcp, spec.handlerClass, spec.handler);
  // A guard that throws while a list is served hides its item; it does not fail the whole list.
  try {
    const verdict = runGuards(guards, context);
    return verdict instanceof Promise ? verdict.catch(() => false) : verdict;
  } catch {
    return false;
  }
}

/**
 * Compiles a handler's pipeline once: guards → argument validation → interceptors → handler →
 * result mapping, with exception filters around it all. Stages that are empty cost nothing: a
 * handler without enhancers runs validation, the method and the mapper, synchronously when
 * they are.
 */
export function compilePipeline<Out>(spec: PipelineSpec<Out>): CompiledPipeline<Out> {
  const { kind, name, handlerClass, handler, onInvalid, invoke, map, onError, spans } = spec;
  let guards = spec.enhancers.guards.length > 0 ? spec.enhancers.guards : null;
  let interceptors = spec.enhancers.interceptors.length > 0 ? spec.enhancers.interceptors : null;
  let validate = spec.validate;
  if (spans) {
    if (guards) guards = spans.guards(guards, kind, name);
    if (interceptors) interceptors = spans.interceptors(interceptors, kind, name);
    if (validate) validate = spans.validation(validate, kind, name);
  }
  const filters = spec.enhancers.filters.length > 0 ? spec.enhancers.filters : null;
  const needsContext = spec.needsContext || guards !== null || interceptors !== null || filters !== null;

  const fail = (
    error: unknown,
    context: Context | undefined,
    inbound: InboundRequest,
    session: ContextSession,
  ): Out => {
    // Stateless era: the call stops to ask the client for input; no filter or error mapping applies.
    if (error instanceof InputRequiredSignal) throw error;
    // A guard's denial is final: no filter may turn it into an answer.
    if (filters && context && !(error instanceof AccessDeniedError)) {
      for (const { filter, catches } of filters) {
        if (catches === null || catches.some((type) => error instanceof (type as new () => unknown))) {
          // A filter's answer is mapped like a handler's; what it throws is handled like a handler's error.
          let answer: unknown;
          try {
            answer = filter.catch(error, context);
          } catch (thrown) {
            return onError(thrown, inbound, session);
          }
          if (isThenable(answer)) {
            return Promise.resolve(answer).then(
              (value) => map(value, context.args),
              (thrown) => onError(thrown, inbound, session),
            ) as Out;
          }
          return map(answer, context.args) as Out;
        }
      }
    }
    return onError(error, inbound, session);
  };

  const settle = (
    returned: unknown,
    context: Context | undefined,
    input: unknown,
    inbound: InboundRequest,
    session: ContextSession,
  ): Out | Promise<Out> => {
    if (isThenable(returned)) {
      return Promise.resolve(returned).then(
        (value) => map(value, input),
        (error) => fail(error, context, inbound, session),
      ) as Promise<Out>;
    }
    let mapped: Out | PromiseLike<Out>;
    try {
      mapped = map(returned, input);
    } catch (error) {
      return fail(error, context, inbound, session);
    }
    if (isThenable<Out>(mapped))
      return Promise.resolve(mapped).catch((error) => fail(error, context, inbound, session));
    return mapped;
  };

  const intercepted = (value: unknown, context: Context, mcp: McpContext | undefined): unknown => {
    const chain = interceptors as readonly Interceptor[];
    const step = (index: number): Promise<unknown> => {
      if (index === chain.length) {
        try {
          return Promise.resolve(invoke(value, mcp));
        } catch (error) {
          return Promise.reject(error);
        }
      }
      const next: CallHandler = { handle: () => step(index + 1) };
      try {
        return Promise.resolve(chain[index].intercept(context, next));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return step(0);
  };

  const afterValidation = (
    outcome: ValidationOutcome,
    context: Context | undefined,
    mcp: McpContext | undefined,
    inbound: InboundRequest,
    session: ContextSession,
    raw?: unknown,
  ): Out | Promise<Out> => {
    if (!outcome.ok)
      return (onInvalid as (issues: ValidationIssue[], raw: unknown) => Out)(outcome.issues, raw);
    let returned: unknown;
    try {
      if (interceptors) {
        (context as Context).args = outcome.value;
        returned = intercepted(outcome.value, context as Context, mcp);
      } else {
        returned = invoke(outcome.value, mcp);
      }
    } catch (error) {
      return fail(error, context, inbound, session);
    }
    return settle(returned, context, outcome.value, inbound, session);
  };

  const afterGuards = (
    raw: unknown,
    context: Context | undefined,
    mcp: McpContext | undefined,
    inbound: InboundRequest,
    session: ContextSession,
  ): Out | Promise<Out> => {
    if (!validate) return afterValidation({ ok: true, value: raw }, context, mcp, inbound, session);
    const outcome = validate(raw);
    if (isThenable<ValidationOutcome>(outcome)) {
      return Promise.resolve(outcome).then((o) => afterValidation(o, context, mcp, inbound, session, raw));
    }
    return afterValidation(outcome, context, mcp, inbound, session, raw);
  };

  return (raw, inbound, session) => {
    if (!needsContext) return afterGuards(raw, undefined, undefined, inbound, session);
    const mcp = new McpContext(inbound, session);
    const context = new Context(kind, 'call', name, raw, mcp, handlerClass, handler);
    if (!guards) return afterGuards(raw, context, mcp, inbound, session);
    let verdict: boolean | Promise<boolean>;
    try {
      verdict = runGuards(guards, context);
    } catch (error) {
      return fail(error, context, inbound, session);
    }
    if (isThenable<boolean>(verdict)) {
      return Promise.resolve(verdict).then(
        (allowed) =>
          allowed
            ? afterGuards(raw, context, mcp, inbound, session)
            : fail(accessDenied(kind, name), context, inbound, session),
        (error) => fail(error, context, inbound, session),
      );
    }
    return verdict
      ? afterGuards(raw, context, mcp, inbound, session)
      : fail(accessDenied(kind, name), context, inbound, session);
  };
}
