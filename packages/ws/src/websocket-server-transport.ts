import {
  ConnectionClosedError,
  cancelledRequestIdOf,
  isRequestId,
  Method,
  ParseError,
  type RequestId,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import WebSocket from 'ws';
import { Fifo } from './fifo';

/** Close codes used by the MCP WebSocket binding (RFC 6455 §7.4.1). */
export const WsCloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  UnsupportedData: 1003,
  /** The access token expired, or the client stopped reading and the send queue overflowed. */
  PolicyViolation: 1008,
  MessageTooBig: 1009,
  /** The server could not start the session. */
  InternalError: 1011,
} as const;

/** How long `close()` waits for the peer's close frame before dropping the connection. */
const CLOSE_GRACE_MS = 2_000;

/** Flow control of one socket, both ways (see {@link WebSocketServerTransport}). */
export interface WebSocketFlowOptions {
  /**
   * Requests received on the socket and not yet answered (nor cancelled) that the server runs
   * at once. Further requests are held back (up to as many again are read ahead), then the
   * server stops reading the socket; it delivers and reads on as answers go out. Default 64.
   */
  maxInflight?: number;
  /**
   * Bytes waiting in the socket's send buffer (`ws`'s `bufferedAmount`) at or above which
   * further outgoing messages wait in the transport's queue, and reading stops, until the
   * client has read enough. Default 1 MiB.
   */
  highWaterMark?: number;
  /**
   * Bytes the queue of {@link highWaterMark} may hold. A message that would take it past this
   * closes the socket with 1008 ("the client is not reading"): a client that never reads must
   * not make the server hold its messages without bound. It also bounds what is read ahead
   * while the server waits for the client's answer to one of its own requests. Default 16 MiB.
   */
  maxQueuedBytes?: number;
}

/** Defaults of {@link WebSocketFlowOptions}. */
export const DEFAULT_WEBSOCKET_FLOW: Readonly<Required<WebSocketFlowOptions>> = Object.freeze({
  maxInflight: 64,
  highWaterMark: 1024 * 1024,
  maxQueuedBytes: 16 * 1024 * 1024,
});

/** Fills in defaults and checks the values; a bad value is a programmer error and throws at once. */
export function resolveFlowOptions(owner: string, options: WebSocketFlowOptions = {}) {
  const resolved = {
    maxInflight: options.maxInflight ?? DEFAULT_WEBSOCKET_FLOW.maxInflight,
    highWaterMark: options.highWaterMark ?? DEFAULT_WEBSOCKET_FLOW.highWaterMark,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_WEBSOCKET_FLOW.maxQueuedBytes,
  };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`${owner}: ${key} must be a whole number ≥ 1 (got ${String(value)})`);
    }
  }
  return resolved;
}

/** What {@link WebSocketServerTransport.flow} reports. */
export interface WebSocketFlowState {
  /** Requests delivered to the server and neither answered nor cancelled yet. */
  readonly inflight: number;
  /** Messages read from the socket but held back (in-flight limit reached, or output congested). */
  readonly held: number;
  /** True while the transport has stopped reading the socket. */
  readonly readingPaused: boolean;
  /** Outgoing messages waiting in the transport's queue, and their size in bytes. */
  readonly queued: number;
  readonly queuedBytes: number;
  /** Bytes handed to the socket and not yet written to the network (`ws`'s `bufferedAmount`). */
  readonly bufferedAmount: number;
}

interface Held {
  readonly value: unknown;
  readonly bytes: number;
}

interface Outgoing {
  readonly text: string;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id of a request (what the server will answer with that id), if `value` is one. */
function requestIdOf(value: unknown): RequestId | undefined {
  return isObject(value) && 'method' in value && isRequestId(value.id) ? value.id : undefined;
}

/** True for values that must wait for a free in-flight slot: requests, and batches holding one. */
function needsSlot(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => requestIdOf(item) !== undefined);
  return requestIdOf(value) !== undefined;
}

function isResponse(value: unknown): value is Json {
  return isObject(value) && !('method' in value) && ('result' in value || 'error' in value);
}

// ws ≥ 8.3 has pause()/resume(); older 8.x releases only the underlying net.Socket.
type Pausable = WebSocket & { pause?: () => void; resume?: () => void; _socket?: NodeJS.ReadableStream };

