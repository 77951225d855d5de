import type { JSONRPCNotification, RequestId, SubscriptionFilter } from '@gantry/protocol';

/** What {@link Client.listen} opts in to: the stateless-era `SubscriptionFilter`. */
export type ListenFilter = SubscriptionFilter;

interface Waiter {
  resolve(result: IteratorResult<JSONRPCNotification>): void;
  reject(error: Error): void;
}

/**
 * The change notifications a server sends for one {@link Client.listen} call, as an async
 * iterable: `for await (const notification of subscription)`. Leaving the loop early
 * (`break`, `return`, a throw) closes the subscription.
 *
 * The iteration ends when the subscription is closed (by `close()`, by the client closing, or
 * by the server ending the stream gracefully); it throws when the connection is lost or the
 * `subscriptions/listen` request fails. Notifications that arrive while nobody iterates are
 * buffered; iterate from one place only, as each notification is handed out once.
 */
export class Subscription implements AsyncIterable<JSONRPCNotification> {
  /**
   * Settles with the filter the server agreed to honour (types it cannot deliver are left
   * out), or rejects when the subscription could not be opened.
   */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** The JSON-RPC id of the `subscriptions/listen` request (stateless era), once sent. */
  id?: RequestId;
  private acknowledge!: (filter: SubscriptionFilter) => void;
  private refuse!: (error: Error) => void;
  private isAcknowledged = false;
  private readonly queue: JSONRPCNotification[] = [];
  private readonly waiters: Waiter[] = [];
  private ended = false;
  private failure?: Error;
  private closing?: Promise<void>;

  /** @internal Created by {@link Client.listen}. */
  constructor(
    /** What was asked for. */
    readonly filter: ListenFilter,
    private readonly onClose: () => Promise<void>,
  ) {
    this.acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
      this.acknowledge = resolve;
      this.refuse = reject;
    });
    // Nobody has to await it: an unawaited rejection must not crash the process.
    this.acknowledged.catch(() => undefined);
  }

  /** True once the subscription ended; no more notifications will be delivered. */
  get isClosed(): boolean {
    return this.ended;
  }

  /**
   * Ends the subscription: in the stateless era, `notifications/cancelled` for the listen
   * request (stdio, WebSocket) or the closed HTTP response stream; in the session era,
   * `resources/unsubscribe` for the URIs no other subscription still watches.
   */
  close(): Promise<void> {
    if (this.ended && !this.closing) return Promise.resolve();
    this.closing ??= (async () => {
      this.end();
      await this.onClose();
    })();
    return this.closing;
  }

  [Symbol.asyncIterator](): AsyncIterator<JSONRPCNotification> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  /** @internal The server agreed to `filter`. */
  markAcknowledged(filter: SubscriptionFilter): void {
    if (this.isAcknowledged) return;
    this.isAcknowledged = true;
    this.acknowledge(filter);
  }

  /** @internal One notification for this subscription. */
  push(notification: JSONRPCNotification): void {
    if (this.ended) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve({ done: false, value: notification });
    else this.queue.push(notification);
  }

  /** @internal Ends the iteration: cleanly, or with `error` (after the buffered notifications). */
  end(error?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    if (!this.isAcknowledged) {
      this.isAcknowledged = true;
      this.refuse(error ?? new Error('The subscription ended before the server acknowledged it'));
    }
    for (const waiter of this.waiters.splice(0)) {
      if (error) waiter.reject(error);
      else waiter.resolve({ done: true, value: undefined });
    }
  }

  private next(): Promise<IteratorResult<JSONRPCNotification>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ done: false, value: queued });
    if (this.ended) {
      const failure = this.failure;
      // The error is reported once; later calls see a finished iterator.
      this.failure = undefined;
      return failure ? Promise.reject(failure) : Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }
}
