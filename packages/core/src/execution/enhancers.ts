import type { Type } from '../di/tokens';
import type { ExecutionContext } from './execution-context';

/**
 * Decides whether a request may reach its handler. Returning false denies it; throwing an
 * error (e.g. an `McpError`) answers with that error. Guards also run when a list is served:
 * an item whose guard denies is hidden from that caller (`context.phase === 'list'`).
 */
export interface CanActivate {
  canActivate(context: ExecutionContext): boolean | Promise<boolean>;
}

/** Runs the rest of the pipeline (the next interceptor, then the handler). */
export interface CallHandler<T = unknown> {
  handle(): Promise<T>;
}

/**
 * Wraps a handler: runs code before and after it, transforms what it returns, or answers
 * without calling it. No RxJS: `next.handle()` returns a promise.
 *
 * @example
 * ```ts
 * class Timing implements Interceptor {
 *   async intercept(ctx: ExecutionContext, next: CallHandler) {
 *     const started = Date.now();
 *     try { return await next.handle(); } finally { log(ctx.name, Date.now() - started); }
 *   }
 * }
 * ```
 */
export interface Interceptor<T = unknown, R = unknown> {
  intercept(context: ExecutionContext, next: CallHandler<T>): R | Promise<R>;
}

/**
 * Turns an error thrown by a guard, an interceptor or the handler into an answer. Return a
 * value to answer with it as the handler's result (for a tool, e.g. a string or an
 * `isError` result); throw (e.g. an `McpError`) to answer with that error instead.
 * `@Catch(DomainError)` limits a filter to some error classes.
 */
export interface ExceptionFilter<E = unknown> {
  catch(error: E, context: ExecutionContext): unknown;
}

/** An enhancer given to `@UseGuards()` & co.: a class (built by the container) or an instance. */
export type EnhancerRef<T> = Type<T> | T;
