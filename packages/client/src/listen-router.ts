// Subscriptions to change notifications, in both eras: `subscriptions/listen` streams in the
// stateless era (MCP 2026-07-28, Basic / Utilities §"Subscriptions"), plain list-changed
// notifications and `resources/subscribe` in the session era (MCP 2025-11-25, Server /
// Resources §"Subscriptions" and the `listChanged` capabilities).
import {
  type CancelledNotificationParams,
  ConnectionClosedError,
  isJSONRPCNotification,
  type JSONRPCNotification,
  MetaKey,
  Method,
  type Peer,
  type RequestId,
  type Result,
  type ServerCapabilities,
  StatelessMethod,
  type SubscriptionFilter,
  type Transport,
  type TransportSink,
} from '@gantry/protocol';
import { isObject, protocolViolation } from './client-support';
import { type ListenFilter, Subscription } from './subscription';

/** What the router needs of its Client. */
export interface ListenRouterHost {
  /** The server's capabilities, to trim a session-era filter to. */
  serverCapabilities(): ServerCapabilities | undefined;
  /** Sends a session-era request (`resources/subscribe`, `resources/unsubscribe`). */
  request(method: string, params: { [key: string]: unknown }): Promise<Result>;
  /** Whether the connection is still up. */
  isConnected(): boolean;
  /** Adds the stateless-era `_meta` to the params of `subscriptions/listen`. */
  withStatelessMeta(params: { [key: string]: unknown }): { [key: string]: unknown };
  onError?: (error: Error) => void;
}

/** The open subscriptions of one Client, and where each notification belongs. */
export class ListenRouter {
  /** Open subscriptions of the current connection. */
  private readonly subscriptions = new Set<Subscription>();
  /** Stateless era: subscriptions by the id of their `subscriptions/listen` request. */
  private readonly listenById = new Map<RequestId, Subscription>();
  /** Session era: what each subscription was granted. */
  private readonly sessionGrants = new Map<Subscription, SubscriptionFilter>();
  /** Session era: how many subscriptions watch each URI subscribed with `resources/subscribe`. */
  private readonly sessionUriCounts = new Map<string, number>();

  constructor(private readonly host: ListenRouterHost) {}

  /** Forgets everything of an earlier connection. */
  reset(): void {
    this.subscriptions.clear();
    this.listenById.clear();
    this.sessionGrants.clear();
    this.sessionUriCounts.clear();
  }

  /** Opens a subscription: a `subscriptions/listen` stream (stateless era) or its session-era equivalent. */
  open(peer: Peer, filter: ListenFilter, stateless: boolean): Subscription {
    if (!isObject(filter)) throw new TypeError('Client.listen: the filter must be an object');
    return stateless ? this.listenStateless(peer, filter) : this.listenSession(filter);
  }

  /** Stateless era: one `subscriptions/listen` request, open until one side ends it. */
  private listenStateless(peer: Peer, filter: ListenFilter): Subscription {
    const controller = new AbortController();
    const subscription: Subscription = new Subscription(filter, async () => {
      this.forget(subscription);
      controller.abort('The subscription was closed');
    });
    const params = this.host.withStatelessMeta({ notifications: filter });
    this.subscriptions.add(subscription);
    // A listen stream lasts until one side ends it: no timeout.
    peer
      .request(
        { method: StatelessMethod.SubscriptionsListen, params },
        {
          timeoutMs: Infinity,
          signal: controller.signal,
          // Known before the request goes out, so no notification tagged with it is missed.
          onId: (id) => {
            subscription.id = id;
            this.listenById.set(id, subscription);
          },
        },
      )
      .then(
        (result) => {
          if (result.resultType !== undefined && result.resultType !== 'complete') {
            subscription.end(
              protocolViolation(
                `subscriptions/listen ended with resultType ${JSON.stringify(result.resultType)}`,
              ),
            );
          } else {
            subscription.end();
          }
        },
        (error: Error) => {
          if (!controller.signal.aborted) subscription.end(error);
        },
      )
      .finally(() => this.forget(subscription));
    return subscription;
  }

