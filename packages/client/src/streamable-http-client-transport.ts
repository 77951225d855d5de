import {
  GantryError,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isStatelessRequest,
  LocalErrorCode,
  Method,
  NotConnectedError,
  type RequestId,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import { authorizedFetch } from './auth/authorized-fetch';
import type { McpAuth } from './auth/types';
import type { ClientTransportHooks } from './client-transport-hooks';
import { DEFAULT_MAX_HTTP_MESSAGE_BYTES, type HttpHeadersOption, parseHttpUrl } from './http-exchange';
import type { ParamHeader } from './param-headers';
import { type ReconnectOptions, resolveReconnectOptions } from './reconnect-policy';
import { type HttpCore, responseIdsIn } from './streamable-http-core';
import { SessionHttpExchange } from './streamable-http-session';
import { StatelessHttpExchange } from './streamable-http-stateless';

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** The MCP endpoint (one URL serving POST, GET and DELETE). */
  url: string | URL;
  /** Extra headers for every request, or a function called before each one. */
  headers?: HttpHeadersOption;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
  /**
   * How requests are authorized (`oauth()`, `clientCredentials()`, `crossAppAccess()`,
   * `bearerToken()`): each carries its `Authorization`, and a 401 or a 403
   * `insufficient_scope` runs the strategy and retries. Its header wins over `headers`.
   */
  auth?: McpAuth;
  /** Reconnection of SSE streams: resumption of a request's stream and the GET stream. */
  reconnect?: Partial<ReconnectOptions>;
  /**
   * When the server answers HTTP 404 to a request carrying the session id (the session
   * ended), start a new session through the Client and re-send the request once. Default
   * true; when false (or with no Client hook installed) the transport closes instead.
   */
  reinitializeOnSessionLost?: boolean;
  /** Largest JSON body (bytes) or server-sent event (characters) accepted; default 4 Mi. */
  maxMessageBytes?: number;
  /**
   * Problems nobody awaits: a server-sent event that is not JSON, a GET stream given up,
   * a failed DELETE. Default: ignored.
   */
  onError?: (error: Error) => void;
}

type State = 'idle' | 'open' | 'closed';

/**
 * Client side of the Streamable HTTP transport: the session era (2025-03-26 … 2025-11-25
 * transports §"Streamable HTTP") and the stateless era (2026-07-28).
 *
 * Stateless era: a request whose `_meta` names a protocol version is POSTed on its own, with
 * `MCP-Protocol-Version` (= that version), `Mcp-Method`, `Mcp-Name` (`params.name` of
 * `tools/call` and `prompts/get`, `params.uri` of `resources/read`, `params.taskId` of the
 * tasks extension) and the `Mcp-Param-*` headers of annotated tool arguments (see
 * {@link ClientTransportHooks.setParamHeaders}), values encoded with `encodeHeaderValue`. It
 * never carries `MCP-Session-Id` or `Last-Event-ID`, and opens no GET stream. Its SSE answer
 * is read once: a stream that breaks before the response fails the request (2026-07-28 has
 * no resumption). Cancelling it (`notifications/cancelled` from the Peer) aborts the POST,
 * which closes the response stream; the notification itself is not sent.
 *
 * Session era:
 * - Every message is a POST to the endpoint with `Accept: application/json, text/event-stream`,
 *   plus `MCP-Session-Id` (taken from the answer to `initialize`) and `MCP-Protocol-Version`
 *   (set by the Client through `setProtocolVersion`) once known. A `send` settles when the
 *   server has answered the POST's headers.
 * - A JSON answer is delivered as is (a message or a batch). An SSE answer is read in the
 *   background; each event's `data` is one message. When that stream ends before the
 *   responses it owes, and an event id was seen, it is resumed with `GET` + `Last-Event-ID`
 *   after the server's `retry` (SEP-1699 polling), again and again until the responses
 *   arrive or the requests are cancelled (the Peer's timeout sends `notifications/cancelled`,
 *   which ends the polling); `reconnect.maxRetries` bounds consecutive failed attempts.
 * - An HTTP error on a POST carrying requests rejects only those requests: each gets a
 *   JSON-RPC error response naming the status and quoting the body ({@link HttpStatusError}).
 *   A POST carrying only notifications or responses rejects its `send` instead.
 * - After `notifications/initialized` is accepted, the standalone GET stream is opened for
 *   server-initiated messages: 405 means the server offers none; a dropped stream is
 *   reconnected with backoff, honouring `retry` and `Last-Event-ID`. Here an attempt that
 *   ends without any event counts as failed too (no request bounds this stream), and after
 *   `maxRetries` failures in a row the stream is given up and reported to `onError`.
 * - Session lost: see {@link StreamableHttpClientTransportOptions.reinitializeOnSessionLost}.
 *   A request is re-sent at most once, and only when its own POST met the 404 (so the
 *   server never ran it); messages sent meanwhile wait for the new session.
 * - `close()` aborts every stream, sends `DELETE` with the session id (a 405 or 404 answer
 *   is fine), then tells the sink.
 *
 * @example
 * const client = new Client({ name: 'cli', version: '1.0.0' });
 * await client.connect(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' }));
 */
