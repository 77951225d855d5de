import { randomBytes } from 'node:crypto';
import {
  type ClusterEventStore,
  type Connection,
  isStreamOfSession,
  sessionStreamId,
  type TransportTelemetry,
} from '@gantry/core';
import {
  type AuthInfo,
  cancelledRequestIdOf,
  isRequestId,
  type JSONRPCMessage,
  type RequestId,
  type SendOptions,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type { FastifyReply } from 'fastify';
import { StreamRelay } from './cluster/stream-relay';
import type { EventStore } from './event-store';
import { RequestStream, type ResponseMode } from './request-stream';
import { openSseResponse, SseWriter, type SseWriterOptions, sseEvent } from './sse-writer';

export interface HttpSessionOptions {
  readonly responseMode: ResponseMode;
  readonly eventStore?: EventStore;
  readonly retryMs: number;
  readonly keepAliveMs: number;
  /** See {@link SseWriterOptions.maxQueuedBytes}. */
  readonly maxQueuedBytes: number;
  /** Told why a connection was closed because its client does not read. */
  readonly onOverflow?: (reason: string) => void;
  /** Where SSE connections are reported (the application's metrics). */
  readonly streams?: TransportTelemetry;
  /**
   * Set when the session is one node's replica of a cluster-wide session: its streams live in
   * the cluster's event store (also `eventStore`), so any node can resume them, and its messages
   * that belong to no request go into the session's stream, which the node holding its GET
   * stream relays.
   */
  readonly cluster?: { readonly events: ClusterEventStore };
}

/** Unrelated messages kept while no GET stream is open (the oldest are dropped). */
const OUTBOX_LIMIT = 1000;

/** A new random id: 144 bits from the CSPRNG, URL-safe (visible ASCII, as MCP requires). */
export function newId(bytes = 18): string {
  return randomBytes(bytes).toString('base64url');
}

function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message) && 'id' in message;
}

/**
 * One MCP session over Streamable HTTP, and the Transport its ServerSession speaks through.
 * Every message the server sends goes on exactly one stream: the answer to the POST that
 * carried the request it belongs to, or else the standalone GET stream.
 */
export class HttpSession implements Transport {
  /** The application's side of the session, once connected. */
  connection?: Connection;
  lastSeen = Date.now();
  private sink?: TransportSink;
  private closed = false;
  private readonly byRequest = new Map<RequestId, RequestStream>();
  private readonly byStream = new Map<string, RequestStream>();
  /** Every stream this session opened: the only ones `Last-Event-ID` may resume. */
  private readonly ownedStreams = new Set<string>();
  private standalone?: SseWriter;
  private outbox: JSONRPCMessage[] = [];
  private readonly sseOptions: SseWriterOptions;
  private readonly closeListeners = new Set<() => void>();
  /** The answer of the POST being handed to the server right now (what it answers at once goes there). */
  private delivering?: RequestStream;
  /** Connections relaying this session's streams from the cluster's store (GET, resumptions). */
  private readonly relays = new Set<StreamRelay>();
  /** The relay of the GET stream, while one is open here. */
  private standaloneRelay?: StreamRelay;

  constructor(
    /** The `Mcp-Session-Id`; undefined in stateless mode (each POST stands alone). */
    readonly id: string | undefined,
    /** Who opened the session, when auth is on: later requests must come from the same principal. */
    readonly principal: string | undefined,
    readonly auth: AuthInfo | undefined,
    private readonly options: HttpSessionOptions,
  ) {
    this.sseOptions = {
      eventStore: options.eventStore,
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      maxQueuedBytes: options.maxQueuedBytes,
      onOverflow: options.onOverflow,
      streams: options.streams,
    };
  }

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * True while a GET stream is open, a request is being answered or a task of the session runs
   * here: the session is not closed as idle.
   */
  get busy(): boolean {
    return (
      (this.standalone?.attached ?? false) ||
      this.byRequest.size > 0 ||
      this.relays.size > 0 ||
      (this.connection?.busy ?? false)
    );
  }

  /** True in a cluster: see {@link HttpSessionOptions.cluster}. */
  get clustered(): boolean {
    return this.options.cluster !== undefined && this.id !== undefined;
  }

  /**
   * Hands the server a message another node received for this session (the answer to a request
   * this node sent, a cancellation of a request running here).
   */
  deliver(message: JSONRPCMessage): void {
    this.lastSeen = Date.now();
    this.sink?.message(message);
    const cancelled = cancelledRequestIdOf(message);
    if (cancelled !== undefined) this.byRequest.get(cancelled)?.cancel(cancelled);
  }

