import type { ConnectionHost } from '@gantry/core';
import {
  decodeHeaderValue,
  ErrorCode,
  isObject,
  isStatelessVersion,
  type JSONRPCMessage,
  type JSONRPCRequest,
  MetaKey,
  Method,
  TaskMethod,
} from '@gantry/protocol';
import type { FastifyRequest } from 'fastify';
import { header } from './request-headers';

/** An HTTP answer to a request that failed a transport check. */
export interface HttpProblem {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * True when a POST belongs to the stateless era (2026-07-28): its body's `_meta` names a
 * protocol version, or its `MCP-Protocol-Version` header names a stateless one. `initialize`
 * always opens the session era (MCP 2026-07-28, Basic / Versioning: a client that wants a
 * session-era revision sends `initialize`).
 */
export function isStatelessPost(body: unknown, versionHeader: string | undefined): boolean {
  if (!isObject(body)) return false;
  if (body.method === Method.Initialize) return false;
  const meta = isObject(body.params) ? body.params._meta : undefined;
  if (isObject(meta) && MetaKey.ProtocolVersion in meta) return true;
  return isStatelessVersion(versionHeader);
}

/** The HTTP status of a stateless-era JSON-RPC error (MCP 2026-07-28, Transports / Streamable HTTP). */
function statelessStatus(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

/**
 * The HTTP status of the answer to stateless-era `request`. The application checks the
 * request's `_meta`; one that lacks the client capabilities is a malformed request (400), where
 * other invalid params (a tool's arguments) are answered with 200.
 */
export function statelessAnswerStatus(
  answer: JSONRPCMessage | JSONRPCMessage[],
  request: JSONRPCRequest,
): number {
  const code = (answer as { error?: { code?: unknown } }).error?.code;
  if (typeof code !== 'number') return 200;
  if (code === ErrorCode.InvalidParams) {
    const meta = request.params?._meta as Record<string, unknown> | undefined;
    return isObject(meta?.[MetaKey.ClientCapabilities]) ? 200 : 400;
  }
  return statelessStatus(code);
}

/** Visible ASCII and space: what a mirrored header value may contain once encoded. */
const HEADER_TEXT = /^[\x20-\x7e]*$/;

const mismatch = (message: string): HttpProblem => ({
  status: 400,
  code: ErrorCode.HeaderMismatch,
  message: `Header mismatch: ${message}`,
});

/** A JSON number: `Number()` alone would also read `0x7`, `0b111` or `Infinity`. */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Compares a header value with the body value it mirrors: strings exactly, integers numerically. */
function sameValue(headerValue: string, body: unknown): boolean {
  if (typeof body === 'string') return headerValue === body;
  if (typeof body === 'number') return JSON_NUMBER.test(headerValue) && Number(headerValue) === body;
  if (typeof body === 'boolean') return headerValue === String(body);
  return false;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/** The body field `Mcp-Name` mirrors, per method. */
function nameOf(request: JSONRPCRequest): { field: string; value: unknown } | undefined {
  switch (request.method) {
    case Method.ToolsCall:
    case Method.PromptsGet:
      return { field: 'params.name', value: request.params?.name };
    case Method.ResourcesRead:
      return { field: 'params.uri', value: request.params?.uri };
    // The tasks extension routes by task (MCP 2026-07-28 tasks extension § Streamable HTTP).
    case TaskMethod.Get:
    case TaskMethod.Update:
    case TaskMethod.Cancel:
      return { field: 'params.taskId', value: request.params?.taskId };
    default:
      return undefined;
  }
}

/**
 * The transport checks of a stateless-era request (MCP 2026-07-28, Transports / Streamable
 * HTTP): the `MCP-Protocol-Version` header and the body's `_meta` name the same version, and
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` (a tool's `x-mcp-header` arguments) mirror the
 * body. The rest of `_meta` (a supported version, the client capabilities) is the
 * application's to check, once. Undefined when everything holds.
 */
export function statelessRequestProblem(
  request: FastifyRequest,
  message: JSONRPCRequest,
  tool: ConnectionHost['findTool'],
): HttpProblem | undefined {
  const versionHeader = header(request, 'mcp-protocol-version');
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const version = isObject(meta) ? meta[MetaKey.ProtocolVersion] : undefined;
  if (versionHeader === undefined) {
    return mismatch('the MCP-Protocol-Version header is required on every 2026-07-28 request');
  }
  // A stateless header on a body that is not of the era (or names no version).
  if (typeof version !== 'string') {
    return {
      status: 400,
      code: ErrorCode.InvalidParams,
      message: `Invalid params: _meta["${MetaKey.ProtocolVersion}"] is required on every 2026-07-28 request`,
    };
  }
  if (versionHeader !== version) {
    return mismatch(
      `MCP-Protocol-Version is ${JSON.stringify(versionHeader)} but _meta names ${JSON.stringify(version)}`,
    );
  }
  const method = header(request, 'mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is required');
  if (method !== message.method) {
    return mismatch(
      `Mcp-Method is ${JSON.stringify(method)} but the body calls ${JSON.stringify(message.method)}`,
    );
  }
  const named = nameOf(message);
  if (named) {
    const raw = header(request, 'mcp-name');
    if (raw === undefined) return mismatch(`the Mcp-Name header is required for ${message.method}`);
    if (!HEADER_TEXT.test(raw)) return mismatch('Mcp-Name has characters a header value may not carry');
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return mismatch('Mcp-Name is not valid Base64 inside =?base64?…?=');
    if (!sameValue(decoded, named.value)) {
      return mismatch(`Mcp-Name does not match ${named.field}`);
    }
  }
  if (message.method === Method.ToolsCall && typeof message.params?.name === 'string') {
    const params = tool(message.params.name)?.headers;
    const args = message.params.arguments;
    for (const param of params ?? []) {
      const name = `mcp-param-${param.name.toLowerCase()}`;
      const raw = header(request, name);
      const value = valueAt(args, param.path);
      const present = value !== undefined && value !== null;
      if (raw === undefined) {
        if (present)
          return mismatch(
            `the Mcp-Param-${param.name} header is required: the argument '${param.path.join('.')}' has a value`,
          );
        continue;
      }
      if (!HEADER_TEXT.test(raw))
        return mismatch(`Mcp-Param-${param.name} has characters a header value may not carry`);
      if (!present)
        return mismatch(
          `Mcp-Param-${param.name} was sent but the argument '${param.path.join('.')}' has no value`,
        );
      const decoded = decodeHeaderValue(raw);
      if (decoded === undefined)
        return mismatch(`Mcp-Param-${param.name} is not valid Base64 inside =?base64?…?=`);
      if (!sameValue(decoded, value)) {
        return mismatch(`Mcp-Param-${param.name} does not match the argument '${param.path.join('.')}'`);
      }
    }
  }
  return undefined;
}
