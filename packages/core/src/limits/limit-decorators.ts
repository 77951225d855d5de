import { decoratorError, memberName } from '../decorators/decorator-error';
import { checkRateLimitOptions, checkTimeout } from './limit-checks';
import type { RateLimitOptions } from './limit-types';

export const TIMEOUT_METADATA = Symbol('gantry:timeout');
export const RATE_LIMIT_METADATA = Symbol('gantry:rate-limit');
export const CONCURRENCY_METADATA = Symbol('gantry:concurrency');

/** `@Concurrency()` options. */
export interface ConcurrencyOptions {
  /** Calls that may wait for a slot, first in first out; default 16 × n. A call finding it full fails at once. */
  readonly queue?: number;
}

/** @internal */
export interface ConcurrencySpec {
  readonly max: number;
  readonly queue: number;
}

function classOrMethod(
  decorator: string,
  key: symbol,
  value: unknown,
  allowClass: boolean,
): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (propertyKey === undefined) {
      if (!allowClass) throw decoratorError(`${decorator} applies to tool methods, not classes`);
      Reflect.defineMetadata(key, value, target);
      return;
    }
    if (typeof target === 'function') {
      throw decoratorError(
        `${decorator} on ${memberName(target, propertyKey)}: handlers are instance methods, not static ones`,
      );
    }
    const method = descriptor?.value;
    if (typeof method !== 'function')
      throw decoratorError(`${decorator} on ${memberName(target, propertyKey)}: not a method`);
    // Kept on the function itself: the compiled handler knows its method, not its property key.
    Reflect.defineMetadata(key, value, method);
  }) as ClassDecorator & MethodDecorator;
}

/**
 * Aborts `ctx.signal` after `ms` milliseconds and answers a tool error
 * (`Tool '<name>' timed out after <ms> ms`); whatever the handler returns later is dropped.
 * On a class, applies to each of its handlers; a method's wins over its class's.
 *
 * @example
 * ```ts
 * @Timeout(5_000)
 * @Tool() async fetchReport(@Ctx() ctx: McpContext) { return fetch(url, { signal: ctx.signal }); }
 * ```
 */
export function Timeout(ms: number): ClassDecorator & MethodDecorator {
  checkTimeout(ms, '@Timeout()');
  return classOrMethod('@Timeout()', TIMEOUT_METADATA, ms, true);
}

/**
 * At most `points` calls per `duration` seconds per key (`by`, default `principal`). On a
 * class, one budget is shared by every handler of the class. Over the limit, a tool answers
 * a tool error with `_meta['io.gantry/retryAfterMs']`, a prompt a JSON-RPC error −32029 with
 * `data.retryAfterMs`.
 *
 * @example
 * ```ts
 * @RateLimit({ points: 10, duration: 60, by: 'session' })
 * @Tool() search(@Args() args: SearchArgs) {}
 * ```
 */
export function RateLimit(options: RateLimitOptions): ClassDecorator & MethodDecorator {
  checkRateLimitOptions(options, '@RateLimit()');
  return classOrMethod('@RateLimit()', RATE_LIMIT_METADATA, Object.freeze({ ...options }), true);
}

/**
 * At most `max` calls of this tool run at once on this node; others wait in a bounded
 * first-in-first-out queue (`queue`, default 16 × max). A call finding the queue full answers
 * a tool error at once; a call cancelled while it waits leaves the queue.
 *
 * @example
 * ```ts
 * @Concurrency(2, { queue: 10 })
 * @Tool() render(@Args() args: RenderArgs) {}
 * ```
 */
export function Concurrency(max: number, options: ConcurrencyOptions = {}): MethodDecorator {
  if (!Number.isInteger(max) || max < 1)
    throw decoratorError(`@Concurrency(n): n must be an integer ≥ 1, got ${String(max)}`);
  const queue = options.queue ?? 16 * max;
  if (!Number.isInteger(queue) || queue < 0)
    throw decoratorError(`@Concurrency(n, { queue }): queue must be an integer ≥ 0, got ${String(queue)}`);
  const spec: ConcurrencySpec = Object.freeze({ max, queue });
  return classOrMethod('@Concurrency()', CONCURRENCY_METADATA, spec, false);
}
