import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { TransportTelemetry } from '@gantry/core';
import type { JSONRPCMessage, RequestId } from '@gantry/protocol';
import type { FastifyReply } from 'fastify';
import type { EventStore } from './event-store';

/** The headers of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});

/**
 * One server-sent event (HTML Living Standard, Server-sent events: `event`, `id` and `retry`
 * fields, then `data`; no `data` line when it is undefined). Every SSE byte this package
 * writes is formatted here or in {@link sseComment}.
 */
export function sseEvent(fields: { event?: string; id?: string; retry?: number; data?: string }): string {
  let text = '';
  if (fields.event !== undefined) text += `event: ${fields.event}\n`;
  if (fields.id !== undefined) text += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) text += `retry: ${fields.retry}\n`;
  if (fields.data !== undefined) text += `data: ${fields.data}\n`;
  return `${text}\n`;
}

/** An SSE comment line (ignored by clients; keeps idle connections open through proxies). */
export function sseComment(text: string): string {
  return `: ${text}\n\n`;
}

/**
 * Turns `reply` into an SSE response and returns the raw response to write events to: the
 * headers set so far (by hooks, CORS, `Mcp-Session-Id`) are copied, since a hijacked reply no
 * longer sends them, and the SSE headers are added.
 */
export function openSseResponse(reply: FastifyReply): ServerResponse {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = value;
  }
  reply.hijack();
  reply.raw.writeHead(200, { ...headers, ...SSE_HEADERS });
  return reply.raw;
}

export interface SseWriterOptions {
  /** Where events are kept for `Last-Event-ID` resumption; none → no ids, no resumption. */
  eventStore?: EventStore;
  /** Sent in the priming event: how long a client waits before reconnecting. */
  retryMs: number;
  /** Comment lines on idle streams, so proxies keep them open; 0 turns them off. */
  keepAliveMs: number;
  /** SSE event name for messages; legacy HTTP+SSE uses `message`. */
  eventName?: string;
  /**
   * Bytes of messages a connection may hold unsent (in this writer's queue and in the response's
   * buffer) while the client does not read. A message that would take it past this closes the
   * connection instead of buffering without bound.
   */
  maxQueuedBytes: number;
  /** Told why, when a connection is closed because its client does not read. */
  onOverflow?: (reason: string) => void;
  /** The requests a POST's stream answers, stored with its priming event (see `EventStore.storeEvent`). */
  requestIds?: readonly RequestId[];
  /** Told when a connection attaches and detaches (`gantry.server.streams.active`, kind `sse`). */
  streams?: TransportTelemetry;
}

/**
 * Writes one SSE stream: priming event, id'd message events, keep-alive comments.
 *
 * Writes are bounded the way the WebSocket transport bounds them: when the response's `write()`
 * returns false, the next message waits for `drain`, and the promise `write()` returned settles
 * only once its message was handed on, so a handler that awaits `ctx.log` or `ctx.progress`
 * waits for the client. Messages sent without waiting queue up to `maxQueuedBytes`; one more
 * closes the connection (logged through `onOverflow`). The logical stream lives on: with an
 * event store its messages are still stored, and the client can resume with `Last-Event-ID`.
 */
export class SseWriter {
  private response?: ServerResponse;
  private tail: Promise<void> = Promise.resolve();
  private keepAlive?: NodeJS.Timeout;
  private ended = false;
  /** Bytes of messages accepted by `write()` and not yet handed to the response. */
  private queuedBytes = 0;
  /** Ends the wait for `drain`, if one is under way. */
  private wake?: () => void;
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
    if (this.response) this.options.streams?.streamClosed('sse');
    this.response = response;
    this.options.streams?.streamOpened('sse');
    response.on('close', () => {
      if (this.response === response) this.detach();
    });
    if (prime) this.prime();
    if (this.options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.raw(sseComment('keep-alive')), this.options.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  /** Writes a raw chunk now (used by `endpoint` events and comments; skipped while congested). */
  raw(chunk: string): void {
    const response = this.response;
    if (response && !response.writableEnded && !response.writableNeedDrain) response.write(chunk);
  }

  /**
   * Writes a message event; stored first when there is an event store, so that it survives a
   * dropped connection. Writes stay in order even when the store is asynchronous. The promise
   * settles once the event is handed to the connection (after `drain` when it was congested),
   * or dropped because no connection is attached.
   */
  write(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    const store = this.options.eventStore && !Array.isArray(message) ? this.options.eventStore : undefined;
    const response = this.response;
    // Nowhere to write and nothing to keep: the message is lost as it always was on a closed stream.
    if (!response && !store) return this.tail;
    const data = response ? JSON.stringify(message) : '';
    const bytes = response ? Buffer.byteLength(data) : 0;
    if (response && this.queuedBytes + response.writableLength + bytes > this.options.maxQueuedBytes) {
      this.overflow(response);
      return this.write(message);
    }
    this.queuedBytes += bytes;
    const event = this.options.eventName;
    this.tail = this.tail.then(async () => {
      const id = store ? await store.storeEvent(this.streamId, message as JSONRPCMessage) : undefined;
      if (id !== undefined) this.lastEventId = id;
      this.queuedBytes -= bytes;
      if (!this.response) return;
      const text = data || JSON.stringify(message);
      await this.send(sseEvent({ event, id, data: text }));
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
    if (response) this.options.streams?.streamClosed('sse');
    if (response && !response.writableEnded) response.end();
    this.wake?.();
  }

  /** Writes a chunk; resolves at once, or on `drain` (or close) when the response is congested. */
  private send(chunk: string): Promise<void> | undefined {
    const response = this.response;
    if (!response || response.writableEnded || response.destroyed) return undefined;
    if (response.write(chunk)) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        response.off('drain', done);
        response.off('close', done);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      this.wake = done;
      response.on('drain', done);
      response.on('close', done);
    });
  }

  /** The client let more than `maxQueuedBytes` pile up: drop the connection, keep the stream. */
  private overflow(response: ServerResponse): void {
    this.options.onOverflow?.(
      `SSE stream ${this.streamId} closed: the client is not reading (more than ${this.options.maxQueuedBytes} bytes queued; the maxQueuedBytes option sets the limit)`,
    );
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    this.response = undefined;
    // Destroyed, not ended: an end would wait behind the unread bytes, holding them.
    response.destroy();
    this.wake?.();
  }

  /** Ends the stream for good, once pending writes are out. */
  end(): Promise<void> {
    if (this.ended) return this.tail;
    this.ended = true;
    this.tail = this.tail.then(() => {
      this.detach();
      // Every event is stored by now: nodes following the stream may end their connections.
      this.options.eventStore
        ?.endStream?.(this.streamId)
        .catch((error: Error) =>
          this.options.onOverflow?.(`SSE stream ${this.streamId}: its end was not stored (${error.message})`),
        );
    });
    return this.tail;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  private prime(): void {
    const store = this.options.eventStore;
    // An id'd event with empty data first, so the client can resume at once (MCP 2025-11-25,
    // Basic / Transports / Streamable HTTP).
    if (!store) {
      this.raw(sseEvent({ retry: this.options.retryMs }));
      return;
    }
    this.tail = this.tail.then(async () => {
      const requestIds = this.options.requestIds;
      const id = await (requestIds
        ? store.storeEvent(this.streamId, null, { requestIds })
        : store.storeEvent(this.streamId, null));
      this.lastEventId = id;
      this.raw(sseEvent({ id, retry: this.options.retryMs, data: '' }));
    });
  }
}
