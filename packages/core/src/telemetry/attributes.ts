import { McpError, Method, type RequestParams } from '@gantry/protocol';
import { type Attributes, SpanStatusCode } from '@opentelemetry/api';

/**
 * Attribute names of the OpenTelemetry semantic conventions for MCP (semantic-conventions-genai,
 * docs/gen-ai/mcp.md, status Development) and the general ones they reference.
 */
export const Attr = {
  McpMethodName: 'mcp.method.name',
  McpProtocolVersion: 'mcp.protocol.version',
  McpSessionId: 'mcp.session.id',
  McpResourceUri: 'mcp.resource.uri',
  JsonRpcRequestId: 'jsonrpc.request.id',
  GenAiToolName: 'gen_ai.tool.name',
  GenAiPromptName: 'gen_ai.prompt.name',
  GenAiOperationName: 'gen_ai.operation.name',
  ErrorType: 'error.type',
  RpcResponseStatusCode: 'rpc.response.status_code',
  NetworkTransport: 'network.transport',
  NetworkProtocolName: 'network.protocol.name',
  NetworkProtocolVersion: 'network.protocol.version',
} as const;

/**
 * How a connection or exchange reaches the server, for the `network.*` and `mcp.session.id`
 * attributes of its spans and metrics. Transports set it in `ConnectOptions.transport` and
 * `Exchange.transport`.
 */
export interface TransportInfo {
  /** `network.transport`: `'pipe'` for stdio, `'tcp'` for HTTP and WebSocket. */
  readonly network: string;
  /** `network.protocol.name`: `'http'` or `'websocket'`; absent on stdio. */
  readonly protocol?: string;
  /** `network.protocol.version`, e.g. `'1.1'`. */
  readonly protocolVersion?: string;
  /** The MCP session id (`Mcp-Session-Id`, the legacy SSE `sessionId`), when there is one. */
  readonly sessionId?: string;
}

/** The attributes a connection contributes to every span and measurement: built once per connection. */
export function transportAttributes(transport: TransportInfo | undefined): Readonly<Attributes> {
  if (!transport) return EMPTY;
  // Interned: every connection of a kind shares one object, so per-request caches keyed by it hit.
  const key = `${transport.network}\n${transport.protocol ?? ''}\n${transport.protocolVersion ?? ''}`;
  const known = INTERNED.get(key);
  if (known !== undefined) return known;
  const attributes: Attributes = { [Attr.NetworkTransport]: transport.network };
  if (transport.protocol !== undefined) attributes[Attr.NetworkProtocolName] = transport.protocol;
  if (transport.protocolVersion !== undefined)
    attributes[Attr.NetworkProtocolVersion] = transport.protocolVersion;
  const frozen = Object.freeze(attributes);
  // Transports name a handful of kinds; the bound only guards against a transport that varies.
  if (INTERNED.size < 64) INTERNED.set(key, frozen);
  return frozen;
}

const INTERNED = new Map<string, Readonly<Attributes>>();

const EMPTY: Readonly<Attributes> = Object.freeze({});

/** What a request is about: the span name's target and the attribute that names it. */
export interface RequestTarget {
  /** The span name: `{mcp.method.name} {target}`, or the method alone. */
  readonly spanName: string;
  /** The low-cardinality attributes that name the target (tool, prompt), also on metrics. */
  readonly target?: Attributes;
  /** `mcp.resource.uri`, on spans only (high cardinality: opt-in on metrics). */
  readonly uri?: string;
  /**
   * The name of a tool or prompt the server does not have: on the span, never on metrics nor
   * in the span name, where any name a client made up would be a series of its own.
   */
  readonly unknown?: Attributes;
}

/**
 * The target of a `tools/call` or `prompts/get` naming what the server does not have: the span
 * is named after the method alone and the name is an attribute of the span only.
 */
export function unknownTarget(method: string, name: string): RequestTarget {
  if (method === Method.ToolsCall) {
    return {
      spanName: method,
      target: { [Attr.GenAiOperationName]: 'execute_tool' },
      unknown: { [Attr.GenAiToolName]: name },
    };
  }
  return { spanName: method, unknown: { [Attr.GenAiPromptName]: name } };
}

/**
 * The span name and target attributes of a request. A resource URI goes into the name only
 * when asked (`resourceUriInSpanName`): the conventions advise against it by default, since
 * URIs make names of unbounded cardinality.
 */
export function requestTarget(
  method: string,
  params: RequestParams | undefined,
  uriInName: boolean,
): RequestTarget {
  switch (method) {
    case Method.ToolsCall: {
      const name = params?.name;
      if (typeof name !== 'string') return { spanName: method };
      return {
        spanName: `${method} ${name}`,
        target: { [Attr.GenAiToolName]: name, [Attr.GenAiOperationName]: 'execute_tool' },
      };
    }
    case Method.PromptsGet: {
      const name = params?.name;
      if (typeof name !== 'string') return { spanName: method };
      return { spanName: `${method} ${name}`, target: { [Attr.GenAiPromptName]: name } };
    }
    case Method.ResourcesRead:
    case Method.ResourcesSubscribe:
    case Method.ResourcesUnsubscribe: {
      const uri = params?.uri;
      if (typeof uri !== 'string') return { spanName: method };
      return { spanName: uriInName ? `${method} ${uri}` : method, uri };
    }
    default:
      return { spanName: method };
  }
}

/** How an operation failed, as `error.type`, `rpc.response.status_code` and the span status. */
export interface Failure {
  readonly type: string;
  readonly code?: string;
  readonly message?: string;
}

/** A tool result with `isError: true` (the conventions' `tool_error`). */
export const TOOL_ERROR: Failure = Object.freeze({ type: 'tool_error' });

/**
 * The failure of a thrown error: an `McpError` is answered with its JSON-RPC code, which is
 * its `error.type`; anything else is answered −32603 and typed by its class.
 */
export function failureOfError(error: unknown): Failure {
  if (error instanceof McpError) {
    const code = String(error.code);
    return { type: code, code, message: error.message };
  }
  const type = error instanceof Error ? error.constructor.name || 'Error' : '_OTHER';
  return { type, code: '-32603', message: error instanceof Error ? error.message : String(error) };
}

/** The failure of a JSON-RPC error response (what an exchange resolves with). */
export function failureOfResponse(error: { code: number; message: string }): Failure {
  const code = String(error.code);
  return { type: code, code, message: error.message };
}

export const ERROR_STATUS = SpanStatusCode.ERROR;
