import {
  ConnectionClosedError,
  ParseError,
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

/** Output flow control of one socket (see {@link WebSocketServerTransport}). */
export interface WebSocketTransportOptions {
  /**
   * Bytes waiting in the socket's send buffer (`ws`'s `bufferedAmount`) at or above which
   * further outgoing messages wait in the transport's queue until the client has read enough.
   * A send settles once its message is written, so the requests whose answers wait keep their
   * in-flight slots, and the server stops reading the client (see `maxInflight`). Default 1 MiB.
   */
  highWaterMark?: number;
  /**
   * Bytes the queue of {@link highWaterMark} may hold. A message that would take it past this
   * closes the socket with 1008 ("the client is not reading"): a client that never reads must
   * not make the server hold its messages without bound. Default 16 MiB.
   */
  maxQueuedBytes?: number;
}

/** Flow control of one socket, both ways. */
export interface WebSocketFlowOptions extends WebSocketTransportOptions {
  /**
   * Requests received on the socket that the server runs at once: a request holds its slot
   * until its answer is written or the client cancels it. Further requests are held back (up
   * to as many again are read ahead, more while the server awaits an answer of the client),
   * then the server stops reading the socket; it reads on as answers go out. The server's
   * Peer enforces it (`PeerOptions.maxInflight`). Default 64.
   */
  maxInflight?: number;
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
  /** True while the transport has stopped reading the socket (the Peer paused it). */
  readonly readingPaused: boolean;
  /** Outgoing messages waiting in the transport's queue, and their size in bytes. */
  readonly queued: number;
  readonly queuedBytes: number;
  /** Bytes handed to the socket and not yet written to the network (`ws`'s `bufferedAmount`). */
  readonly bufferedAmount: number;
}

interface Outgoing {
  readonly text: string;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

// ws ≥ 8.3 has pause()/resume(); older 8.x releases only the underlying net.Socket.
type Pausable = WebSocket & { pause?: () => void; resume?: () => void; _socket?: NodeJS.ReadableStream };

function pauseSocket(socket: WebSocket): void {
  const s = socket as Pausable;
  if (typeof s.pause === 'function') s.pause();
  else s._socket?.pause();
}

function resumeSocket(socket: WebSocket): void {
  const s = socket as Pausable;
  if (typeof s.resume === 'function') s.resume();
  else s._socket?.resume();
}

/**
 * One accepted WebSocket as an MCP transport: one UTF-8 JSON-RPC message (or batch) per text
 * frame, no other envelope. Every decoded frame goes to the sink (the Peer), which judges it;
 * binary frames close the socket with 1003; a text frame that is not JSON is reported to the
 * Peer, which answers −32700 with `id: null` and keeps the socket open. Frames over
 * `maxPayload` are refused by `ws` itself with 1009, and invalid UTF-8 with 1007.
 *
 * Flow control:
 * - Inbound: `pauseReading()`/`resumeReading()` stop and restart reading the socket, so the client's TCP
 *   window closes instead of the server buffering; the Peer calls them for its in-flight limit.
 * - Outbound: at or above `highWaterMark` buffered bytes, messages wait in a queue that is
 *   flushed as the socket drains; past `maxQueuedBytes` the socket is closed with 1008. A send
 *   settles once its message is written.
 */
export class WebSocketServerTransport implements Transport {
  private sink?: TransportSink;
  private finished = false;
  private closing?: Promise<void>;
  /** Close code used when {@link close} is called without one (the listener sets 1001 on shutdown). */
  closeCode: number = WsCloseCode.Normal;

  private readonly highWaterMark: number;
  private readonly maxQueuedBytes: number;
  private readonly queue = new Fifo<Outgoing>();
  private queuedBytes = 0;
  private readingPaused = false;

  constructor(
    readonly socket: WebSocket,
    options: WebSocketTransportOptions = {},
  ) {
    const flow = resolveFlowOptions('WebSocketServerTransport', options);
    this.highWaterMark = flow.highWaterMark;
    this.maxQueuedBytes = flow.maxQueuedBytes;
  }

  /** The flow-control state of this socket (for metrics and tests). */
  get flow(): WebSocketFlowState {
    return {
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

  /** Stops reading the socket (the Peer's in-flight limit is reached); frames already read still arrive. */
  pauseReading(): void {
    if (this.finished || this.readingPaused) return;
    this.readingPaused = true;
    pauseSocket(this.socket);
  }

  /** Reads the socket again. */
  resumeReading(): void {
    if (this.finished || !this.readingPaused) return;
    this.readingPaused = false;
    resumeSocket(this.socket);
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
    this.sink?.message(value);
  }

  private readonly onWritten = () => {
    if (this.queue.length > 0) this.flush();
  };

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
