/** Linked in-memory transports, re-exported from `@gantry/protocol` for tests that need no process. */
export { InMemoryTransport } from '@gantry/protocol';
export { authorizedFetch } from './auth/authorized-fetch';
export type { PrivateKeyOption, TokenEndpointAuthMethod } from './auth/client-authentication';
export { AuthorizationError } from './auth/errors';
export {
  bearerToken,
  type ClientCredentialsOptions,
  type CrossAppAccessOptions,
  clientCredentials,
  crossAppAccess,
  type EnterpriseIdp,
} from './auth/grants';
export { type HeadlessInteractionOptions, headlessInteraction } from './auth/headless-interaction';
export {
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  type LoopbackInteractionOptions,
  loopbackInteraction,
} from './auth/loopback-interaction';
export { type OAuthOptions, oauth } from './auth/oauth';
export type { PreRegisteredClient } from './auth/registration';
export { storeKeyFor } from './auth/store-key';
export {
  defaultAuthDir,
  type FileTokenStoreOptions,
  fileTokenStore,
  memoryTokenStore,
} from './auth/token-store';
export type { TokenStrategyOptions } from './auth/token-strategy';
export type {
  AuthChallenge,
  AuthChallengeContext,
  AuthorizationInteraction,
  AuthRecord,
  McpAuth,
  StoredClient,
  StoredTokens,
  TokenStore,
} from './auth/types';
export { parseWwwAuthenticate } from './auth/www-authenticate';
export { Client, type TaskCallOptions } from './client';
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
export { TaskHandle, type TaskInfo } from './task-handle';
export {
  DEFAULT_WEBSOCKET_RECONNECT,
  WebSocketClientTransport,
  type WebSocketClientTransportOptions,
  type WebSocketReconnectOptions,
} from './websocket-client-transport';
