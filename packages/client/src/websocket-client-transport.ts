import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ConnectionClosedError,
  ErrorCode,
  GantryError,
  isRequestId,
  JSONRPC_VERSION,
  type JSONRPCMessage,
  LocalErrorCode,
  Method,
  NotConnectedError,
  ParseError,
  type RequestId,
  StatelessMethod,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type WebSocket from 'ws';
import type { McpAuth } from './auth/types';
import { parseWwwAuthenticate } from './auth/www-authenticate';
import type { ClientTransportHooks } from './client-transport-hooks';
import { type HttpHeadersOption, resolveHeaders } from './http-exchange';
import { isAuthStatus } from './http-status-error';

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

/** How long `close()` waits for the server's close frame. */
const CLOSE_GRACE_MS = 2_000;
/** How long an opening handshake may take before it counts as a failed attempt. */
const OPEN_TIMEOUT_MS = 30_000;

/**
 * Close codes after which reopening would only repeat the failure: the server ended the
 * connection on purpose (1000), or this client broke the protocol (1002, 1003, 1007, 1010).
 */
const FINAL_CLOSE_CODES = new Set([1000, 1002, 1003, 1007, 1010]);

/** Reconnection after an unexpected close: exponential backoff with full jitter. */
export interface WebSocketReconnectOptions {
  /** Attempts to reopen after one unexpected close before giving up; default 8. */
  maxAttempts?: number;
  /** Upper bound of the first attempt's random delay, in ms; default 500. */
  initialDelayMs?: number;
  /** Upper bound of any attempt's random delay, in ms; default 30 000. */
  maxDelayMs?: number;
  /** Growth of the upper bound from one attempt to the next; default 2. */
  factor?: number;
}

/** Defaults of {@link WebSocketReconnectOptions}. */
export const DEFAULT_WEBSOCKET_RECONNECT: Readonly<Required<WebSocketReconnectOptions>> = Object.freeze({
  maxAttempts: 8,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  factor: 2,
});

/** Options of {@link WebSocketClientTransport}. */
export interface WebSocketClientTransportOptions {
  /** `ws://` or `wss://` URL of the server's MCP endpoint. */
  url: string | URL;
  /** Subprotocols to offer; the server must pick `mcp`. Default `['mcp']`. */
  protocols?: readonly string[];
  /**
   * Extra headers of the upgrade request (e.g. `Authorization`), or a function called before
   * each connection, reconnections included (so a refreshed token is sent).
   */
  headers?: HttpHeadersOption;
  /**
   * How the upgrade is authorized (`oauth()`, `clientCredentials()`, …): the request carries the
   * strategy's `Authorization`, and a 401/403 refusal runs it and retries the upgrade.
   */
  auth?: McpAuth;
  /** Largest frame accepted from the server. Default 4 MiB. */
  maxPayload?: number;
  /** Receives each text frame that is not JSON; such frames are dropped. */
  onInvalidMessage?: (error: ParseError) => void;
  /**
   * Reopen the socket when it closes unexpectedly (`true` for the defaults of
   * {@link DEFAULT_WEBSOCKET_RECONNECT}). Default: no reconnection; the connection ends.
   *
   * What happens on such a close: requests awaiting an answer fail at once (the Peer rejects
   * them with a −32603 error saying the connection was lost; they may or may not have run),
   * requests the server made of this client are cancelled, and attempts to reopen start,
   * each after a random delay in [0, min(maxDelayMs, initialDelayMs × factor^(n−1))). An
   * upgrade refused with HTTP 4xx (but 408 and 429) ends the attempts at once. Once open, the
   * session-lost handler (installed by the Client: it performs `initialize` again) runs, then
   * {@link onReconnect}. Messages sent meanwhile wait (`initialize`, `notifications/initialized`
   * and `server/discover` only for the socket; everything else also for the handler), within
   * their request timeouts. Giving up ends the connection with an error. A close with 1000,
   * 1002, 1003, 1007 or 1010 is final, and `close()` stops everything.
   */
  reconnect?: boolean | WebSocketReconnectOptions;
  /**
   * Called after each successful reconnection, once the session-lost handler (if any) has run:
   * the place to start again what the server forgot with the old connection (a stateless-era
   * `subscriptions/listen`, `resources/subscribe`, `logging/setLevel`). If it throws, the
   * connection ends with that error.
   */
  onReconnect?: () => void | Promise<void>;
}

