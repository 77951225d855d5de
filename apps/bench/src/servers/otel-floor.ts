// The least any MCP server instrumented as semantic-conventions-genai (docs/gen-ai/mcp.md,
// §Server) asks of OpenTelemetry per request, hand-written into the floors: a SERVER span named
// `{mcp.method.name} {target}` with the method, request id, tool and transport attributes,
// active while the request is answered, ended after; and one `mcp.server.operation.duration`
// point with the method, tool, transport and protocol version. With GANTRY_BENCH_OTEL=sdk the
// SDK of ./otel-sdk.ts is registered and this is what the floor does; otherwise nothing is.
// The observability section sets the floors beside Gantry: what Gantry adds per request over
// this is Gantry's own cost, the rest is the SDK's.
import { context, metrics, SpanKind, trace } from '@opentelemetry/api';
import { OTEL_MODE_ENV } from './otel-mode';

/** What a floor knows of one request. */
export interface FloorRequest {
  readonly id: unknown;
  readonly method: string;
  readonly tool?: string;
  readonly protocolVersion?: string;
}

/** Runs `answer` for `request`, instrumented when the SDK is on. */
export type FloorInstrumentation = <T>(request: FloorRequest, answer: () => T) => T;

const bare: FloorInstrumentation = (_request, answer) => answer();

/** The floor's instrumentation for this process (`transport`: `pipe` or `tcp`). */
export async function floorInstrumentation(transport: 'pipe' | 'tcp'): Promise<FloorInstrumentation> {
  const mode = process.env[OTEL_MODE_ENV];
  if (mode !== 'sdk') return bare;
  const { registerDroppingSdk } = await import('./otel-sdk.js');
  registerDroppingSdk();
  const tracer = trace.getTracer('bench-floor');
  const duration = metrics
    .getMeter('bench-floor')
    .createHistogram('mcp.server.operation.duration', { unit: 's' });
  const protocol = transport === 'tcp' ? { 'network.protocol.name': 'http' } : {};
  return (request, answer) => {
    const started = performance.now();
    const target = request.tool === undefined ? {} : { 'gen_ai.tool.name': request.tool };
    const span = tracer.startSpan(
      request.tool === undefined ? request.method : `${request.method} ${request.tool}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': request.method,
          'jsonrpc.request.id': String(request.id),
          'network.transport': transport,
          ...protocol,
          ...target,
        },
      },
    );
    try {
      return context.with(trace.setSpan(context.active(), span), answer);
    } finally {
      span.end();
      duration.record((performance.now() - started) / 1000, {
        'mcp.method.name': request.method,
        'network.transport': transport,
        ...protocol,
        ...target,
        ...(request.protocolVersion === undefined ? {} : { 'mcp.protocol.version': request.protocolVersion }),
      });
    }
  };
}