  /**
   * Hands a POSTed message (or batch) to the server; requests are answered on `reply`.
   * `requestIds` are the requests it carries; `answered` is true when the server answers
   * something else in it too (a batch's invalid entries), so the POST needs an answer even
   * without requests.
   */
  post(
    value: unknown,
    requestIds: readonly RequestId[],
    reply: FastifyReply,
    answer: {
      /** Answers an insufficient-scope error with an HTTP 403 challenge; true when it did. */
      readonly stepUp?: (error: { message: string; data?: unknown }) => boolean;
      readonly answered?: boolean;
    } = {},
  ): RequestStream | undefined {
    this.lastSeen = Date.now();
    let stream: RequestStream | undefined;
    if (requestIds.length > 0 || answer.answered) {
      stream = new RequestStream({
        reply,
        ids: requestIds,
        mode: this.options.responseMode,
        sse: this.sseOptions,
        stepUp: answer.stepUp,
        // In a cluster the owner is in the name: any node can check a resumption against it.
        newStreamId: () => (this.clustered ? `${this.id}~${newId(9)}` : newId(9)),
        onSse: (writer, owner) => {
          this.byStream.set(writer.streamId, owner);
          this.ownedStreams.add(writer.streamId);
        },
        onFinish: (finished) => this.finished(finished),
      });
      // An id already in progress on another POST keeps its route; the server answers the
      // duplicate at once with an error, which `delivering` carries to this POST.
      for (const id of requestIds) if (!this.byRequest.get(id)?.isOpen) this.byRequest.set(id, stream);
    }
    const outer = this.delivering;
    this.delivering = stream;
    try {
      this.sink?.message(value);
    } finally {
      this.delivering = outer;
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      const cancelled = cancelledRequestIdOf(item);
      // 2025-11-25 cancellation: no response will come for it, so its POST must not wait for one.
      if (cancelled !== undefined) this.byRequest.get(cancelled)?.cancel(cancelled);
    }
    return stream;
  }

  /** Opens the standalone SSE stream (GET without `Last-Event-ID`); false when one is open. */
  async openStandalone(reply: FastifyReply): Promise<boolean> {
    const cluster = this.options.cluster;
    if (cluster && this.id !== undefined) {
      if (this.standaloneRelay?.isOpen) return false;
      const relay = this.relay(reply);
      this.standaloneRelay = relay;
      // Every node writes the session's stream; this connection relays it from a priming
      // event on, in order (MCP 2025-11-25, Streamable HTTP §Listening for Messages).
      const primed = await cluster.events.storeEvent(sessionStreamId(this.id), null);
      await relay.start(cluster.events, primed, true);
      return true;
    }
    if (this.standalone?.attached) return false;
    const response = openSseResponse(reply);
    const writer = this.standalone ?? new SseWriter(newId(9), this.sseOptions);
    this.ownedStreams.add(writer.streamId);
    writer.attach(response, true);
    this.standalone = writer;
    const queued = this.outbox;
    this.outbox = [];
    for (const message of queued) writer.write(message);
    return true;
  }

  /**
   * Resumes a stream after `Last-Event-ID`: replays what followed it, then keeps the connection
   * as that stream's while it lives. False when the id is unknown or expired.
   */
  async resume(lastEventId: string, reply: FastifyReply): Promise<boolean> {
    const store = this.options.eventStore;
    if (!store) return false;
    const cluster = this.options.cluster;
    if (cluster && this.id !== undefined) {
      const streamId = cluster.events.streamOf(lastEventId);
      // Only this session's streams: its GET stream, and the streams named after it.
      if (streamId === undefined) return false;
      if (streamId !== sessionStreamId(this.id) && !isStreamOfSession(streamId, this.id)) return false;
      const live = this.byStream.get(streamId);
      // A stream another node writes, or one of ours that ended: relayed from the store.
      if (!live || live.isFinished) {
        const relay = this.relay(reply);
        if (streamId === sessionStreamId(this.id)) {
          this.standaloneRelay?.close();
          this.standaloneRelay = relay;
        }
        return relay.start(cluster.events, lastEventId, false);
      }
    }
    const replayed: string[] = [];
    const streamId = await store.replayEventsAfter(lastEventId, (eventId, message) => {
      replayed.push(sseEvent({ id: eventId, data: JSON.stringify(message) }));
    });
    // A stream of another session is not replayed, even to someone who learned an event id.
    if (streamId === undefined || !this.ownedStreams.has(streamId)) return false;
    const raw = openSseResponse(reply);
    const live = this.byStream.get(streamId);
    const writer =
      live && !live.isFinished
        ? live.writer
        : this.standalone?.streamId === streamId
          ? this.standalone
          : undefined;
    if (!writer || writer.isEnded) {
      for (const chunk of replayed) raw.write(chunk);
      raw.end();
      return true;
    }
    // Replay again inside the writer's queue, so no event stored meanwhile is missed or doubled.
    await writer.exclusive(async () => {
      await store.replayEventsAfter(lastEventId, (eventId, message) => {
        raw.write(sseEvent({ id: eventId, data: JSON.stringify(message) }));
      });
      writer.attach(raw, false);
    });
    return true;
  }

