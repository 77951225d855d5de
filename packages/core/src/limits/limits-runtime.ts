import { GantryError, LocalErrorCode, McpError } from '@gantry/protocol';
import type { ClusterLink } from '../cluster/cluster';
import type { ContextSession } from '../context/context-session';
import { McpContext } from '../context/mcp-context';
import type { ExecutionContext, HandlerKind } from '../execution/execution-context';
import type { CompiledPipeline } from '../execution/pipeline';
import { toolErrorResult } from '../execution/tool-result';
import { type Logger, silentLogger } from '../logger';
import { QueueFullError, Semaphore, type Slot } from './concurrency';
import { resolveIpv6Subnet } from './ip-key';
import { checkRateLimitOptions, checkTimeout } from './limit-checks';
import {
  CONCURRENCY_METADATA,
  type ConcurrencySpec,
  RATE_LIMIT_METADATA,
  TIMEOUT_METADATA,
} from './limit-decorators';
import type {
  LimitsOptions,
  RateLimitBackend,
  RateLimitBackendOptions,
  RateLimitOptions,
} from './limit-types';
import { byName, memoryRateLimiter, rateLimitKey } from './rate-limits';

/** JSON-RPC error codes of limits: for handlers that are not tools (prompts), and the in-flight caps. */
export const LimitErrorCode = {
  /** Over a rate limit; `data: { limit, retryAfterMs }`. */
  RateLimited: -32029,
  /** `@Timeout()` elapsed; `data: { timeoutMs }`. */
  TimedOut: -32028,
  /** `@Concurrency()`'s queue is full. */
  Busy: -32027,
  /** Over `limits.maxInflightPerSession` or `maxInflightPerPrincipal`; `data: { cap, limit }`. */
  TooManyInflight: -32026,
} as const;

/** The `_meta` key of a tool error answered over a rate limit: milliseconds until a point frees. */
export const RETRY_AFTER_META = 'io.gantry/retryAfterMs';

/** The application's limits: defaults, and the rate-limit backends (memory, or the cluster's). */
export class LimitsRuntime {
  readonly timeoutMs?: number;
  readonly rateLimit?: RateLimitOptions;
  readonly onBackendError: 'allow' | 'deny';
  /** The IPv6 prefix length of `by: 'ip'` keys. */
  readonly ipv6Subnet: number;
  private readonly backends = new Map<
    string,
    { backend: RateLimitBackend; points: number; duration: number }
  >();
  private readonly semaphores = new WeakMap<Function, Semaphore>();
  private failing = false;

  constructor(
    options: LimitsOptions = {},
    private readonly cluster?: ClusterLink,
    readonly logger: Logger = silentLogger,
  ) {
    if (options.timeoutMs !== undefined) checkTimeout(options.timeoutMs, 'limits.timeoutMs');
    if (options.rateLimit !== undefined) checkRateLimitOptions(options.rateLimit, 'limits.rateLimit');
    const onError = options.onBackendError ?? 'allow';
    if (onError !== 'allow' && onError !== 'deny')
      throw new TypeError(`limits.onBackendError must be 'allow' or 'deny', got ${String(onError)}`);
    this.timeoutMs = options.timeoutMs;
    this.rateLimit = options.rateLimit;
    this.onBackendError = onError;
    this.ipv6Subnet = resolveIpv6Subnet(options.ipv6Subnet, 'limits.ipv6Subnet');
  }

  /** One backend per namespace: handlers sharing a limit (a class's) share its counters. */
  backend(options: RateLimitBackendOptions): RateLimitBackend {
    const known = this.backends.get(options.keyPrefix);
    if (known) {
      if (known.points !== options.points || known.duration !== options.duration) {
        throw new GantryError(
          LocalErrorCode.InvalidDecorator,
          `Two rate limits share the name of ${options.keyPrefix} with different budgets ` +
            `(${known.points} per ${known.duration} s and ${options.points} per ${options.duration} s); give one its own name`,
        );
      }
      return known.backend;
    }
    const backend = this.cluster?.rateLimiter?.(options) ?? memoryRateLimiter(options);
    this.backends.set(options.keyPrefix, { backend, points: options.points, duration: options.duration });
    return backend;
  }

