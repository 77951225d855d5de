import { context, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { CanActivate, Interceptor } from '../execution/enhancers';
import type { HandlerKind } from '../execution/execution-context';
import type { TelemetryOptions } from './telemetry-options';

/**
 * The optional spans inside a handler's span (`telemetry.detailedSpans`): one per guard, one for
 * argument validation, one per interceptor (around what it wraps). Applied when a pipeline is
 * compiled, by wrapping its stages; without the option nothing is wrapped and nothing is paid.
 */
export interface PipelineSpans {
  guards(guards: readonly CanActivate[], kind: HandlerKind, name: string): CanActivate[];
  validation<A, R>(validate: (raw: A) => R, kind: HandlerKind, name: string): (raw: A) => R;
  interceptors(interceptors: readonly Interceptor[], kind: HandlerKind, name: string): Interceptor[];
}

/** The detailed spans the options ask for, if any. */
export function detailedSpansOf(options: TelemetryOptions | undefined): PipelineSpans | undefined {
  if (options?.detailedSpans !== true || options.enabled === false) return undefined;
  const given = options.tracerProvider;
  // Taken on use, so that it follows the global provider (see ServerTelemetry's tracer).
  return pipelineSpans({
    startSpan: (...args) => (given ?? trace.getTracerProvider()).getTracer('@gantry/core').startSpan(...args),
  });
}

/** The detailed spans of handlers, made by `tracer`. */
export function pipelineSpans(tracer: Pick<Tracer, 'startSpan'>): PipelineSpans {
  const inSpan = <R>(spanName: string, kind: HandlerKind, name: string, run: () => R): R => {
    const span = tracer.startSpan(spanName, {
      attributes: { 'gantry.handler.kind': kind, 'gantry.handler.name': name },
    });
    let outcome: R;
    try {
      outcome = context.with(trace.setSpan(context.active(), span), run);
    } catch (error) {
      fail(span, error);
      throw error;
    }
    if (outcome !== null && typeof (outcome as PromiseLike<unknown>)?.then === 'function') {
      return Promise.resolve(outcome).then(
        (value) => {
          span.end();
          return value;
        },
        (error) => {
          fail(span, error);
          throw error;
        },
      ) as R;
    }
    span.end();
    return outcome;
  };
  return {
    guards: (guards, kind, name) =>
      guards.map((guard) => ({
        canActivate: (ctx) =>
          inSpan(`guard ${guard.constructor.name}`, kind, name, () => guard.canActivate(ctx)),
      })),
    validation: (validate, kind, name) => (raw) =>
      inSpan('validate arguments', kind, name, () => validate(raw)),
    interceptors: (interceptors, kind, name) =>
      interceptors.map((interceptor) => ({
        intercept: (ctx, next) =>
          inSpan(`interceptor ${interceptor.constructor.name}`, kind, name, () =>
            interceptor.intercept(ctx, next),
          ),
      })),
  };
}

function fail(span: Span, error: unknown): void {
  span.setAttribute('error.type', error instanceof Error ? error.constructor.name : '_OTHER');
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
  span.end();
}
