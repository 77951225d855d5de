/** Linked in-memory transports, re-exported from `@gantry/protocol` for tests that need no process. */
export { InMemoryTransport } from '@gantry/protocol';
export { Client } from './client';
export type {
  CallToolOptions,
  ClientOptions,
  ClientRequestHandler,
  ClientRequestOptions,
  ConnectOptions,
  InputRequestContext,
  NotificationHandler,
} from './client-options';
export type { ClientTransportHooks } from './client-transport-hooks';
export type {
  Completion,
  CompletionArgument,
  CompletionReference,
  CompletionRequestContext,
} from './completion';
export { type ConnectHttpOptions, connectHttp, type HttpConnection } from './connect-http';
export { type CachedEra, clearEraCache, type Era, type EraCache, type EraPreference } from './era';
export { DEFAULT_MAX_HTTP_MESSAGE_BYTES, type HttpHeadersOption } from './http-exchange';
export {
  HTTP_STATUS_ERROR_CODE,
  type HttpFailureData,
  HttpStatusError,
  httpStatusOf,
} from './http-status-error';
export { type ParamHeader, type ParamHeaderScan, scanParamHeaders } from './param-headers';
export { DEFAULT_RECONNECT_OPTIONS, type ReconnectOptions } from './reconnect-policy';
export { SseClientTransport, type SseClientTransportOptions } from './sse-client-transport';
export {
  DEFAULT_MAX_SSE_EVENT_CHARS,
  type SseEvent,
  SseParser,
  type SseParserOptions,
} from './sse-parser';
export {
  DEFAULT_STDIO_SHUTDOWN_GRACE_MS,
  StdioClientTransport,
  type StdioClientTransportOptions,
} from './stdio-client-transport';
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './streamable-http-client-transport';
export { type ListenFilter, Subscription } from './subscription';
export {
  DEFAULT_WEBSOCKET_RECONNECT,
  WebSocketClientTransport,
  type WebSocketClientTransportOptions,
  type WebSocketReconnectOptions,
} from './websocket-client-transport';
