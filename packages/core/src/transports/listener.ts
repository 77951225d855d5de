import type { GantryApplication } from '../application/gantry-application';
import type { Logger } from '../logger';
import type { GantryServer } from '../server/gantry-server';

/** What an application hands to a listener. */
export interface ListenHost {
  /** The application being served. */
  readonly app: GantryApplication;
  readonly server: GantryServer;
  readonly logger: Logger;
  /** Closes the whole application (hooks run); e.g. stdio calls it when stdin ends. */
  close(): Promise<void>;
}

/**
 * A way of accepting connections: `stdio()`, and later HTTP and WebSocket listeners.
 * `app.listen(listener)` starts it; `app.close()` closes it.
 */
export interface McpListener {
  listen(host: ListenHost): Promise<void>;
  close(): Promise<void>;
}