/** The upgrade was refused; `status` is the HTTP status, 0 when no response came. */
class UpgradeFailedError extends ConnectionClosedError {
  constructor(
    message: string,
    readonly status: number,
    readonly final: boolean,
    readonly wwwAuthenticate?: string,
  ) {
    super(message);
  }
}

type State = 'idle' | 'open' | 'reconnecting' | 'closed';

function resolveReconnect(option: boolean | WebSocketReconnectOptions | undefined) {
  if (option === undefined || option === false) return undefined;
  const resolved = { ...DEFAULT_WEBSOCKET_RECONNECT, ...(option === true ? {} : option) };
  for (const [key, value] of Object.entries(resolved)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(
        `WebSocketClientTransport: reconnect.${key} must be a finite number ≥ 0 (got ${String(value)})`,
      );
    }
  }
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) {
    throw new TypeError(
      `WebSocketClientTransport: reconnect.maxAttempts must be a whole number ≥ 1 (got ${resolved.maxAttempts})`,
    );
  }
  if (resolved.factor < 1) {
    throw new TypeError(`WebSocketClientTransport: reconnect.factor must be ≥ 1 (got ${resolved.factor})`);
  }
  return resolved;
}

/** `initialize`, `notifications/initialized` and `server/discover` start a session: they never wait for one. */
function isHandshake(message: JSONRPCMessage): boolean {
  const method = (message as { method?: unknown }).method;
  return (
    method === Method.Initialize || method === Method.Initialized || method === StatelessMethod.ServerDiscover
  );
}

function textOf(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(new Uint8Array(data)).toString('utf8');
  return data.toString('utf8');
}

/**
 * Client side of the WebSocket binding: one JSON-RPC message per text frame on a socket
 * opened with subprotocol `mcp` (the same binding as the official SDK's `WebSocketClientTransport`),
 * with optional reconnection (see {@link WebSocketClientTransportOptions.reconnect}).
 *
 * @example
 * await client.connect(new WebSocketClientTransport({ url: 'ws://127.0.0.1:3001/mcp', reconnect: true }));
 */
export class WebSocketClientTransport implements Transport, ClientTransportHooks {
  private socket?: WebSocket;
  private sink?: TransportSink;
  private state: State = 'idle';
  private closing?: Promise<void>;
  private readonly reconnectOptions?: Required<WebSocketReconnectOptions>;
  private sessionLostHandler?: () => Promise<void>;
  /** Ids of requests sent on the current socket that await an answer. */
  private readonly awaiting = new Set<RequestId>();
  /** Ids of the server's requests received on the current socket and not answered yet. */
  private readonly serving = new Set<RequestId>();
  /** While reconnecting: settles with true once the socket is open again, false if that failed. */
  private reopened?: Promise<boolean>;
  /** While reconnecting: settles once the session-lost handler has run too. */
  private recovered?: Promise<boolean>;
  /** Bumped at each unexpected close, so an older reconnection loop knows it is stale. */
  private outage = 0;
  private reconnections = 0;
  private readonly lifetime = new AbortController();

  constructor(private readonly options: WebSocketClientTransportOptions) {
    if (!options?.url) throw new TypeError('WebSocketClientTransport: `url` is required');
    this.reconnectOptions = resolveReconnect(options.reconnect);
  }

  /** The subprotocol the server picked, once open. */
  get protocol(): string | undefined {
    return this.socket?.protocol || undefined;
  }

  /** The era cache's key for this endpoint: its origin and path (the query may carry a token). */
  get eraCacheKey(): string {
    const url = new URL(String(this.options.url));
    return `ws:${url.origin}${url.pathname}`;
  }

