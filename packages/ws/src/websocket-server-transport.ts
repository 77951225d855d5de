import {
  ConnectionClosedError,
  ParseError,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import WebSocket from 'ws';

/** Close codes used by the MCP WebSocket binding (RFC 6455 §7.4.1). */
export const WsCloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  UnsupportedData: 1003,
  MessageTooBig: 1009,
} as const;

/** How long `close()` waits for the peer's close frame before dropping the connection. */
const CLOSE_GRACE_MS = 2_000;

/**
 * One accepted WebSocket as an MCP transport: one UTF-8 JSON-RPC message (or batch) per text
 * frame, no other envelope. Binary frames close the socket with 1003; a text frame that is not
 * JSON is reported to the Peer, which answers −32700 with `id: null` and keeps the socket open.
 * Frames over `maxPayload` are refused by `ws` itself with 1009, and invalid UTF-8 with 1007.
 */
export class WebSocketServerTransport implements Transport {
  private sink?: TransportSink;
  private finished = false;
  private closing?: Promise<void>;
  /** Close code used when {@link close} is called without one (the listener sets 1001 on shutdown). */
  closeCode: number = WsCloseCode.Normal;

  constructor(readonly socket: WebSocket) {}

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
    return new Promise<void>((resolve, reject) => {
      this.socket.send(text, { binary: false }, (error) => (error ? reject(error) : resolve()));
    });
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
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : data instanceof ArrayBuffer
        ? Buffer.from(new Uint8Array(data)).toString('utf8')
        : data.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.sink?.invalid(new ParseError(`Parse error: ${(error as Error).message}`));
      return;
    }
    this.sink?.message(value);
  }

  private finish(code: number, reason: string): void {
    if (this.finished) return;
    this.finished = true;
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
