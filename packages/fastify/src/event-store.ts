import type { JSONRPCMessage } from '@gantry/protocol';

/**
 * Keeps the events of SSE streams so a client can resume a stream with `Last-Event-ID`
 * (2025-11-25 transports, resumability). Event ids are cursors within their stream. An
 * implementation may be asynchronous (Redis and others).
 */
export interface EventStore {
  /** Stores an event of `streamId` and returns its id. `message` is null for a priming event. */
  storeEvent(streamId: string, message: JSONRPCMessage | null): string | Promise<string>;
  /**
   * Calls `send` for every event of the stream that `lastEventId` belongs to, after it, in
   * order, skipping priming events. Returns the stream id, or undefined when the id is unknown
   * or expired.
   */
  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined>;
  /** Forgets a stream once it can no longer be resumed. */
  dropStream?(streamId: string): void;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped. Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept; the least recently written is dropped first. Default 10 000. */
  maxStreams?: number;
}

interface StoredStream {
  next: number;
  /** Sequence number of the first kept event. */
  first: number;
  events: (JSONRPCMessage | null)[];
}

/** The default event store: bounded, in this process's memory. */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StoredStream>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = options.maxEventsPerStream ?? 1000;
    this.maxStreams = options.maxStreams ?? 10_000;
  }

  storeEvent(streamId: string, message: JSONRPCMessage | null): string {
    let stream = this.streams.get(streamId);
    if (stream) {
      // Map order = recency of writes: move it to the end.
      this.streams.delete(streamId);
    } else {
      stream = { next: 0, first: 0, events: [] };
      if (this.streams.size >= this.maxStreams) {
        const oldest = this.streams.keys().next().value as string;
        this.streams.delete(oldest);
      }
    }
    this.streams.set(streamId, stream);
    const seq = stream.next++;
    stream.events.push(message);
    if (stream.events.length > this.maxEvents) {
      stream.events.shift();
      stream.first++;
    }
    return `${streamId}.${seq}`;
  }

  async replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const dot = lastEventId.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const streamId = lastEventId.slice(0, dot);
    const seq = Number(lastEventId.slice(dot + 1));
    const stream = this.streams.get(streamId);
    if (!stream || !Number.isInteger(seq) || seq < stream.first - 1 || seq >= stream.next) return undefined;
    for (let s = Math.max(seq + 1, stream.first); s < stream.next; s++) {
      const message = stream.events[s - stream.first];
      if (message) await send(`${streamId}.${s}`, message);
    }
    return streamId;
  }

  dropStream(streamId: string): void {
    this.streams.delete(streamId);
  }
}
