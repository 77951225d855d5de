import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@gantry/protocol';
import type { EventStore } from './event-store';

export interface SseWriterOptions {
  /** Where events are kept for `Last-Event-ID` resumption; none → no ids, no resumption. */
  eventStore?: EventStore;
  /** Sent in the priming event: how long a client waits before reconnecting. */
  retryMs: number;
  /** Comment lines on idle streams, so proxies keep them open; 0 turns them off. */
  keepAliveMs: number;
  /** SSE event name for messages; legacy HTTP+SSE uses `message`. */
  eventName?: string;
}

/** Writes one SSE stream: priming event, id'd message events, keep-alive comments. */
export class SseWriter {
  private response?: ServerResponse;
  private tail: Promise<void> = Promise.resolve();
  private keepAlive?: NodeJS.Timeout;
  private ended = false;
  /** Id of the last event written or stored. */
  lastEventId?: string;

  constructor(
    readonly streamId: string,
    private readonly options: SseWriterOptions,
  ) {}

  /** True while a connection is attached. */
  get attached(): boolean {
    return this.response !== undefined;
  }

  /** Starts writing to `response` (headers must already be written). */
  attach(response: ServerResponse, prime: boolean): void {
    this.response = response;
    response.on('close', () => {
      if (this.response === response) this.detach();
    });
    if (prime) this.prime();
    if (this.options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.raw(': keep-alive\n\n'), this.options.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  /** Writes a raw chunk now (used by `endpoint` events and comments). */
  raw(chunk: string): void {
    if (this.response && !this.response.writableEnded) this.response.write(chunk);
  }

  /**
   * Writes a message event; stored first when there is an event store, so that it survives a
   * dropped connection. Writes stay in order even when the store is asynchronous.
   */
  write(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    const store = this.options.eventStore;
    const data = JSON.stringify(message);
    const name = this.options.eventName ? `event: ${this.options.eventName}\n` : '';
    if (!store || Array.isArray(message)) {
      this.tail = this.tail.then(() => this.raw(`${name}data: ${data}\n\n`));
      return this.tail;
    }
    this.tail = this.tail.then(async () => {
      const id = await store.storeEvent(this.streamId, message);
      this.lastEventId = id;
      this.raw(`${name}id: ${id}\ndata: ${data}\n\n`);
    });
    return this.tail;
  }

  /** Runs `task` between queued writes: nothing is written to the stream while it runs. */
  exclusive(task: () => Promise<void>): Promise<void> {
    this.tail = this.tail.then(task);
    return this.tail;
  }

  /** Ends the connection (not the logical stream: a client may resume it with `Last-Event-ID`). */
  detach(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    const response = this.response;
    this.response = undefined;
    if (response && !response.writableEnded) response.end();
  }

  /** Ends the stream for good, once pending writes are out. */
  end(): Promise<void> {
    if (this.ended) return this.tail;
    this.ended = true;
    this.tail = this.tail.then(() => this.detach());
    return this.tail;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  private prime(): void {
    const store = this.options.eventStore;
    // 2025-11-25: an id'd event with empty data first, so the client can resume at once.
    if (!store) {
      this.raw(`retry: ${this.options.retryMs}\n\n`);
      return;
    }
    this.tail = this.tail.then(async () => {
      const id = await store.storeEvent(this.streamId, null);
      this.lastEventId = id;
      this.raw(`id: ${id}\nretry: ${this.options.retryMs}\ndata: \n\n`);
    });
  }
}

/** The headers of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});