function pauseReading(socket: WebSocket): void {
  const s = socket as Pausable;
  if (typeof s.pause === 'function') s.pause();
  else s._socket?.pause();
}

function resumeReading(socket: WebSocket): void {
  const s = socket as Pausable;
  if (typeof s.resume === 'function') s.resume();
  else s._socket?.resume();
}

/**
 * One accepted WebSocket as an MCP transport: one UTF-8 JSON-RPC message (or batch) per text
 * frame, no other envelope. Binary frames close the socket with 1003; a text frame that is not
 * JSON is reported to the Peer, which answers −32700 with `id: null` and keeps the socket open.
 * Frames over `maxPayload` are refused by `ws` itself with 1009, and invalid UTF-8 with 1007.
 *
 * Flow control (see {@link WebSocketFlowOptions}):
 * - Inbound: requests are counted by id from arrival until their response is sent or the client
 *   cancels them. A request that would exceed `maxInflight`, or that arrives while the output is
 *   congested, is held back with everything after it. Reading goes on until `maxInflight`
 *   messages are held (cancellations, which are never held, still get through: a held request
 *   that is cancelled is dropped); then the socket is paused, so the client's TCP window closes
 *   instead of the server buffering. Answers to the server's own requests (sampling,
 *   elicitation, roots) are never held either; while the server awaits one, reading goes on
 *   until `maxQueuedBytes` are held, so the answer cannot be stuck behind unread requests.
 * - Outbound: at or above `highWaterMark` buffered bytes, messages wait in a queue that is
 *   flushed as the socket drains; past `maxQueuedBytes` the socket is closed with 1008.
 */
export class WebSocketServerTransport implements Transport {
  private sink?: TransportSink;
  private finished = false;
  private closing?: Promise<void>;
  /** Close code used when {@link close} is called without one (the listener sets 1001 on shutdown). */
  closeCode: number = WsCloseCode.Normal;

  private readonly maxInflight: number;
  private readonly highWaterMark: number;
  private readonly maxQueuedBytes: number;
  /** Requests delivered and not answered, by id: a count, since a duplicate id is answered too (with an error). */
  private readonly inflight = new Map<RequestId, number>();
  private inflightTotal = 0;
  /** Ids of the server's requests to the client that the client has not answered. */
  private readonly awaitingClient = new Set<RequestId>();
  /** Ids of a batch while the sink handles it: a batch refused as a whole is answered by one error with id null. */
  private batchInDelivery?: RequestId[];
  private readonly held = new Fifo<Held>();
  private heldBytes = 0;
  private readonly queue = new Fifo<Outgoing>();
  private queuedBytes = 0;
  private readingPaused = false;
  private admitScheduled = false;
  private readonly onWritten = () => {
    if (this.queue.length > 0) this.flush();
    else if (this.held.length > 0) this.scheduleAdmit();
  };

  constructor(
    readonly socket: WebSocket,
    options: WebSocketFlowOptions = {},
  ) {
    const flow = resolveFlowOptions('WebSocketServerTransport', options);
    this.maxInflight = flow.maxInflight;
    this.highWaterMark = flow.highWaterMark;
    this.maxQueuedBytes = flow.maxQueuedBytes;
  }

  /** The flow-control state of this socket (for metrics and tests). */
  get flow(): WebSocketFlowState {
    return {
      inflight: this.inflightTotal,
      held: this.held.length,
      readingPaused: this.readingPaused,
      queued: this.queue.length,
      queuedBytes: this.queuedBytes,
      bufferedAmount: this.socket.bufferedAmount,
    };
  }

  start(sink: TransportSink): void {
    if (this.sink) throw new Error('WebSocketServerTransport already started');
    this.sink = sink;
    this.socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.socket.once('close', (code, reason) => this.finish(code, reason.toString('utf8')));
    // Protocol errors (bad UTF-8, oversized frames) are followed by `close`; the listener keeps
    // them from crashing the process.
    this.socket.on('error', () => {});
    if (this.socket.readyState !== WebSocket.OPEN) this.finish(1006, 'not open');
  }

