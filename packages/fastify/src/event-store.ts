import type { JSONRPCMessage, RequestId } from '@gantry/protocol';

/**
 * Keeps the events of SSE streams so a client can resume a stream with `Last-Event-ID`
 * (2025-11-25 transports, resumability). Event ids are cursors within their stream. An
 * implementation may be asynchronous (Redis and others).
 */
export interface EventStore {
  /**
   * Stores an event of `streamId` and returns its id. `message` is null for a priming event,
   * which names the requests a POST's stream answers (`meta.requestIds`): a cluster's store
   * keeps them, so another node can end the stream with an error if the writer's node dies.
   */
  storeEvent(
    streamId: string,
    message: JSONRPCMessage | null,
    meta?: { readonly requestIds?: readonly RequestId[] },
  ): string | Promise<string>;
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
  /**
   * The stream got its last event (called after that event was stored): a store shared by a
   * cluster tells the nodes following the stream for a resumed connection that it is complete.
   */
  endStream?(streamId: string): Promise<void>;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped. Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept; the least recently written is dropped first. Default 10 000. */
  maxStreams?: number;
  /**
   * Bytes of events (their JSON size) kept per stream; the oldest are dropped first. Default
   * 16 MiB.
   */
  maxBytesPerStream?: number;
  /**
   * Bytes of events kept over all streams; the oldest events of the least recently written
   * stream are dropped first. Default 64 MiB.
   */
  maxBytes?: number;
}

interface StoredEvent {
  readonly message: JSONRPCMessage | null;
  readonly bytes: number;
}

interface StoredStream {
  next: number;
  /** Sequence number of the first kept event. */
  first: number;
  events: StoredEvent[];
  /** Index in `events` of the first kept event (dropped ones are cut off in batches). */
  head: number;
  bytes: number;
}

function whole(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`InMemoryEventStore: ${name} must be a whole number ≥ 1 (got ${String(value)})`);
  }
  return value;
}

/**
 * The default event store: bounded by count and by bytes, in this process's memory. An id whose
 * event was dropped to stay within the bounds is unknown, as an id never issued is.
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StoredStream>();
  /** Streams that hold bytes, least recently written first: where the total budget evicts. */
  private readonly holding = new Map<string, StoredStream>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  private readonly maxStreamBytes: number;
  private readonly maxBytes: number;
  private totalBytes = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = whole(options.maxEventsPerStream, 'maxEventsPerStream', 1000);
    this.maxStreams = whole(options.maxStreams, 'maxStreams', 10_000);
    this.maxStreamBytes = whole(options.maxBytesPerStream, 'maxBytesPerStream', 16 * 1024 * 1024);
    this.maxBytes = whole(options.maxBytes, 'maxBytes', 64 * 1024 * 1024);
  }

  /** Bytes of events kept now (their JSON size), over all streams. */
  get bytes(): number {
    return this.totalBytes;
  }

  storeEvent(streamId: string, message: JSONRPCMessage | null): string {
    let stream = this.streams.get(streamId);
    if (stream) {
      // Map order = recency of writes: move it to the end.
      this.streams.delete(streamId);
    } else {
      stream = { next: 0, first: 0, events: [], head: 0, bytes: 0 };
      if (this.streams.size >= this.maxStreams) {
        const oldest = this.streams.keys().next().value as string;
        this.dropStream(oldest);
      }
    }
    this.streams.set(streamId, stream);
    const seq = stream.next++;
    const bytes = message === null ? 0 : Buffer.byteLength(JSON.stringify(message));
    stream.events.push({ message, bytes });
    stream.bytes += bytes;
    this.totalBytes += bytes;
    if (bytes > 0) {
      this.holding.delete(streamId);
      this.holding.set(streamId, stream);
    }
    while (stream.events.length - stream.head > this.maxEvents || stream.bytes > this.maxStreamBytes) {
      this.evictOldest(streamId, stream);
    }
    while (this.totalBytes > this.maxBytes) {
      const [id, victim] = this.holding.entries().next().value as [string, StoredStream];
      this.evictOldest(id, victim);
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
    // An id before the first kept event (dropped to bound memory) is as unknown as one never issued.
    if (!stream || !Number.isInteger(seq) || seq < stream.first - 1 || seq >= stream.next) return undefined;
    for (let s = Math.max(seq + 1, stream.first); s < stream.next; s++) {
      const event = stream.events[stream.head + s - stream.first];
      if (event?.message) await send(`${streamId}.${s}`, event.message);
    }
    return streamId;
  }

  dropStream(streamId: string): void {
    const stream = this.streams.get(streamId);
    if (!stream) return;
    this.totalBytes -= stream.bytes;
    this.streams.delete(streamId);
    this.holding.delete(streamId);
  }

  /** Drops the oldest kept event of a stream. */
  private evictOldest(streamId: string, stream: StoredStream): void {
    const event = stream.events[stream.head];
    stream.head++;
    stream.first++;
    stream.bytes -= event.bytes;
    this.totalBytes -= event.bytes;
    if (stream.head === stream.events.length) {
      stream.events = [];
      stream.head = 0;
    } else if (stream.head >= 1024 && stream.head * 2 >= stream.events.length) {
      // Cut dropped events off in batches: shift() per event would be quadratic.
      stream.events = stream.events.slice(stream.head);
      stream.head = 0;
    }
    if (stream.bytes === 0) this.holding.delete(streamId);
  }
}