  /** How many times the socket was reopened after an unexpected close. */
  get reconnectCount(): number {
    return this.reconnections;
  }

  /** True between an unexpected close and the end of the reconnection that follows it. */
  get isReconnecting(): boolean {
    return this.recovered !== undefined;
  }

  /**
   * Installs the function that starts a new session on a reopened socket (the Client does
   * this on connect: it performs `initialize` and `notifications/initialized` again).
   */
  setSessionLostHandler(handler: (() => Promise<void>) | undefined): void {
    this.sessionLostHandler = handler;
  }

  /** Opens the socket; rejects if the upgrade is refused or the server does not pick `mcp`. */
  async start(sink: TransportSink): Promise<void> {
    if (this.state !== 'idle' || this.sink) {
      throw new GantryError(LocalErrorCode.AlreadyStarted, 'WebSocketClientTransport already started');
    }
    if (this.closing) throw new NotConnectedError('WebSocketClientTransport was closed before it started');
    this.sink = sink;
    let socket: WebSocket;
    try {
      socket = await this.open();
    } catch (error) {
      this.sink = undefined;
      this.state = 'closed';
      throw error;
    }
    if (this.closing) {
      socket.terminate();
      this.sink = undefined;
      throw new NotConnectedError('WebSocketClientTransport was closed while it started');
    }
    this.attach(socket);
  }

