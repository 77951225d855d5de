/**
 * JSON-RPC 2.0 message shapes as MCP uses them (2025-11-25 `schema.ts`, "JSON-RPC types").
 * MCP narrows JSON-RPC: ids are strings or integers (never null) and params are objects.
 */

export const JSONRPC_VERSION = '2.0' as const;

/** A request id: a string or an integer. MCP forbids `null`. */
export type RequestId = string | number;

/** A progress token: the requester's handle for `notifications/progress`. */
export type ProgressToken = string | number;

/** The `_meta` object allowed on params and results. */
export type Meta = { [key: string]: unknown };

export interface RequestParams {
  _meta?: Meta & { progressToken?: ProgressToken };
  [key: string]: unknown;
}

export interface JSONRPCRequest {
  jsonrpc: typeof JSONRPC_VERSION;
  id: RequestId;
  method: string;
  params?: RequestParams;
}

export interface JSONRPCNotification {
  jsonrpc: typeof JSONRPC_VERSION;
  method: string;
  params?: { _meta?: Meta; [key: string]: unknown };
}

/** Any result object; `_meta` is allowed on every result. */
export interface Result {
  _meta?: Meta;
  [key: string]: unknown;
}

export interface JSONRPCResultResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  id: RequestId;
  result: Result;
}

export interface JSONRPCErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error response. `id` is `null` when the request's id could not be read (JSON-RPC 2.0 §5). */
export interface JSONRPCErrorResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  id: RequestId | null;
  error: JSONRPCErrorObject;
}

export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** A request or notification without the envelope, as passed to `Peer.request` / `Peer.notify`. */
export interface OutboundMessage {
  method: string;
  params?: { [key: string]: unknown };
}

/** True for a string or a safe integer: the only id types MCP allows. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** True for a JSON object: not null, not an array. The one such check of every package. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isJSONRPCRequest(value: unknown): value is JSONRPCRequest {
  return (
    isObject(value) &&
    value.jsonrpc === JSONRPC_VERSION &&
    typeof value.method === 'string' &&
    isRequestId(value.id) &&
    (value.params === undefined || isObject(value.params))
  );
}

export function isJSONRPCNotification(value: unknown): value is JSONRPCNotification {
  return (
    isObject(value) &&
    value.jsonrpc === JSONRPC_VERSION &&
    typeof value.method === 'string' &&
    !('id' in value) &&
    (value.params === undefined || isObject(value.params))
  );
}

export function isJSONRPCResultResponse(value: unknown): value is JSONRPCResultResponse {
  return (
    isObject(value) &&
    value.jsonrpc === JSONRPC_VERSION &&
    isRequestId(value.id) &&
    isObject(value.result) &&
    !('error' in value)
  );
}

export function isJSONRPCErrorResponse(value: unknown): value is JSONRPCErrorResponse {
  return (
    isObject(value) &&
    value.jsonrpc === JSONRPC_VERSION &&
    (value.id === null || value.id === undefined || isRequestId(value.id)) &&
    isObject(value.error) &&
    typeof value.error.code === 'number' &&
    typeof value.error.message === 'string' &&
    !('result' in value)
  );
}

/** What an inbound value turned out to be, or why it is not a valid JSON-RPC message. */
export type ClassifiedMessage =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response'; message: JSONRPCResponse }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

/**
 * Sorts one decoded JSON value into request / notification / response, or says why it is
 * invalid. The reason is a sentence meant for the peer, and `id` is the request's id when it
 * could be read, so the error response can carry it.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isObject(value)) {
    return { kind: 'invalid', id: null, reason: 'A JSON-RPC message must be a JSON object' };
  }
  const rawId = value.id;
  const id = isRequestId(rawId) ? rawId : null;
  if (value.jsonrpc !== JSONRPC_VERSION) {
    return { kind: 'invalid', id, reason: 'The "jsonrpc" member must be exactly "2.0"' };
  }
  if ('method' in value) {
    if (typeof value.method !== 'string') {
      return { kind: 'invalid', id, reason: 'The "method" member must be a string' };
    }
    if (value.params !== undefined && !isObject(value.params)) {
      return { kind: 'invalid', id, reason: `The "params" of "${value.method}" must be an object` };
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JSONRPCNotification };
    if (id === null) {
      return {
        kind: 'invalid',
        id: null,
        reason: 'A request "id" must be a string or an integer (MCP forbids null)',
      };
    }
    return { kind: 'request', message: value as unknown as JSONRPCRequest };
  }
  if ('result' in value || 'error' in value) {
    if (isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value)) {
      return { kind: 'response', message: value };
    }
    return {
      kind: 'invalid',
      id,
      reason:
        'A response must have an id and exactly one of "result" (an object) or "error" ({ code, message })',
    };
  }
  return {
    kind: 'invalid',
    id,
    reason:
      'The message is neither a request, a notification nor a response: it has no "method", "result" or "error"',
  };
}

/** The notification that carries `message`, with no `params` key when it has none. */
export function notificationOf(message: OutboundMessage): JSONRPCNotification {
  return message.params === undefined
    ? { jsonrpc: JSONRPC_VERSION, method: message.method }
    : { jsonrpc: JSONRPC_VERSION, method: message.method, params: message.params };
}
