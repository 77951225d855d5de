import {
  ErrorCode,
  isStatelessRequest,
  type JSONRPCRequest,
  type JSONRPCResponse,
  MetaKey,
  Method,
  type Result,
} from '@gantry/protocol';
import {
  type Attributes,
  type Context,
  context,
  createNoopMeter,
  type MeterProvider,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { AttributeCache, type KnownName, OTHER_METHOD, operationAttributes } from './attribute-cache';
import {
  Attr,
  type Failure,
  failureOfError,
  failureOfResponse,
  type RequestTarget,
  TOOL_ERROR,
  type TransportInfo,
  transportAttributes,
} from './attributes';
import { ServerMetrics, type StreamKind } from './metrics';
import { contextFromMeta } from './propagation';
import type { TelemetryOptions } from './telemetry-options';

/** The instrumentation scope of Gantry's spans and metrics. */
export const TELEMETRY_SCOPE = '@gantry/core';

const SERVER_SPAN: SpanOptions = Object.freeze({ kind: SpanKind.SERVER });

/** The API's no-op provider: what the global proxy delegates to until an SDK registers. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Stands in for the meter provider of an app whose telemetry is off (`enabled: false`). */
const OFF_METER_PROVIDER: MeterProvider = Object.freeze({ getMeter: () => createNoopMeter() });

/**
 * Where `@opentelemetry/api` 1.x keeps what was registered with it (`trace`, `metrics`,
 * `context`, `propagation`, `diag`): a `globalThis` property the API creates on the first
 * registration of any of them, and shared by every copy of the API of that major version.
 */
const API_REGISTRY = Symbol.for('opentelemetry.js.api.1');

/** True while nothing was ever registered with the API: every global is its no-op. */
function nothingRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[API_REGISTRY] === undefined;
}

/** What a connection (or exchange) gives the spans of its requests, built once per connection. */
export interface ConnectionTelemetry {
  /** `network.*`. */
  readonly attributes: Readonly<Attributes>;
  /** `mcp.session.id`, for session-era requests. */
  readonly sessionId?: string;
}

/** Makes the telemetry of a connection from what its transport said. */
export function connectionTelemetry(transport: TransportInfo | undefined): ConnectionTelemetry {
  return { attributes: transportAttributes(transport), sessionId: transport?.sessionId };
}

/** Where the protocol version of a session-era request is read once it was served (initialize sets it). */
interface VersionSource {
  readonly protocolVersion: string;
}

/** One request being served: its span (when traced) and when it began (when measured). */
interface Operation {
  readonly request: JSONRPCRequest;
  readonly connection: ConnectionTelemetry;
  readonly session: VersionSource | undefined;
  readonly span: Span | undefined;
  readonly measured: boolean;
  readonly started: number;
  readonly target: RequestTarget;
}

/**
 * The server side of Gantry's OpenTelemetry instrumentation (semantic-conventions-genai,
 * docs/gen-ai/mcp.md §Server): a SERVER span per MCP request, named `{mcp.method.name} {target}`,
 * whose parent is the caller's context from `params._meta`, with the handler running inside it;
 * and `mcp.server.operation.duration`. Without an SDK, `active` is false and requests are served
 * as if this did not exist.
 */
export class ServerTelemetry {
  readonly metrics: ServerMetrics;
  private readonly ownTracer: boolean;
  private readonly off: boolean;
  /** A tracer or meter provider was given in the options. */
  private readonly explicit: boolean;
  private readonly cache: AttributeCache;
  private tracerProvider?: TracerProvider;
  private cachedTracer?: Tracer;

  /** `known`: whether the server has a tool or prompt, so that made-up names stay off metrics. */
  constructor(
    private readonly options: TelemetryOptions = {},
    private readonly version?: string,
    known?: KnownName,
  ) {
    this.off = options.enabled === false;
    this.ownTracer = options.tracerProvider !== undefined;
    this.explicit = this.ownTracer || options.meterProvider !== undefined;
    this.metrics = new ServerMetrics(this.off ? OFF_METER_PROVIDER : options.meterProvider);
    this.cache = new AttributeCache(options.resourceUriInSpanName === true, known);
  }