export class StreamableHttpClientTransport implements Transport, ClientTransportHooks {
  /** The MCP endpoint. */
  readonly url: URL;
  /** Stateless-era requests go one per POST, with the 2026-07-28 request-metadata headers. */
  readonly eraBinding = 'http' as const;
  private state: State = 'idle';
  private sink?: TransportSink;
  private closing?: Promise<void>;
  /** Aborts every fetch, stream and reconnection wait when the transport closes. */
  private readonly lifetime = new AbortController();
  /** Session-era messages: the session, its streams and its recovery. */
  private readonly sessionEra: SessionHttpExchange;
  /** Stateless-era requests: one POST each. */
  private readonly statelessEra: StatelessHttpExchange;

  constructor(private readonly options: StreamableHttpClientTransportOptions) {
    const owner = 'StreamableHttpClientTransport';
    this.url = parseHttpUrl(owner, options?.url);
    const baseFetch = options.fetch ?? ((input, init) => fetch(input, init));
    const fetchImpl = options.auth ? authorizedFetch(baseFetch, options.auth) : baseFetch;
    const reconnect: ReconnectOptions = resolveReconnectOptions(owner, options.reconnect);
    const core: HttpCore = {
      url: this.url,
      fetch: fetchImpl,
      headers: options.headers,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_HTTP_MESSAGE_BYTES,
      lifetime: this.lifetime.signal,
      isOpen: () => this.state === 'open',
      assertOpen: () => this.assertOpen(),
      deliver: (value) => this.deliver(value),
      fail: (error) => this.fail(error),
      reportError: (error) => this.options.onError?.(error),
    };
    this.sessionEra = new SessionHttpExchange(core, reconnect, options.reinitializeOnSessionLost ?? true);
    this.statelessEra = new StatelessHttpExchange(core);
  }

  /** The session id the server assigned in its answer to `initialize`, if any. */
  get sessionId(): string | undefined {
    return this.sessionEra.session;
  }

  /** The version sent as `MCP-Protocol-Version` on session-era requests, once the Client has set it. */
  get protocolVersion(): string | undefined {
    return this.sessionEra.version;
  }

  /** The era cache's key for this endpoint: its origin and path. */
  get eraCacheKey(): string {
    return `http:${this.url.origin}${this.url.pathname}`;
  }

  /** Starts the transport. Nothing is sent until the first message. */
  start(sink: TransportSink): void {
    if (this.state === 'open') {
      throw new GantryError(LocalErrorCode.AlreadyStarted, 'StreamableHttpClientTransport already started');
    }
    if (this.state === 'closed') {
      throw new NotConnectedError('StreamableHttpClientTransport was closed; create a new one');
    }
    this.sink = sink;
    this.state = 'open';
  }

  /** Sends `MCP-Protocol-Version: <version>` on every later request (the Client calls this after `initialize`). */
  setProtocolVersion(version: string): void {
    if (typeof version !== 'string' || version === '') {
      throw new TypeError('StreamableHttpClientTransport: the protocol version must be a non-empty string');
    }
    this.sessionEra.version = version;
  }

  /** Installs where the `x-mcp-header` annotations of tools are looked up (the Client does this on connect). */
  setParamHeaders(lookup: ((tool: string) => readonly ParamHeader[] | undefined) | undefined): void {
    this.statelessEra.paramHeaders = lookup;
  }

  /** Installs the function that re-initializes the session (the Client does this on connect). */
  setSessionLostHandler(handler: (() => Promise<void>) | undefined): void {
    this.sessionEra.lostHandler = handler;
  }

  /**
   * POSTs one message (or a batch); settles once the server has answered the POST's headers.
   * A request whose `_meta` names a stateless-era version, and the cancellation of one, go
   * the stateless era's way; everything else is the session era's.
   */
  async send(message: WireMessage): Promise<void> {
    this.assertOpen();
    if (!Array.isArray(message)) {
      // Stateless era: one POST per request, no session; cancelling aborts that POST.
      if (isJSONRPCRequest(message) && isStatelessRequest(message)) return this.statelessEra.post(message);
      if (isJSONRPCNotification(message) && message.method === Method.Cancelled) {
        const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (this.statelessEra.cancel(requestId)) return;
      }
    }
    await this.sessionEra.send(message);
  }

  /** Aborts every stream, ends the session with DELETE, then tells the sink. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.lifetime.abort();
    if (wasOpen) await this.sessionEra.end();
    this.finish();
  }

  /** Hands a decoded value to the sink, first noting the responses it carries. */
  private deliver(value: unknown): void {
    const sink = this.sink;
    if (this.state !== 'open' || !sink) return;
    for (const id of responseIdsIn(value)) this.sessionEra.stopAwaiting(id);
    sink.message(value);
  }

  private assertOpen(): void {
    if (this.state !== 'open') {
      throw new NotConnectedError(
        this.state === 'idle'
          ? 'Not connected: the Streamable HTTP transport has not been started'
          : 'Not connected: the Streamable HTTP transport is closed',
      );
    }
  }

  /** Ends the connection on the transport's own initiative (the session could not be recovered). */
  private fail(error: Error): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.lifetime.abort();
    this.finish(error);
  }

  private finish(error?: Error): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.closed(error);
  }
}
