import type { InboundRequest } from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import type { CanActivate, Interceptor } from '../execution/enhancers';
import {
  type BoundFilter,
  type CompiledPipeline,
  compilePipeline,
  type PipelineSpec,
  type ResolvedEnhancers,
  visibleInList,
} from '../execution/pipeline';
import { LimitsRuntime, withLimits } from '../limits/limits-runtime';
import type { PipelineSpans } from '../telemetry/detailed-spans';

/** Enhancers registered on the application (`app.useGlobalGuards()` & co.). */
export class GlobalEnhancers {
  /** Bumped on every change, so handlers recompile their pipeline on their next call. */
  version = 0;
  readonly guards: CanActivate[] = [];
  readonly interceptors: Interceptor[] = [];
  readonly filters: BoundFilter[] = [];
  /** Set when the application asked for detailed spans (`telemetry.detailedSpans`). */
  spans?: PipelineSpans;
  /** Timeouts, rate limits and concurrency (`limits` of `GantryFactory.create`). */
  limits = new LimitsRuntime();

  add(kind: 'guards', items: CanActivate[]): void;
  add(kind: 'interceptors', items: Interceptor[]): void;
  add(kind: 'filters', items: BoundFilter[]): void;
  add(kind: 'guards' | 'interceptors' | 'filters', items: unknown[]): void {
    (this[kind] as unknown[]).push(...items);
    this.version++;
  }
}

/** The enhancers a handler's class and method declare, already resolved to instances. */
export interface LocalEnhancers {
  readonly guards: readonly CanActivate[];
  readonly interceptors: readonly Interceptor[];
  /** Nearest first: method filters, then class filters. */
  readonly filters: readonly BoundFilter[];
}

/**
 * A handler with its compiled pipeline. The pipeline is compiled at bootstrap and again only
 * if global enhancers change; a call checks one number to know.
 */
export class CompiledHandler<Out> {
  private pipeline?: CompiledPipeline<Out>;
  private compiledAt = -1;
  private merged?: ResolvedEnhancers;

  constructor(
    private readonly spec: Omit<PipelineSpec<Out>, 'enhancers'>,
    private readonly local: LocalEnhancers,
    private readonly globals: GlobalEnhancers,
  ) {
    this.compile();
  }

  /** Runs one request through the pipeline. */
  run(raw: unknown, inbound: InboundRequest, session: ContextSession): Out | Promise<Out> {
    if (this.compiledAt !== this.globals.version) this.compile();
    return (this.pipeline as CompiledPipeline<Out>)(raw, inbound, session);
  }

  /** True when any guard (global or own) applies: list results then depend on the caller. */
  get guarded(): boolean {
    return this.globals.guards.length > 0 || this.local.guards.length > 0;
  }

  /** Whether a list shows this handler to the caller (its guards, in the list phase). */
  visible(inbound: InboundRequest, session: ContextSession): boolean | Promise<boolean> {
    if (this.compiledAt !== this.globals.version) this.compile();
    return visibleInList({ ...this.spec, enhancers: this.merged as ResolvedEnhancers }, inbound, session);
  }

  private compile(): void {
    const globals = this.globals;
    this.merged = {
      guards: [...globals.guards, ...this.local.guards],
      interceptors: [...globals.interceptors, ...this.local.interceptors],
      filters: [...this.local.filters, ...globals.filters],
    };
    this.pipeline = withLimits(
      compilePipeline({ ...this.spec, enhancers: this.merged, spans: globals.spans }),
      this.spec,
      globals.limits,
    );
    this.compiledAt = globals.version;
  }
}
