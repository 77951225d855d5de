/** Linked in-memory transports, re-exported from `@gantry/protocol` for tests that need no process. */
export { InMemoryTransport } from '@gantry/protocol';
export {
  type CallToolOptions,
  Client,
  type ClientOptions,
  type ClientRequestHandler,
  type ClientRequestOptions,
  type ConnectOptions,
  type NotificationHandler,
} from './client';
export { StdioClientTransport, type StdioClientTransportOptions } from './stdio-client-transport';