  /** Closes the POST connection that carries `requestId` (SSE polling); false when it cannot. */
  closeStreamOf(requestId: RequestId): boolean {
    // Stateless sessions end with their POST: nothing could resume the stream.
    if (this.id === undefined) return false;
    return this.byRequest.get(requestId)?.closeConnection() ?? false;
  }

  /** Routes a message to its stream; the promise settles once that stream can take more. */
  send(message: WireMessage, options?: SendOptions): Promise<void> | undefined {
    if (this.closed) return undefined;
    const delivering = this.delivering;
    if (Array.isArray(message)) {
      // The answer of a whole batch. Written while the batch is handed over when nothing in
      // it waits (invalid entries only); else it holds the response of one of its requests.
      const stream = delivering ?? this.streamOfBatchAnswer(message);
      return stream?.respond(undefined, message);
    }
    if (isResponse(message)) {
      const id = (message as { id: RequestId | null }).id;
      if (delivering && (id === null || delivering.awaits(id))) {
        // Answered at once: a refused batch (id null) or a duplicate id.
        if (id !== null && this.byRequest.get(id) === delivering) this.byRequest.delete(id);
        return delivering.respond(id ?? undefined, message);
      }
      if (id === null) return this.unrelated(message);
      const stream = this.byRequest.get(id);
      if (stream) {
        this.byRequest.delete(id);
        return stream.respond(id, message);
      }
    } else {
      const related = options?.relatedRequestId;
      const written = related === undefined ? undefined : this.byRequest.get(related)?.related(message);
      if (written) return written;
    }
    return this.unrelated(message);
  }

  /**
   * Ends the session here. `keepStreams`: only this node's replica ends (the session lives on in
   * the cluster): its streams stay in the store for other nodes to resume.
   */
  async close(keepStreams = false): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of new Set(this.byRequest.values())) stream.abort();
    this.byRequest.clear();
    for (const relay of this.relays) relay.close();
    const store = keepStreams ? undefined : this.options.eventStore;
    for (const streamId of this.ownedStreams) store?.dropStream?.(streamId);
    if (this.clustered && this.id !== undefined) store?.dropStream?.(sessionStreamId(this.id));
    this.byStream.clear();
    if (this.standalone) {
      store?.dropStream?.(this.standalone.streamId);
      await this.standalone.end();
    }
    this.sink?.closed();
    for (const listener of this.closeListeners) listener();
  }

  onClose(listener: () => void): void {
    this.closeListeners.add(listener);
  }

  /**
   * Server-initiated messages go on the GET stream, or wait for one (bounded). Each stream has
   * its own queue, so a broadcast to many sessions is not held up by one slow reader.
   */
  private unrelated(message: JSONRPCMessage): Promise<void> | undefined {
    const cluster = this.options.cluster;
    if (cluster && this.id !== undefined) {
      // Into the session's stream, which whichever node holds its GET stream relays.
      return cluster.events.storeEvent(sessionStreamId(this.id), message).then(
        () => undefined,
        (error: Error) =>
          this.options.onOverflow?.(`A message for session stream was not stored: ${error.message}`),
      );
    }
    if (this.standalone && !this.standalone.isEnded) return this.standalone.write(message);
    if (this.outbox.length >= OUTBOX_LIMIT) this.outbox.shift();
    this.outbox.push(message);
    return undefined;
  }

  /** A connection relaying one of this session's streams from the cluster's store. */
  private relay(reply: FastifyReply): StreamRelay {
    const relay = new StreamRelay(reply, {
      retryMs: this.options.retryMs,
      keepAliveMs: this.options.keepAliveMs,
      maxQueuedBytes: this.options.maxQueuedBytes,
      onOverflow: this.options.onOverflow,
    });
    this.relays.add(relay);
    relay.onClose(() => this.relays.delete(relay));
    return relay;
  }

  /** The POST a batch answer belongs to: the one carrying any of the requests it answers. */
  private streamOfBatchAnswer(answers: readonly JSONRPCMessage[]): RequestStream | undefined {
    for (const answer of answers) {
      const id = (answer as { id?: unknown }).id;
      const stream = isRequestId(id) ? this.byRequest.get(id) : undefined;
      if (stream) return stream;
    }
    return undefined;
  }

  private finished(stream: RequestStream): void {
    for (const id of stream.ids) if (this.byRequest.get(id) === stream) this.byRequest.delete(id);
    const writer = stream.writer;
    if (writer) {
      // Kept a while for clients that resume after the last event; the store bounds it.
      this.byStream.delete(writer.streamId);
    }
  }
}