  /**
   * One semaphore per handler method, kept across recompilations of its pipeline (global
   * enhancers changing), so calls in flight keep their slots.
   */
  semaphore(handler: Function, spec: ConcurrencySpec): Semaphore {
    let semaphore = this.semaphores.get(handler);
    if (!semaphore) {
      semaphore = new Semaphore(spec.max, spec.queue);
      this.semaphores.set(handler, semaphore);
    }
    return semaphore;
  }

  /** @internal A backend answered again, or failed. */
  backendState(ok: boolean, error?: unknown): void {
    if (ok && this.failing) {
      this.failing = false;
      this.logger.info('The rate-limit store answers again');
    } else if (!ok && !this.failing) {
      this.failing = true;
      this.logger.warn(
        `The rate-limit store failed: calls are ${this.onBackendError === 'allow' ? 'allowed' : 'denied'} until it answers (limits.onBackendError)`,
        error,
      );
    }
  }
}

interface BoundLimit {
  readonly name: string;
  readonly options: RateLimitOptions;
  readonly backend: RateLimitBackend;
}

interface LimitedSpec {
  readonly kind: HandlerKind;
  readonly name: string;
  readonly handlerClass: Function;
  readonly handler: Function;
}

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<T>).then === 'function';
}

function seconds(ms: number): string {
  return (Math.ceil(ms / 100) / 10).toString();
}

/**
 * Wraps a compiled pipeline with the limits of its handler: rate limits (global → class →
 * method), then the concurrency slot, then the timeout. Tools and prompts only; a handler
 * without limits keeps its pipeline as it is.
 */