  /**
   * Gantry's tracer. The global provider is a proxy that follows an SDK registered later, but is
   * itself replaced by `trace.disable()`: the tracer is taken again when the provider changed.
   */
  private get tracer(): Tracer {
    const provider = this.options.tracerProvider ?? trace.getTracerProvider();
    if (provider !== this.tracerProvider || this.cachedTracer === undefined) {
      this.tracerProvider = provider;
      this.cachedTracer = provider.getTracer(TELEMETRY_SCOPE, this.version);
    }
    return this.cachedTracer;
  }

  /** True when spans go somewhere: a provider was given, or an SDK registered a global one. */
  get tracing(): boolean {
    if (this.off) return false;
    if (this.ownTracer) return true;
    const global = trace.getTracerProvider();
    return !(global instanceof ProxyTracerProvider) || global.getDelegate() !== NOOP_TRACER_PROVIDER;
  }

  /**
   * Whether requests need instrumenting at all. Without an SDK, and without providers given in
   * the options, one property read: until anything registers with the API, the global tracer and
   * meter providers are the API's no-ops.
   */
  get active(): boolean {
    if (this.off) return false;
    if (!this.explicit && nothingRegistered()) return false;
    return this.tracing || this.metrics.refresh();
  }

  /**
   * Serves a request inside its span (the call to `run`), ending the span and recording the
   * duration when it settles. Synchronous results stay synchronous.
   */
  serve(
    request: JSONRPCRequest,
    connection: ConnectionTelemetry,
    session: VersionSource | undefined,
    run: () => Result | Promise<Result>,
  ): Result | Promise<Result> {
    const [operation, ctx] = this.begin(request, connection, session);
    let outcome: Result | Promise<Result>;
    try {
      outcome = ctx === undefined ? run() : context.with(ctx, run);
    } catch (error) {
      this.end(operation, failureOfError(error));
      throw error;
    }
    if (!(outcome instanceof Promise)) {
      this.end(operation, resultFailure(request.method, outcome));
      return outcome;
    }
    return outcome.then(
      (result) => {
        this.end(operation, resultFailure(request.method, result));
        return result;
      },
      (error) => {
        this.end(operation, failureOfError(error));
        throw error;
      },
    );
  }

  /** `serve` for a single-use exchange, which resolves with the response (an error included). */
  serveExchange(
    request: JSONRPCRequest,
    connection: ConnectionTelemetry,
    run: () => Promise<JSONRPCResponse | undefined>,
  ): Promise<JSONRPCResponse | undefined> {
    const [operation, ctx] = this.begin(request, connection, undefined);
    const outcome = ctx === undefined ? run() : context.with(ctx, run);
    return outcome.then((response) => {
      if (response === undefined) this.end(operation, CANCELLED);
      else if ('error' in response) this.end(operation, failureOfResponse(response.error));
      else this.end(operation, resultFailure(request.method, response.result));
      return response;
    });
  }

  /** A session-era connection opened (`gantry.server.sessions.active`). */
  sessionOpened(): void {
    this.metrics.sessionOpened();
  }

  /** A session-era connection closed: `mcp.server.session.duration`. */
  sessionClosed(seconds: number, connection: ConnectionTelemetry, protocolVersion: string): void {
    const attributes: Attributes = { ...connection.attributes };
    if (protocolVersion !== '') attributes[Attr.McpProtocolVersion] = protocolVersion;
    this.metrics.sessionClosed(seconds, attributes);
  }

  /** Reports the tasks running on this node as `gantry.server.tasks.active`. */
  observeTasks(running: () => number): void {
    this.metrics.runningTasks = running;
  }

