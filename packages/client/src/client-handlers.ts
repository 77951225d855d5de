// What a Client answers and hears: its handlers of server → client requests and of
// server notifications.
import {
  type InboundRequest,
  type JSONRPCNotification,
  Method,
  MethodNotFoundError,
  type Result,
} from '@gantry/protocol';
import type { ClientRequestHandler, NotificationHandler } from './client-options';
import { withElicitationDefaults } from './elicitation-defaults';

/** The request and notification handlers of one Client. */
export class ClientHandlers {
  private readonly requests = new Map<string, ClientRequestHandler>();
  private readonly notifications = new Map<string, Set<NotificationHandler>>();

  constructor(private readonly onError: ((error: Error) => void) | undefined) {
    // MCP 2025-11-25, Basic / Utilities §"Ping": either side may ping, and the receiver MUST
    // answer promptly.
    this.requests.set(Method.Ping, () => ({}));
  }

  /** The handler of a server → client request method, if one is set. */
  requestHandler(method: string): ClientRequestHandler | undefined {
    return this.requests.get(method);
  }

  /** Sets the handler of `method`; `elicitation/create` answers get the schema's defaults (SEP-1034). */
  setRequestHandler(method: string, handler: ClientRequestHandler): void {
    this.requests.set(method, withElicitationDefaults(method, handler));
  }

  removeRequestHandler(method: string): void {
    this.requests.delete(method);
  }

  /** Adds a notification handler; returns a function that removes it. */
  onNotification(method: string, handler: NotificationHandler): () => void {
    let handlers = this.notifications.get(method);
    if (!handlers) {
      handlers = new Set();
      this.notifications.set(method, handlers);
    }
    handlers.add(handler);
    return () => {
      const current = this.notifications.get(method);
      if (!current) return;
      current.delete(handler);
      if (current.size === 0) this.notifications.delete(method);
    };
  }

  /** Answers a session-era JSON-RPC request from the server; −32601 without a handler. */
  answer(
    method: string,
    params: { [key: string]: unknown },
    inbound: InboundRequest,
  ): Result | Promise<Result> {
    const handler = this.requests.get(method);
    if (!handler) throw new MethodNotFoundError(`Method not found: ${method}`);
    return handler(params, inbound);
  }

  /** Hands a notification to every handler of its method; a throwing handler goes to `onError`. */
  dispatch(notification: JSONRPCNotification): void {
    const handlers = this.notifications.get(notification.method);
    if (!handlers) return;
    for (const handler of [...handlers]) {
      try {
        handler(notification);
      } catch (error) {
        this.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