  /** Session era: list changes as plain notifications, resource updates via `resources/subscribe`. */
  private listenSession(filter: ListenFilter): Subscription {
    const subscription: Subscription = new Subscription(filter, () => this.unsubscribeSession(subscription));
    const caps = this.host.serverCapabilities() ?? {};
    const granted: SubscriptionFilter = {};
    if (filter.toolsListChanged === true && caps.tools?.listChanged) granted.toolsListChanged = true;
    if (filter.promptsListChanged === true && caps.prompts?.listChanged) granted.promptsListChanged = true;
    if (filter.resourcesListChanged === true && caps.resources?.listChanged)
      granted.resourcesListChanged = true;
    const uris = Array.isArray(filter.resourceSubscriptions)
      ? [...new Set(filter.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string'))]
      : undefined;
    if (uris !== undefined && caps.resources?.subscribe) granted.resourceSubscriptions = uris;
    this.subscriptions.add(subscription);
    this.sessionGrants.set(subscription, granted);
    const subscribes: Promise<unknown>[] = [];
    for (const uri of granted.resourceSubscriptions ?? []) {
      const count = this.sessionUriCounts.get(uri) ?? 0;
      this.sessionUriCounts.set(uri, count + 1);
      if (count === 0) subscribes.push(this.host.request(Method.ResourcesSubscribe, { uri }));
    }
    Promise.all(subscribes).then(
      () => subscription.markAcknowledged(granted),
      (error: Error) => {
        subscription.end(error);
        this.unsubscribeSession(subscription).catch(() => undefined);
      },
    );
    return subscription;
  }

  /**
   * Hands a notification to the subscriptions it belongs to: by its subscription id (the
   * stateless era), or, in the session era, by what each subscription was granted.
   */
  route(notification: JSONRPCNotification, sessionEra: boolean): void {
    const id = notification.params?._meta?.[MetaKey.SubscriptionId];
    if (id !== undefined) {
      const subscription = this.listenById.get(id as RequestId);
      if (!subscription) return;
      if (notification.method === StatelessMethod.SubscriptionsAcknowledged) {
        const agreed = notification.params?.notifications;
        subscription.markAcknowledged(isObject(agreed) ? (agreed as SubscriptionFilter) : {});
      } else {
        subscription.push(notification);
      }
      return;
    }
    if (!sessionEra) return;
    for (const [subscription, granted] of this.sessionGrants) {
      if (grants(granted, notification)) subscription.push(notification);
    }
  }

  /**
   * The transport as the Peer should see it: a server's `notifications/cancelled` for a
   * listen stream (the spec's other way to end one) settles that request as complete. The
   * Peer itself reads an inbound cancellation as the end of a request the server received.
   */
  endsListensOnCancel(transport: Transport): Transport {
    return {
      start: (sink: TransportSink) =>
        transport.start({
          message: (value) => {
            if (!this.endedByServer(value, sink)) sink.message(value);
          },
          invalid: (error) => sink.invalid(error),
          closed: (error) => sink.closed(error),
        }),
      send: (message, options) => transport.send(message, options),
      close: () => transport.close(),
    };
  }

  /**
   * Ends every open subscription cleanly: the client closes on purpose. Listen ids stay known
   * until the connection is down, so a server's last word on a stream still finds it.
   */
  endAll(): void {
    for (const subscription of [...this.subscriptions]) subscription.end();
    this.subscriptions.clear();
  }

  /** The connection is down: every open subscription fails with `ConnectionClosedError`. */
  connectionLost(cause: Error | undefined): void {
    const ended = new ConnectionClosedError(
      cause ? `Connection closed: ${cause.message}` : 'Connection closed',
      cause ? { cause } : undefined,
    );
    for (const subscription of [...this.subscriptions]) subscription.end(ended);
    this.subscriptions.clear();
    this.listenById.clear();
  }

  private endedByServer(value: unknown, sink: TransportSink): boolean {
    if (!isJSONRPCNotification(value) || value.method !== Method.Cancelled) return false;
    const id = (value.params as CancelledNotificationParams | undefined)?.requestId;
    if (id === undefined || !this.listenById.has(id)) return false;
    sink.message({ jsonrpc: '2.0', id, result: { resultType: 'complete' } });
    return true;
  }

  /** Session era: `resources/unsubscribe` for the URIs no other open subscription watches. */
  private async unsubscribeSession(subscription: Subscription): Promise<void> {
    const granted = this.sessionGrants.get(subscription);
    this.forget(subscription);
    if (!granted) return;
    const last: string[] = [];
    for (const uri of granted.resourceSubscriptions ?? []) {
      const count = (this.sessionUriCounts.get(uri) ?? 1) - 1;
      if (count > 0) this.sessionUriCounts.set(uri, count);
      else {
        this.sessionUriCounts.delete(uri);
        last.push(uri);
      }
    }
    if (!this.host.isConnected()) return;
    await Promise.all(
      last.map((uri) =>
        this.host
          .request(Method.ResourcesUnsubscribe, { uri })
          .catch((error: Error) => this.host.onError?.(error)),
      ),
    );
  }

  private forget(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    this.sessionGrants.delete(subscription);
    if (subscription.id !== undefined && this.listenById.get(subscription.id) === subscription) {
      this.listenById.delete(subscription.id);
    }
  }
}

/** Session era: whether a plain notification belongs to a subscription granted `granted`. */
function grants(granted: SubscriptionFilter, notification: JSONRPCNotification): boolean {
  switch (notification.method) {
    case Method.ToolsListChanged:
      return granted.toolsListChanged === true;
    case Method.PromptsListChanged:
      return granted.promptsListChanged === true;
    case Method.ResourcesListChanged:
      return granted.resourcesListChanged === true;
    case Method.ResourcesUpdated: {
      const uri = notification.params?.uri;
      return (
        typeof uri === 'string' &&
        (granted.resourceSubscriptions ?? []).some(
          (watched) => uri === watched || uri.startsWith(watched.endsWith('/') ? watched : `${watched}/`),
        )
      );
    }
    default:
      return false;
  }
}
