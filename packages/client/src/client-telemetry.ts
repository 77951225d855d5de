import { McpError, Method, type RequestId, type RequestOptions, type Result } from '@gantry/protocol';
import {
  context,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

let tracerProvider: TracerProvider | undefined;
let tracer: Tracer | undefined;

/** The client's tracer, taken again when the global provider was replaced (`trace.disable()`). */
function clientTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== tracerProvider || tracer === undefined) {
    tracerProvider = provider;
    tracer = provider.getTracer('@gantry/client');
  }
  return tracer;
}
const CLIENT_SPAN: SpanOptions = Object.freeze({ kind: SpanKind.CLIENT });
/** The API's no-op provider: what the global proxy delegates to until an SDK registers. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Where `@opentelemetry/api` 1.x keeps what was registered with it: a `globalThis` property
 * created on the first registration of anything. Absent, every global is the API's no-op.
 */
const API_REGISTRY = Symbol.for('opentelemetry.js.api.1');

/** True when an SDK registered a tracer provider: otherwise requests go out untouched. */
function tracing(): boolean {
  if ((globalThis as Record<symbol, unknown>)[API_REGISTRY] === undefined) return false;
  const global = trace.getTracerProvider();
  return !(global instanceof ProxyTracerProvider) || global.getDelegate() !== NOOP_TRACER_PROVIDER;
}

type Params = { [key: string]: unknown } | undefined;

/**
 * Sends one request inside a CLIENT span (semantic-conventions-genai, docs/gen-ai/mcp.md
 * §Client): named `{mcp.method.name} {target}`, with the span's context injected into
 * `params._meta` (`traceparent`, `tracestate`), so the server's span is its child. Every round of
 * a stateless-era `input_required` request goes out from the same span. Without an SDK the
 * request is sent as it is.
 */
export function tracedRequest<T extends Result, O extends RequestOptions>(
  method: string,
  params: Params,
  options: O,
  send: (params: Params, options: O) => Promise<T>,
): Promise<T> {
  if (!tracing()) return send(params, options);
  const name = typeof params?.name === 'string' ? params.name : undefined;
  const spanName =
    name !== undefined && (method === Method.ToolsCall || method === Method.PromptsGet)
      ? `${method} ${name}`
      : method;
  const span = clientTracer().startSpan(spanName, CLIENT_SPAN);
  const ctx = trace.setSpan(context.active(), span);
  let traced = options;
  if (span.isRecording()) {
    span.setAttribute('mcp.method.name', method);
    if (method === Method.ToolsCall && name !== undefined) {
      span.setAttribute('gen_ai.tool.name', name);
      span.setAttribute('gen_ai.operation.name', 'execute_tool');
    } else if (method === Method.PromptsGet && name !== undefined) {
      span.setAttribute('gen_ai.prompt.name', name);
    } else if (typeof params?.uri === 'string') {
      span.setAttribute('mcp.resource.uri', params.uri);
    }
    const onId = options.onId;
    traced = {
      ...options,
      onId: (id: RequestId) => {
        span.setAttribute('jsonrpc.request.id', String(id));
        onId?.(id);
      },
    };
  }
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  const meta = params?._meta as Record<string, unknown> | undefined;
  const sent = carrier.traceparent === undefined ? params : { ...params, _meta: { ...meta, ...carrier } };
  return context
    .with(ctx, () => send(sent, traced))
    .then(
      (result) => {
        if (method === Method.ToolsCall && (result as { isError?: unknown }).isError === true)
          failed(span, 'tool_error');
        span.end();
        return result;
      },
      (error: unknown) => {
        if (error instanceof McpError) failed(span, String(error.code), String(error.code), error.message);
        else
          failed(span, error instanceof Error ? error.constructor.name : '_OTHER', undefined, String(error));
        span.end();
        throw error;
      },
    );
}

function failed(span: Span, type: string, code?: string, message?: string): void {
  span.setAttribute('error.type', type);
  if (code !== undefined) span.setAttribute('rpc.response.status_code', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
