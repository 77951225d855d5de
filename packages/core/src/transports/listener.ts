import type { ConnectionHost } from './connection-host';

/**
 * A way of accepting connections: `stdio()`, the HTTP and WebSocket listeners.
 * `app.listen(listener)` starts it with the app's `ConnectionHost`; `app.close()` closes it.
 */
export interface McpListener {
  listen(host: ConnectionHost): Promise<void>;
  close(): Promise<void>;
}
