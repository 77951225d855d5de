// An OpenTelemetry SDK for tests: spans into memory (or any exporter), the async-hooks context
// manager and the W3C propagator, registered globally as an application's operator would.
import { context, ROOT_CONTEXT, type SpanContext, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TestTracing {
  readonly exporter: InMemorySpanExporter;
  readonly provider: NodeTracerProvider;
  /** Finished spans named `name`. */
  spans(name?: string): ReadableSpan[];
  /** The one finished span named `name`; fails the test when there is not exactly one. */
  span(name: string): ReadableSpan;
  /** The one finished SERVER span named `name`. */
  server(name: string): ReadableSpan;
  /** The one finished CLIENT span named `name`. */
  client(name: string): ReadableSpan;
  shutdown(): Promise<void>;
}

function one(spans: ReadableSpan[], what: string, all: ReadableSpan[]): ReadableSpan {
  if (spans.length === 1) return spans[0];
  throw new Error(
    `Expected one ${what}, found ${spans.length}; spans: ${all.map((s) => `${s.name} (${SpanKind[s.kind]})`).join(', ')}`,
  );
}

/** Registers a tracer provider whose spans go to memory (and to `also`, when given). */
export function registerTracing(also?: SpanExporter): TestTracing {
  const exporter = new InMemorySpanExporter();
  const spanProcessors = [new SimpleSpanProcessor(exporter)];
  if (also) spanProcessors.push(new SimpleSpanProcessor(also));
  const provider = new NodeTracerProvider({ spanProcessors });
  provider.register();
  const spans = (name?: string) =>
    exporter.getFinishedSpans().filter((span) => name === undefined || span.name === name);
  return {
    exporter,
    provider,
    spans,
    span: (name) => one(spans(name), `span named "${name}"`, spans()),
    server: (name) =>
      one(
        spans(name).filter((s) => s.kind === SpanKind.SERVER),
        `SERVER span named "${name}"`,
        spans(),
      ),
    client: (name) =>
      one(
        spans(name).filter((s) => s.kind === SpanKind.CLIENT),
        `CLIENT span named "${name}"`,
        spans(),
      ),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** A remote caller's span context: what a `traceparent` from outside the process stands for. */
export function remoteParent(
  traceId = '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId = '00f067aa0ba902b7',
): {
  readonly context: SpanContext;
  readonly traceparent: string;
  run<T>(fn: () => T): T;
} {
  const spanContext: SpanContext = { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
  return {
    context: spanContext,
    traceparent: `00-${traceId}-${spanId}-01`,
    run: (fn) => context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), fn),
  };
}

/** The parent span id of a finished span (SDK 2.x `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
