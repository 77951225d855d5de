import {
  type Context,
  context,
  isSpanContextValid,
  type Link,
  propagation,
  type SpanContext,
  type TextMapGetter,
  TraceFlags,
  trace,
} from '@opentelemetry/api';

/**
 * Trace context travels in `params._meta` (semantic-conventions-genai, docs/gen-ai/mcp.md
 * §Context propagation; MCP SEP-414): the W3C keys `traceparent`, `tracestate` and `baggage`,
 * unprefixed.
 */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** The context a request's span starts from: the caller's, from `_meta`, when it sent one. */
export function contextFromMeta(meta: Record<string, unknown> | undefined): Context {
  const active = context.active();
  if (meta === undefined || meta === null || typeof meta !== 'object') return active;
  // Nothing to extract: skip the propagator (and what it allocates) on the common path.
  if (meta.traceparent === undefined && meta.baggage === undefined) return active;
  return propagation.extract(active, meta, META_GETTER);
}

/**
 * `params` with the active span's context injected into `_meta`, for a request the server
 * sends from inside a handler (elicitation, sampling, roots) or the client sends: the other
 * side's span becomes its child. The same object when there is no valid span to propagate.
 */
export function withTraceContext<P extends Record<string, unknown> | undefined>(params: P): P {
  const active = context.active();
  const span = trace.getSpan(active);
  if (span === undefined || !isSpanContextValid(span.spanContext())) return params;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  if (carrier.traceparent === undefined) return params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...meta, ...carrier } } as P;
}

/**
 * A compact reference to the active span (`traceId-spanId-flags`), for state that outlives the
 * request (an `input_required` round's `requestState`); undefined without a valid span.
 */
export function activeSpanReference(): string | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!isSpanContextValid(span.spanContext())) return undefined;
  return `${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

const REFERENCE = /^([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Links the active span to the span `reference` names (from {@link activeSpanReference}):
 * a retry's span points at the round that asked for input. Ignores a malformed reference.
 */
export function linkActiveSpanTo(reference: unknown): void {
  if (typeof reference !== 'string') return;
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return;
  const match = REFERENCE.exec(reference);
  if (!match) return;
  const linked: SpanContext = {
    traceId: match[1],
    spanId: match[2],
    traceFlags: Number.parseInt(match[3], 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  if (!isSpanContextValid(linked)) return;
  const link: Link = { context: linked, attributes: { 'gantry.link.kind': 'input_required.round' } };
  span.addLink(link);
}