  streamOpened(kind: StreamKind): void {
    this.metrics.streamOpened(kind);
  }

  streamClosed(kind: StreamKind): void {
    this.metrics.streamClosed(kind);
  }

  private begin(
    request: JSONRPCRequest,
    connection: ConnectionTelemetry,
    session: VersionSource | undefined,
  ): [Operation, Context | undefined] {
    const measured = this.metrics.refresh();
    const params = request.params;
    const target = this.cache.target(request.method, params);
    let span: Span | undefined;
    let ctx: Context | undefined;
    if (this.tracing) {
      const parent = contextFromMeta(params?._meta);
      span = this.tracer.startSpan(target.spanName, SERVER_SPAN, parent);
      ctx = trace.setSpan(parent, span);
      if (span.isRecording()) {
        span.setAttributes(connection.attributes);
        span.setAttribute(Attr.McpMethodName, request.method);
        span.setAttribute(Attr.JsonRpcRequestId, String(request.id));
        if (target.target) span.setAttributes(target.target);
        if (target.unknown) span.setAttributes(target.unknown);
        if (target.uri !== undefined) span.setAttribute(Attr.McpResourceUri, target.uri);
        if (connection.sessionId !== undefined && session !== undefined)
          span.setAttribute(Attr.McpSessionId, connection.sessionId);
      }
    }
    const operation: Operation = {
      request,
      connection,
      session,
      span,
      measured,
      started: measured ? performance.now() : 0,
      target,
    };
    return [operation, ctx];
  }

  private end(operation: Operation, failure: Failure | undefined): void {
    const { span, request } = operation;
    const version = protocolVersionOf(request, operation.session);
    if (span?.isRecording()) {
      if (version !== undefined) span.setAttribute(Attr.McpProtocolVersion, version);
      if (failure) {
        span.setAttribute(Attr.ErrorType, failure.type);
        if (failure.code !== undefined) span.setAttribute(Attr.RpcResponseStatusCode, failure.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
      }
    }
    span?.end();
    if (!operation.measured) return;
    const seconds = (performance.now() - operation.started) / 1000;
    const { attributes } = operation.connection;
    if (failure === undefined) {
      this.metrics.operationEnded(
        seconds,
        this.cache.success(attributes, operation.target, request.method, version),
      );
      return;
    }
    // A method the server does not have is named by the client alone: one series for all of them.
    const failed =
      failure.code === METHOD_NOT_FOUND
        ? operationAttributes(attributes, NO_TARGET, OTHER_METHOD, version)
        : operationAttributes(attributes, operation.target, request.method, version);
    failed[Attr.ErrorType] = failure.type;
    if (failure.code !== undefined) failed[Attr.RpcResponseStatusCode] = failure.code;
    this.metrics.operationEnded(seconds, failed);
  }
}

const NO_TARGET: RequestTarget = Object.freeze({ spanName: '' });

/** `rpc.response.status_code` of a method the server does not have. */
const METHOD_NOT_FOUND = String(ErrorCode.MethodNotFound);

/** A request cancelled (or whose exchange was aborted) got no response. */
const CANCELLED: Failure = Object.freeze({ type: 'cancelled' });

/** A tool result with `isError: true` is a failure (`error.type = tool_error`). */
function resultFailure(method: string, result: Result | undefined): Failure | undefined {
  if (method === Method.ToolsCall && (result as { isError?: unknown } | undefined)?.isError === true)
    return TOOL_ERROR;
  return undefined;
}

/** The version of a stateless-era request is in its `_meta`; a session's, negotiated by initialize. */
function protocolVersionOf(request: JSONRPCRequest, session: VersionSource | undefined): string | undefined {
  if (isStatelessRequest(request)) {
    const version = request.params?._meta?.[MetaKey.ProtocolVersion];
    return typeof version === 'string' ? version : undefined;
  }
  const version = session?.protocolVersion;
  return version === undefined || version === '' ? undefined : version;
}
