import type { GantryApplication } from '../application/gantry-application';
import type { GantryServer } from '../server/gantry-server';
import type { ConnectionHost } from './connection-host';

/**
 * What an application hands to a listener.
 * @deprecated Transitional: listeners take a `ConnectionHost`; `app` and `server` go away.
 */
export interface ListenHost extends ConnectionHost {
  /** The application being served. */
  readonly app: GantryApplication;
  readonly server: GantryServer;
}

/**
 * A way of accepting connections: `stdio()`, the HTTP and WebSocket listeners.
 * `app.listen(listener)` starts it; `app.close()` closes it.
 */
export interface McpListener {
  listen(host: ListenHost): Promise<void>;
  close(): Promise<void>;
}