export function withLimits<Out>(
  pipeline: CompiledPipeline<Out>,
  spec: LimitedSpec,
  runtime: LimitsRuntime,
): CompiledPipeline<Out> {
  const { kind, name, handlerClass, handler } = spec;
  if (kind !== 'tool' && kind !== 'prompt') return pipeline;
  const timeoutMs: number | undefined =
    Reflect.getOwnMetadata(TIMEOUT_METADATA, handler) ??
    Reflect.getMetadata(TIMEOUT_METADATA, handlerClass) ??
    (kind === 'tool' ? runtime.timeoutMs : undefined);
  const limits: BoundLimit[] = [];
  const bind = (options: RateLimitOptions | undefined, fallback: string): void => {
    if (!options) return;
    const limitName = options.name ?? fallback;
    const backend = runtime.backend({
      keyPrefix: `rl:${limitName}:${byName(options)}`,
      points: options.points,
      duration: options.duration,
    });
    limits.push({ name: limitName, options, backend });
  };
  if (kind === 'tool') bind(runtime.rateLimit, 'global');
  bind(Reflect.getMetadata(RATE_LIMIT_METADATA, handlerClass), `class:${handlerClass.name}`);
  bind(Reflect.getOwnMetadata(RATE_LIMIT_METADATA, handler), `${kind}:${name}`);
  const concurrency: ConcurrencySpec | undefined =
    kind === 'tool' ? Reflect.getOwnMetadata(CONCURRENCY_METADATA, handler) : undefined;
  const semaphore = concurrency && runtime.semaphore(handler, concurrency);
  if (timeoutMs === undefined && limits.length === 0 && !semaphore) return pipeline;

  const label = kind === 'tool' ? `Tool '${name}'` : `Prompt '${name}'`;
  const refuse = (code: number, message: string, data: Record<string, unknown>, meta?: object): Out => {
    if (kind !== 'tool') throw new McpError(code, message, data);
    const result = toolErrorResult(message);
    return (meta ? { ...result, _meta: meta } : result) as Out;
  };

  const timed: CompiledPipeline<Out> =
    timeoutMs === undefined
      ? pipeline
      : (raw, inbound, session) => {
          const controller = new AbortController();
          const signal = AbortSignal.any([inbound.signal, controller.signal]);
          // The same request with a signal that also aborts when the time is up.
          const limited = Object.create(inbound, { signal: { value: signal } }) as typeof inbound;
          let timer: NodeJS.Timeout | undefined;
          const expired = new Promise<Out>((resolve, reject) => {
            timer = setTimeout(() => {
              const message = `${label} timed out after ${timeoutMs} ms`;
              controller.abort(new DOMException(message, 'TimeoutError'));
              try {
                resolve(refuse(LimitErrorCode.TimedOut, message, { timeoutMs }));
              } catch (error) {
                reject(error);
              }
            }, timeoutMs);
          });
          let returned: Out | Promise<Out>;
          try {
            returned = pipeline(raw, limited, session);
          } catch (error) {
            clearTimeout(timer);
            throw error;
          }
          if (!isThenable<Out>(returned)) {
            clearTimeout(timer);
            return returned;
          }
          const settled = Promise.resolve(returned);
          // What the handler answers after the timeout is dropped, failures included.
          settled.catch(() => undefined);
          return Promise.race([settled, expired]).finally(() => clearTimeout(timer));
        };

  const slotted: CompiledPipeline<Out> = !semaphore
    ? timed
    : (raw, inbound, session) => {
        let slot: Slot | Promise<Slot>;
        try {
          slot = semaphore.acquire(inbound.signal);
        } catch (error) {
          if (!(error instanceof QueueFullError)) throw error;
          return refuse(
            LimitErrorCode.Busy,
            `${label} is busy: ${semaphore.max} calls run and ${semaphore.queue} wait already; try again later`,
            { running: semaphore.max, queued: semaphore.queue },
          );
        }
        const run = (held: Slot): Out | Promise<Out> => {
          let returned: Out | Promise<Out>;
          try {
            returned = timed(raw, inbound, session);
          } catch (error) {
            held.release();
            throw error;
          }
          if (!isThenable<Out>(returned)) {
            held.release();
            return returned;
          }
          return Promise.resolve(returned).finally(() => held.release());
        };
        if (!isThenable<Slot>(slot)) return run(slot);
        return slot.then((held) => {
          // Cancelled in the turn its slot came free: the slot goes on to the next waiter.
          if (inbound.signal.aborted) {
            held.release();
            throw inbound.signal.reason;
          }
          return run(held);
        });
      };

  if (limits.length === 0) return slotted;
  return async (raw, inbound, session: ContextSession) => {
    const context: ExecutionContext = {
      kind,
      phase: 'call',
      name,
      args: raw,
      mcp: new McpContext(inbound, session),
      getClass: () => handlerClass,
      getHandler: () => handler,
    };
    for (const limit of limits) {
      let outcome: Awaited<ReturnType<RateLimitBackend['consume']>>;
      try {
        outcome = await limit.backend.consume(rateLimitKey(limit.options, context, runtime.ipv6Subnet));
        runtime.backendState(true);
      } catch (error) {
        runtime.backendState(false, error);
        if (runtime.onBackendError === 'allow') continue;
        outcome = { allowed: false, retryAfterMs: limit.options.duration * 1000 };
      }
      if (!outcome.allowed) {
        const { points, duration } = limit.options;
        const retryAfterMs = outcome.retryAfterMs;
        return refuse(
          LimitErrorCode.RateLimited,
          `Rate limit '${limit.name}' exceeded (${points} per ${duration} s): retry in ${seconds(retryAfterMs)} s`,
          { limit: limit.name, retryAfterMs },
          { [RETRY_AFTER_META]: retryAfterMs },
        );
      }
    }
    return slotted(raw, inbound, session);
  };
}