  /** Sends one message as a text frame; settles once it is written. While reconnecting, it waits first. */
  async send(message: WireMessage): Promise<void> {
    if (this.state === 'reconnecting' || this.recovered) {
      const handshake = Array.isArray(message) ? message.some(isHandshake) : isHandshake(message);
      const ready = handshake ? this.reopened : this.recovered;
      if (ready && !(await ready)) {
        throw new NotConnectedError('Not connected: the WebSocket closed and could not be reopened');
      }
    }
    const socket = this.socket;
    if (!socket || this.state !== 'open' || this.closing || socket.readyState !== OPEN) {
      throw new NotConnectedError('Not connected: the WebSocket is not open');
    }
    const outgoing = Array.isArray(message) ? message.filter((item) => this.noteOutgoing(item)) : message;
    if (Array.isArray(outgoing) ? outgoing.length === 0 : !this.noteOutgoing(outgoing)) return;
    const text = JSON.stringify(outgoing);
    await new Promise<void>((resolve, reject) => {
      socket.send(text, { binary: false }, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Closes the socket (code 1000) and waits for the closing handshake, at most 2 s. Stops reconnecting. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.lifetime.abort();
      const socket = this.socket;
      if (!socket || socket.readyState === CLOSED) {
        this.finish(undefined);
        resolve();
        return;
      }
      const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
      timer.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        this.finish(undefined);
        resolve();
      });
      if (socket.readyState === CONNECTING) socket.terminate();
      else socket.close(1000);
    });
    return this.closing;
  }

  /** Opens a socket; with `auth`, a 401/403 refusal runs the strategy and the upgrade is retried. */
  private async open(): Promise<WebSocket> {
    const auth = this.options.auth;
    if (!auth) return this.openOnce(undefined);
    // The strategy discovers and keys tokens by the endpoint's HTTP URL.
    const url = new URL(String(this.options.url).replace(/^ws/i, 'http'));
    for (let attempt = 0; ; attempt++) {
      const authorization = await auth.authorization(url);
      try {
        return await this.openOnce(authorization);
      } catch (error) {
        if (!(error instanceof UpgradeFailedError) || !isAuthStatus(error.status) || attempt >= 4)
          throw error;
        const status = error.status as 401 | 403;
        const challenges = parseWwwAuthenticate(error.wwwAuthenticate);
        if (!(await auth.challenge({ url, status, challenges, usedAuthorization: authorization })))
          throw error;
      }
    }
  }

  /** Opens one socket and waits for the upgrade; the socket is not yet attached. */
  private async openOnce(authorization: string | undefined): Promise<WebSocket> {
    const protocols = [...(this.options.protocols ?? ['mcp'])];
    const WebSocketClass = loadWs();
    const headers = Object.fromEntries(await resolveHeaders(this.options.headers));
    if (authorization !== undefined) headers.authorization = authorization;
    const url = String(this.options.url);
    const socket = new WebSocketClass(this.options.url, protocols, {
      headers,
      maxPayload: this.options.maxPayload ?? 4 * 1024 * 1024,
      perMessageDeflate: false,
      handshakeTimeout: OPEN_TIMEOUT_MS,
    });
    // Errors after a refused upgrade or during close are reported through `close`.
    socket.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      const onOpen = () => {
        cleanup();
        resolve();
      };
      const onError = (error: Error) => {
        cleanup();
        reject(new UpgradeFailedError(`Cannot open WebSocket ${url}: ${error.message}`, 0, false));
      };
      const onUnexpected = (_req: unknown, res: IncomingMessage) => {
        cleanup();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < 2048) body += chunk;
        });
        const refused = () => {
          socket.terminate();
          const status = res.statusCode ?? 0;
          // A client error will recur on every attempt; a timeout, rate limit or server error may not.
          const final = status >= 400 && status < 500 && status !== 408 && status !== 429;
          reject(
            new UpgradeFailedError(
              `WebSocket upgrade refused with HTTP ${status}${body.trim() ? `: ${body.trim()}` : ''}`,
              status,
              final,
              typeof res.headers['www-authenticate'] === 'string'
                ? res.headers['www-authenticate']
                : undefined,
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
    });
    if (!protocols.includes(socket.protocol)) {
      socket.terminate();
      throw new UpgradeFailedError(
        `The server chose no offered subprotocol (got "${socket.protocol}")`,
        101,
        true,
      );
    }
    return socket;
  }

  private attach(socket: WebSocket): void {
    this.socket = socket;
    this.state = 'open';
    socket.on('message', (data, isBinary) => {
      if (isBinary || socket !== this.socket) return;
      let value: unknown;
      try {
        value = JSON.parse(textOf(data));
      } catch (error) {
        this.options.onInvalidMessage?.(new ParseError(`Parse error: ${(error as Error).message}`));
        return;
      }
      if (Array.isArray(value)) for (const item of value) this.noteIncoming(item);
      else this.noteIncoming(value);
      this.sink?.message(value);
    });
    socket.once('close', (code, reason) => this.onClose(socket, code, reason.toString('utf8')));
  }

  /** Bookkeeping of what the server sends: answers settle our requests, its requests await ours. */
  private noteIncoming(value: unknown): void {
    if (typeof value !== 'object' || value === null) return;
    const message = value as { id?: unknown; method?: unknown };
    if (!isRequestId(message.id)) return;
    if (typeof message.method === 'string') this.serving.add(message.id);
    else this.awaiting.delete(message.id);
  }

  /**
   * Bookkeeping of what we send; false for an answer to a request of an earlier socket, which
   * must not reach the new one (its ids start again and would answer a different request).
   */
  private noteOutgoing(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof m.method === 'string') {
      if (isRequestId(m.id)) this.awaiting.add(m.id);
      else if (m.method === Method.Cancelled && isRequestId(m.params?.requestId)) {
        this.awaiting.delete(m.params.requestId);
      }
      return true;
    }
    if (!isRequestId(m.id)) return true;
    return this.serving.delete(m.id);
  }

  private onClose(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    if (this.closing || this.state === 'closed') {
      this.finish(undefined);
      return;
    }
    const error = new ConnectionClosedError(
      `WebSocket closed with code ${code}${reason ? ` (${reason})` : ''}`,
    );
    if (!this.reconnectOptions || FINAL_CLOSE_CODES.has(code)) {
      this.finish(code === 1000 ? undefined : error);
      return;
    }
    this.reconnectAfter(error);
  }

  private reconnectAfter(cause: ConnectionClosedError): void {
    this.state = 'reconnecting';
    const outage = ++this.outage;
    this.failPending(cause);
    let settleReopened!: (ok: boolean) => void;
    let settleRecovered!: (ok: boolean) => void;
    this.reopened = new Promise((resolve) => {
      settleReopened = resolve;
    });
    this.recovered = new Promise((resolve) => {
      settleRecovered = resolve;
    });
    const recovered = this.recovered;
    this.reconnect(outage, cause, settleReopened, settleRecovered).then(
      (ok) => {
        settleReopened(ok);
        settleRecovered(ok);
        if (this.recovered === recovered) {
          this.reopened = undefined;
          this.recovered = undefined;
        }
      },
      // reconnect() handles its own failures; this only keeps a bug from going unnoticed.
      (error: unknown) => this.finish(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /** The attempts of one outage; resolves true once reopened and recovered. */
  private async reconnect(
    outage: number,
    cause: ConnectionClosedError,
    reopened: (ok: boolean) => void,
    recovered: (ok: boolean) => void,
  ): Promise<boolean> {
    const options = this.reconnectOptions as Required<WebSocketReconnectOptions>;
    let lastError: Error = cause;
    let attempts = 0;
    while (attempts < options.maxAttempts) {
      attempts++;
      const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * options.factor ** (attempts - 1));
      try {
        // Full jitter: clients that lost the same server do not all come back at once.
        await sleep(Math.random() * ceiling, undefined, { signal: this.lifetime.signal });
      } catch {
        return false; // close() was called
      }
      let socket: WebSocket;
      try {
        socket = await this.open();
      } catch (error) {
        lastError = error as Error;
        if (error instanceof UpgradeFailedError && error.final) break;
        continue;
      }
      if (this.lifetime.signal.aborted || outage !== this.outage) {
        socket.terminate();
        return false;
      }
      this.reconnections++;
      this.attach(socket);
      reopened(true);
      try {
        await this.sessionLostHandler?.();
        recovered(true);
        await this.options.onReconnect?.();
      } catch (error) {
        // A later outage has its own loop; this one is over.
        if (outage !== this.outage) return false;
        this.fail(
          new ConnectionClosedError(
            `The WebSocket was reopened, but starting over on it failed: ${(error as Error)?.message ?? String(error)}`,
            { cause: error },
          ),
        );
        return false;
      }
      return true;
    }
    this.fail(
      new ConnectionClosedError(
        `${cause.message}; reconnecting failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${lastError.message}`,
        { cause: lastError },
      ),
    );
    return false;
  }

  /**
   * Requests awaiting an answer on the lost socket get an error response now (they may or may
   * not have run; the server forgot them), and the server's requests to us are cancelled.
   */
  private failPending(cause: ConnectionClosedError): void {
    const sink = this.sink;
    const awaiting = [...this.awaiting];
    const serving = [...this.serving];
    this.awaiting.clear();
    this.serving.clear();
    if (!sink) return;
    for (const id of awaiting) {
      sink.message({
        jsonrpc: JSONRPC_VERSION,
        id,
        error: {
          code: ErrorCode.InternalError,
          message: `Connection lost before the answer arrived (${cause.message}); the request may or may not have been carried out`,
        },
      });
    }
    for (const requestId of serving) {
      sink.message({
        jsonrpc: JSONRPC_VERSION,
        method: Method.Cancelled,
        params: { requestId, reason: `Connection lost (${cause.message})` },
      });
    }
  }

  /** Ends the connection on the transport's own initiative (reconnection gave up or failed). */
  private fail(error: Error): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.terminate();
    this.finish(error);
  }

  private finish(error: Error | undefined): void {
    if (this.state === 'closed' && !this.sink) return;
    this.state = 'closed';
    this.lifetime.abort();
    this.awaiting.clear();
    this.serving.clear();
    const sink = this.sink;
    this.sink = undefined;
    sink?.closed(error);
  }
}