  send(message: WireMessage): Promise<void> {
    if (this.finished || this.socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ConnectionClosedError('Connection closed: the WebSocket is not open'));
    }
    if (Array.isArray(message)) for (const item of message) this.noteOutgoing(item);
    else this.noteOutgoing(message);
    const text = JSON.stringify(message);
    if (this.queue.length === 0 && this.socket.bufferedAmount < this.highWaterMark) {
      return new Promise<void>((resolve, reject) => {
        this.socket.send(text, { binary: false }, (error) => {
          if (error) reject(error);
          else resolve();
          this.onWritten();
        });
      });
    }
    return this.enqueue(text);
  }

  /** Closes the socket with {@link closeCode}; resolves once the closing handshake ends (at most 2 s). */
  close(code = this.closeCode, reason = ''): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const socket = this.socket;
      if (socket.readyState === WebSocket.CLOSED) {
        this.finish(1006, '');
        resolve();
        return;
      }
      const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
      timer.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
    });
    return this.closing;
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.finished) return;
    if (isBinary) {
      this.socket.close(WsCloseCode.UnsupportedData, 'MCP over WebSocket accepts text frames only');
      return;
    }
    const buffer = Array.isArray(data)
      ? Buffer.concat(data)
      : data instanceof ArrayBuffer
        ? Buffer.from(new Uint8Array(data))
        : data;
    let value: unknown;
    try {
      value = JSON.parse(buffer.toString('utf8'));
    } catch (error) {
      this.sink?.invalid(new ParseError(`Parse error: ${(error as Error).message}`));
      return;
    }
    this.receive(value, buffer.length);
  }

  /** Delivers `value` now, or holds it back behind the in-flight limit or congested output. */
  private receive(value: unknown, bytes: number): void {
    if (isResponse(value)) {
      // An answer to one of the server's requests: it frees a handler, so it never waits.
      if (isRequestId(value.id)) this.awaitingClient.delete(value.id);
      this.sink?.message(value);
      this.updateReading();
      return;
    }
    const cancelled = cancelledRequestIdOf(value);
    if (cancelled !== undefined) {
      // A held request that is cancelled is dropped unread: the Peer would not answer it either
      // (2025-11-25 cancellation). Otherwise it was delivered earlier, so this may overtake
      // what is held; the server will not answer it, so its slot is free now.
      const dropped = this.held.removeFirst((item) => requestIdOf(item.value) === cancelled);
      if (dropped) {
        this.heldBytes -= dropped.bytes;
        return;
      }
      this.release(cancelled);
      this.sink?.message(value);
      return;
    }
    if (this.held.length > 0 || (needsSlot(value) && !this.canAccept())) {
      this.held.push({ value, bytes });
      this.heldBytes += bytes;
      this.updateReading();
      return;
    }
    this.deliver(value);
  }

  private deliver(value: unknown): void {
    const sink = this.sink;
    if (!sink) return;
    if (!Array.isArray(value)) {
      const id = requestIdOf(value);
      if (id !== undefined) this.track(id);
      sink.message(value);
      return;
    }
    const ids: RequestId[] = [];
    for (const item of value) {
      const id = requestIdOf(item);
      if (id !== undefined) {
        ids.push(id);
        this.track(id);
      } else if (isResponse(item) && isRequestId(item.id)) this.awaitingClient.delete(item.id);
    }
    this.batchInDelivery = ids;
    try {
      sink.message(value);
    } finally {
      this.batchInDelivery = undefined;
    }
  }

  private track(id: RequestId): void {
    this.inflight.set(id, (this.inflight.get(id) ?? 0) + 1);
    this.inflightTotal++;
  }

  /** One request `id` is answered or cancelled: its slot is free. */
  private release(id: RequestId): void {
    const count = this.inflight.get(id);
    if (count === undefined) return;
    if (count === 1) this.inflight.delete(id);
    else this.inflight.set(id, count - 1);
    this.inflightTotal--;
    if (this.held.length > 0) this.scheduleAdmit();
  }

  /** Bookkeeping of what the server sends: answers free slots, its own requests await answers. */
  private noteOutgoing(message: object): void {
    const m = message as Json;
    if ('method' in m) {
      if (isRequestId(m.id)) this.awaitingClient.add(m.id);
      else if (m.method === Method.Cancelled && isObject(m.params) && isRequestId(m.params.requestId)) {
        // The server gave up on one of its requests (timeout): no answer is awaited any more.
        this.awaitingClient.delete(m.params.requestId);
      } else return;
      this.updateReading();
      return;
    }
    if (isRequestId(m.id)) this.release(m.id);
    else if (m.id === null && this.batchInDelivery) {
      // The batch was refused as a whole (not 2025-03-26, or empty): none of it runs.
      for (const id of this.batchInDelivery) this.release(id);
      this.batchInDelivery = [];
    }
  }

  private canAccept(): boolean {
    return (
      this.inflightTotal < this.maxInflight &&
      this.queue.length === 0 &&
      this.socket.bufferedAmount < this.highWaterMark
    );
  }

  private scheduleAdmit(): void {
    if (this.admitScheduled) return;
    this.admitScheduled = true;
    // After the current send returns: delivering re-enters the Peer, which may be mid-answer.
    queueMicrotask(() => this.admit());
  }

  /** Delivers held messages, oldest first, while there is room; then resumes reading if all went. */
  private admit(): void {
    this.admitScheduled = false;
    while (!this.finished && this.held.length > 0) {
      if (needsSlot(this.held.peek()?.value) && !this.canAccept()) break;
      const next = this.held.shift() as Held;
      this.heldBytes -= next.bytes;
      this.deliver(next.value);
    }
    this.updateReading();
  }

  /**
   * Reading goes on while few messages are held back (up to `maxInflight` of them), so that
   * cancellations still arrive; past that the socket is paused. While the server awaits an
   * answer from the client, the answer may be behind what is held: reading then goes on until
   * `maxQueuedBytes` are held.
   */
  private updateReading(): void {
    if (this.finished) return;
    const held = this.held.length;
    const pause =
      held > 0 &&
      (this.heldBytes >= this.maxQueuedBytes || (this.awaitingClient.size === 0 && held >= this.maxInflight));
    if (pause === this.readingPaused) return;
    this.readingPaused = pause;
    if (pause) pauseReading(this.socket);
    else resumeReading(this.socket);
  }

  private enqueue(text: string): Promise<void> {
    const bytes = Buffer.byteLength(text);
    if (this.queuedBytes + bytes > this.maxQueuedBytes) {
      this.overflow();
      return Promise.reject(
        new ConnectionClosedError(
          `Connection closed: the client is not reading (more than ${this.maxQueuedBytes} bytes queued)`,
        ),
      );
    }
    this.queuedBytes += bytes;
    return new Promise<void>((resolve, reject) => this.queue.push({ text, bytes, resolve, reject }));
  }

  /** Hands queued messages to the socket while it is below the high-water mark. */
  private flush(): void {
    while (
      this.queue.length > 0 &&
      this.socket.readyState === WebSocket.OPEN &&
      this.socket.bufferedAmount < this.highWaterMark
    ) {
      const item = this.queue.shift() as Outgoing;
      this.queuedBytes -= item.bytes;
      this.socket.send(item.text, { binary: false }, (error) => {
        if (error) item.reject(error);
        else item.resolve();
        this.onWritten();
      });
    }
    if (this.queue.length === 0 && this.held.length > 0) this.scheduleAdmit();
  }

  /** The client let the queue grow past `maxQueuedBytes`: drop what is queued and close with 1008. */
  private overflow(): void {
    this.rejectQueued(
      new ConnectionClosedError('Connection closed: the client is not reading, so its send queue overflowed'),
    );
    void this.close(WsCloseCode.PolicyViolation, 'Send queue full: the client is not reading');
  }

  private rejectQueued(error: Error): void {
    const dropped = this.queue.drain();
    this.queuedBytes = 0;
    for (const item of dropped) item.reject(error);
  }

  private finish(code: number, reason: string): void {
    if (this.finished) return;
    this.finished = true;
    this.held.drain();
    this.heldBytes = 0;
    this.inflight.clear();
    this.inflightTotal = 0;
    this.awaitingClient.clear();
    this.rejectQueued(new ConnectionClosedError(`Connection closed: the WebSocket closed with code ${code}`));
    const sink = this.sink;
    this.sink = undefined;
    if (!sink) return;
    const clean = code === WsCloseCode.Normal || code === WsCloseCode.GoingAway || this.closing !== undefined;
    sink.closed(
      clean
        ? undefined
        : new ConnectionClosedError(`WebSocket closed with code ${code}${reason ? ` (${reason})` : ''}`),
    );
  }
}
