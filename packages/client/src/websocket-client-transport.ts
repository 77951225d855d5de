import {
  ConnectionClosedError,
  GantryError,
  LocalErrorCode,
  NotConnectedError,
  ParseError,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type WebSocket from 'ws';

/** `ws`, loaded when a WebSocket transport starts: it is an optional peer dependency of the client. */
function loadWs(): typeof WebSocket {
  try {
    return require('ws') as typeof WebSocket;
  } catch {
    throw new Error('WebSocketClientTransport needs the ws package: npm install ws');
  }
}

// ws's ready states (RFC 6455), so that reading them does not load ws.
const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/** Options of {@link WebSocketClientTransport}. */
export interface WebSocketClientTransportOptions {
  /** `ws://` or `wss://` URL of the server's MCP endpoint. */
  url: string | URL;
  /** Subprotocols to offer; the server must pick `mcp`. Default `['mcp']`. */
  protocols?: readonly string[];
  /** Extra headers of the upgrade request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** Largest frame accepted from the server. Default 4 MiB. */
  maxPayload?: number;
  /** Receives each text frame that is not JSON; such frames are dropped. */
  onInvalidMessage?: (error: ParseError) => void;
}

/**
 * Client side of the WebSocket binding: one JSON-RPC message per text frame on a socket
 * opened with subprotocol `mcp` (the same binding as the official SDK's `WebSocketClientTransport`).
 *
 * @example
 * await client.connect(new WebSocketClientTransport({ url: 'ws://127.0.0.1:3001/mcp' }));
 */
export class WebSocketClientTransport implements Transport {
  private socket?: WebSocket;
  private sink?: TransportSink;
  private closing?: Promise<void>;
  private finished = false;

  constructor(private readonly options: WebSocketClientTransportOptions) {
    if (!options?.url) throw new TypeError('WebSocketClientTransport: `url` is required');
  }

  /** The subprotocol the server picked, once open. */
  get protocol(): string | undefined {
    return this.socket?.protocol || undefined;
  }

  /** Opens the socket; rejects if the upgrade is refused or the server does not pick `mcp`. */
  async start(sink: TransportSink): Promise<void> {
    if (this.socket || this.sink) {
      throw new GantryError(LocalErrorCode.AlreadyStarted, 'WebSocketClientTransport already started');
    }
    if (this.closing) throw new NotConnectedError('WebSocketClientTransport was closed before it started');
    this.sink = sink;
    const protocols = [...(this.options.protocols ?? ['mcp'])];
    const WebSocketClass = loadWs();
    const socket = new WebSocketClass(this.options.url, protocols, {
      headers: this.options.headers,
      maxPayload: this.options.maxPayload ?? 4 * 1024 * 1024,
      perMessageDeflate: false,
    });
    this.socket = socket;
    // Errors after a refused upgrade or during close are reported through `close`.
    socket.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      const onOpen = () => {
        cleanup();
        resolve();
      };
      const onError = (error: Error) => {
        cleanup();
        reject(
          new ConnectionClosedError(`Cannot open WebSocket ${String(this.options.url)}: ${error.message}`),
        );
      };
      const onUnexpected = (_req: unknown, res: import('node:http').IncomingMessage) => {
        cleanup();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < 2048) body += chunk;
        });
        const refused = () => {
          socket.terminate();
          reject(
            new ConnectionClosedError(
              `WebSocket upgrade refused with HTTP ${res.statusCode}${body.trim() ? `: ${body.trim()}` : ''}`,
            ),
          );
        };
        res.once('end', refused);
        res.once('error', refused);
      };
      const cleanup = () => {
        socket.off('open', onOpen);
        socket.off('error', onError);
        socket.off('unexpected-response', onUnexpected);
      };
      socket.once('open', onOpen);
      socket.once('error', onError);
      socket.once('unexpected-response', onUnexpected);
    }).catch((error) => {
      this.sink = undefined;
      this.finished = true;
      throw error;
    });
    if (!protocols.includes(socket.protocol)) {
      socket.terminate();
      this.sink = undefined;
      this.finished = true;
      throw new ConnectionClosedError(`The server chose no offered subprotocol (got "${socket.protocol}")`);
    }
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : data instanceof ArrayBuffer
          ? Buffer.from(new Uint8Array(data)).toString('utf8')
          : data.toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        this.options.onInvalidMessage?.(new ParseError(`Parse error: ${(error as Error).message}`));
        return;
      }
      this.sink?.message(value);
    });
    socket.once('close', (code, reason) => this.finish(code, reason.toString('utf8')));
  }

  /** Sends one message as a text frame; settles once it is written. */
  send(message: WireMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || this.finished || this.closing || socket.readyState !== OPEN) {
      return Promise.reject(new NotConnectedError('Not connected: the WebSocket is not open'));
    }
    const text = JSON.stringify(message);
    return new Promise<void>((resolve, reject) => {
      socket.send(text, { binary: false }, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Closes the socket (code 1000) and waits for the closing handshake, at most 2 s. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const socket = this.socket;
      if (!socket || socket.readyState === CLOSED) {
        this.finish(1000, '');
        resolve();
        return;
      }
      const timer = setTimeout(() => socket.terminate(), 2_000);
      timer.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        this.finish(1000, '');
        resolve();
      });
      if (socket.readyState === CONNECTING) socket.terminate();
      else socket.close(1000);
    });
    return this.closing;
  }

  private finish(code: number, reason: string): void {
    if (this.finished && !this.sink) return;
    this.finished = true;
    const sink = this.sink;
    this.sink = undefined;
    if (!sink) return;
    if (code === 1000 || this.closing) sink.closed();
    else
      sink.closed(
        new ConnectionClosedError(`WebSocket closed with code ${code}${reason ? ` (${reason})` : ''}`),
      );
  }
}
