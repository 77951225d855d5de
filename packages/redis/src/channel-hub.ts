import type { Cluster, Redis } from 'ioredis';

type Handler = (text: string) => void;

/**
 * The channels one subscriber connection listens to, shared by everyone who needs them: a channel
 * is SUBSCRIBEd when its first handler arrives and UNSUBSCRIBEd when its last one leaves, so
 * several followers of one stream cost one subscription.
 */
export class ChannelHub {
  private readonly channels = new Map<string, { handlers: Set<Handler>; subscribed: Promise<void> }>();

  constructor(private readonly subscriber: Redis | Cluster) {
    subscriber.on('message', (channel: string, text: string) => {
      const entry = this.channels.get(channel);
      if (!entry) return;
      for (const handler of [...entry.handlers]) handler(text);
    });
  }

  /**
   * Adds `handler` to `channel` (synchronously: it sees every message published once the
   * returned promise resolves, and possibly some before). Rejects when the SUBSCRIBE fails; the
   * handler is removed then.
   */
  add(channel: string, handler: Handler): Promise<void> {
    let entry = this.channels.get(channel);
    if (!entry) {
      const created = { handlers: new Set<Handler>(), subscribed: Promise.resolve() };
      created.subscribed = this.subscriber.subscribe(channel).then(
        () => undefined,
        (error: unknown) => {
          if (this.channels.get(channel) === created) this.channels.delete(channel);
          throw error;
        },
      );
      entry = created;
      this.channels.set(channel, entry);
    }
    entry.handlers.add(handler);
    return entry.subscribed;
  }

  /** Removes `handler`; the last one of a channel unsubscribes it (best effort). */
  remove(channel: string, handler: Handler): void {
    const entry = this.channels.get(channel);
    if (!entry?.handlers.delete(handler) || entry.handlers.size > 0) return;
    this.channels.delete(channel);
    // A failed UNSUBSCRIBE leaves a channel nobody listens to: its messages are dropped above.
    this.subscriber.unsubscribe(channel).catch(() => undefined);
  }

  /** How many handlers listen on `channel`. */
  listeners(channel: string): number {
    return this.channels.get(channel)?.handlers.size ?? 0;
  }
}
