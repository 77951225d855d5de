import {
  ConnectionClosedError,
  ErrorCode,
  encodeHeaderValue,
  GantryError,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isStatelessRequest,
  type JSONRPCErrorObject,
  type JSONRPCMessage,
  type JSONRPCRequest,
  LocalErrorCode,
  MetaKey,
  Method,
  NotConnectedError,
  ParseError,
  type RequestId,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type { ClientTransportHooks } from './client-transport-hooks';
import { readEventStream } from './event-stream-reader';
import {
  asError,
  DEFAULT_MAX_HTTP_MESSAGE_BYTES,
  discardBody,
  excerpt,
  type HttpHeadersOption,
  mediaTypeOf,
  parseHttpUrl,
  readBodyText,
  resolveHeaders,
  unreachableError,
} from './http-exchange';
import { errorResponse, type HttpFailureData, HttpStatusError } from './http-status-error';
import { type ParamHeader, paramHeaderValues } from './param-headers';
import { type ReconnectOptions, resolveReconnectOptions } from './reconnect-policy';
import {
  type EventStream,
  type EventStreamHost,
  followRequestStream,
  followStandaloneStream,
  type GetOutcome,
  internalError,
  newEventStream,
} from './resumable-event-stream';
import { SseParser } from './sse-parser';

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** The MCP endpoint (one URL serving POST, GET and DELETE). */
  url: string | URL;
  /** Extra headers for every request, or a function called before each one. */
  headers?: HttpHeadersOption;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
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

/** How long `close()` waits for the server to answer the DELETE that ends the session. */
const DELETE_TIMEOUT_MS = 5_000;
/** 2025-11-25 transports: a session id holds only visible ASCII (0x21–0x7E). */
const SESSION_ID = /^[\x21-\x7e]+$/;

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
  private readonly fetchImpl: typeof fetch;
  private readonly reconnect: ReconnectOptions;
  private readonly maxMessageBytes: number;
  private readonly reinitializeOnSessionLost: boolean;
  private state: State = 'idle';
  private sink?: TransportSink;
  private closing?: Promise<void>;
  /** Aborts every fetch, stream and reconnection wait when the transport closes. */
  private readonly lifetime = new AbortController();
  private session?: string;
  private version?: string;
  private sessionLostHandler?: () => Promise<void>;
  /** One recovery per lost session id, shared by every message that met its 404. */
  private readonly recoveries = new Map<string, Promise<boolean>>();
  /** The recovery in progress: messages other than the handshake wait for it. */
  private recovering?: Promise<boolean>;
  /** Request id → the stream that owes its response. */
  private readonly awaiting = new Map<RequestId, EventStream>();
  private standalone?: EventStream;
  /** What the stream loops use of this transport. */
  private readonly host: EventStreamHost;
  /** Stateless-era requests in flight: aborting one's controller cancels it. */
  private readonly statelessInflight = new Map<RequestId, AbortController>();
  private paramHeaders?: (tool: string) => readonly ParamHeader[] | undefined;

  constructor(private readonly options: StreamableHttpClientTransportOptions) {
    const owner = 'StreamableHttpClientTransport';
    this.url = parseHttpUrl(owner, options?.url);
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.reconnect = resolveReconnectOptions(owner, options.reconnect);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_HTTP_MESSAGE_BYTES;
    this.reinitializeOnSessionLost = options.reinitializeOnSessionLost ?? true;
    this.host = {
      url: this.url,
      reconnect: this.reconnect,
      maxMessageBytes: this.maxMessageBytes,
      openGet: (stream) => this.openGet(stream),
      deliver: (value) => this.deliver(value),
      failStream: (stream, error) => this.failStream(stream, error),
      reportError: (error) => this.reportError(error),
    };
  }

  /** The session id the server assigned in its answer to `initialize`, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** The version sent as `MCP-Protocol-Version` on session-era requests, once the Client has set it. */
  get protocolVersion(): string | undefined {
    return this.version;
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
    this.version = version;
  }

  /** Installs where the `x-mcp-header` annotations of tools are looked up (the Client does this on connect). */
  setParamHeaders(lookup: ((tool: string) => readonly ParamHeader[] | undefined) | undefined): void {
    this.paramHeaders = lookup;
  }

  /** Installs the function that re-initializes the session (the Client does this on connect). */
  setSessionLostHandler(handler: (() => Promise<void>) | undefined): void {
    this.sessionLostHandler = handler;
  }

  /** POSTs one message (or a batch); settles once the server has answered the POST's headers. */
  async send(message: WireMessage): Promise<void> {
    this.assertOpen();
    if (!Array.isArray(message)) {
      // Stateless era: one POST per request, no session; cancelling aborts that POST.
      if (isJSONRPCRequest(message) && isStatelessRequest(message)) return this.postStateless(message);
      if (isJSONRPCNotification(message) && message.method === Method.Cancelled) {
        const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        const controller = requestId === undefined ? undefined : this.statelessInflight.get(requestId);
        if (controller && requestId !== undefined) {
          this.statelessInflight.delete(requestId);
          controller.abort();
          return;
        }
      }
    }
    const messages = Array.isArray(message) ? message : [message];
    if (this.recovering && !messages.some(isHandshakeMessage)) {
      await this.recovering;
      this.assertOpen();
    }
    for (const item of messages) {
      // A cancelled request's response is no longer awaited: stop resuming its stream.
      if (isJSONRPCNotification(item) && item.method === Method.Cancelled) {
        const requestId = (item.params as { requestId?: RequestId } | undefined)?.requestId;
        if (requestId !== undefined) this.stopAwaiting(requestId);
      }
    }
    await this.post(message, messages, true);
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
    const sessionId = this.session;
    // 2025-11-25 transports: the client SHOULD end a session it no longer needs with DELETE.
    if (wasOpen && sessionId !== undefined) await this.deleteSession(sessionId);
    this.finish();
  }

  private async deleteSession(sessionId: string): Promise<void> {
    try {
      const headers = await this.headersFor(sessionId);
      const response = await this.fetchImpl(this.url, {
        method: 'DELETE',
        headers,
        signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
      });
      // 405: the server does not let clients end sessions; 404: it has already forgotten this one.
      if (!response.ok && response.status !== 405 && response.status !== 404) {
        this.reportError(await this.statusError('DELETE', response));
      }
      await discardBody(response);
    } catch (error) {
      this.reportError(asError(error));
    }
  }

  private async post(message: WireMessage, messages: JSONRPCMessage[], mayRetry: boolean): Promise<void> {
    const requestIds = messages.filter(isJSONRPCRequest).map((request) => request.id);
    const initialize = messages.some((item) => isJSONRPCRequest(item) && item.method === Method.Initialize);
    // A fresh initialize starts a new session: it carries neither the old id nor a version.
    const sessionId = initialize ? undefined : this.session;
    const headers = await this.headersFor(sessionId, !initialize);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');

    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal: this.lifetime.signal,
      });
    } catch (error) {
      throw this.networkError('POST', error);
    }

    if (response.status === 404 && sessionId !== undefined) {
      return this.postMetLostSession(message, messages, requestIds, sessionId, response, mayRetry);
    }
    if (!response.ok) {
      const error = await this.statusError('POST', response);
      if (requestIds.length === 0) throw error;
      return this.failRequests(requestIds, error.toErrorObject());
    }
    if (initialize) {
      const problem = this.adoptSession(response);
      if (problem) {
        await discardBody(response);
        return this.failRequests(requestIds, problem);
      }
    }
    if (requestIds.length === 0) {
      await discardBody(response);
      // The session is ready: open the stream for server-initiated messages.
      if (messages.some((item) => isJSONRPCNotification(item) && item.method === Method.Initialized)) {
        this.openStandaloneStream();
      }
      return;
    }
    const type = mediaTypeOf(response);
    if (type === 'text/event-stream' && response.body) {
      this.followRequestStream(response, requestIds);
      return;
    }
    if (type === 'application/json') return this.receiveJson(response, requestIds);
    await discardBody(response);
    this.failRequests(
      requestIds,
      internalError(
        `The server answered POST ${this.url.href} with HTTP ${response.status} and ${type ? `Content-Type ${type}` : 'no Content-Type'}; a request must be answered with application/json or text/event-stream (2025-11-25 transports)`,
      ),
    );
  }

  /**
   * POSTs one stateless-era request (2026-07-28 streamable HTTP): request-metadata headers,
   * no session, and an answer read once. Settles once the server has answered the headers.
   */
  private async postStateless(request: JSONRPCRequest): Promise<void> {
    const headers = await this.statelessHeaders(request);
    const controller = new AbortController();
    this.statelessInflight.set(request.id, controller);
    const signal = AbortSignal.any([controller.signal, this.lifetime.signal]);
    const done = () => {
      if (this.statelessInflight.get(request.id) === controller) this.statelessInflight.delete(request.id);
    };
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal,
      });
    } catch (error) {
      done();
      // Cancelled: the Peer has already settled the request.
      if (controller.signal.aborted) return;
      throw this.networkError('POST', error);
    }
    if (!response.ok) {
      const error = await this.statusError('POST', response);
      done();
      return this.failRequests([request.id], statelessErrorObject(error));
    }
    const type = mediaTypeOf(response);
    if (type === 'text/event-stream' && response.body) {
      this.followStatelessStream(request.id, response, signal)
        .catch((error) => this.reportError(asError(error)))
        .finally(done);
      return;
    }
    if (type === 'application/json') {
      await this.receiveJson(response, [request.id]).finally(done);
      return;
    }
    done();
    await discardBody(response);
    this.failRequests(
      [request.id],
      internalError(
        `The server answered POST ${this.url.href} (${request.method}) with HTTP ${response.status} and ${type ? `Content-Type ${type}` : 'no Content-Type'}; a request must be answered with application/json or text/event-stream (2026-07-28 transports)`,
      ),
    );
  }

  /** The headers of a stateless-era POST (2026-07-28 streamable HTTP §"Request Metadata"). */
  private async statelessHeaders(request: JSONRPCRequest): Promise<Headers> {
    const headers = await resolveHeaders(this.options.headers);
    // No sessions and no resumption in this era, whatever the caller's headers say.
    headers.delete('mcp-session-id');
    headers.delete('last-event-id');
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    const params = request.params ?? {};
    headers.set('mcp-protocol-version', String(params._meta?.[MetaKey.ProtocolVersion]));
    headers.set('mcp-method', request.method);
    const name = mcpNameOf(request.method, params);
    if (name !== undefined) headers.set('mcp-name', encodeHeaderValue(name));
    if (request.method === Method.ToolsCall && typeof params.name === 'string') {
      const annotated = this.paramHeaders?.(params.name);
      if (annotated) {
        for (const [header, value] of paramHeaderValues(annotated, params.arguments))
          headers.set(header, value);
      }
    }
    return headers;
  }

  /**
   * Reads the SSE answer of a stateless-era request until its response: request-scoped
   * notifications (progress, logs) or, for `subscriptions/listen`, the change notifications,
   * until the stream ends. No resumption: a stream that ends or breaks before the response
   * fails the request.
   */
  private async followStatelessStream(id: RequestId, response: Response, signal: AbortSignal): Promise<void> {
    const parser = new SseParser({ maxEventChars: this.maxMessageBytes });
    let answered = false;
    let failure: Error | undefined;
    try {
      await readEventStream(response.body!, parser, (event) => {
        if ((event.event === undefined || event.event === 'message') && event.data.trim() !== '') {
          let value: unknown;
          try {
            value = JSON.parse(event.data);
          } catch (error) {
            this.reportError(
              new ParseError(
                `A server-sent event from ${this.url.href} is not JSON (${(error as Error).message}): ${excerpt(event.data, 200)}`,
              ),
            );
            return undefined;
          }
          if (responseIdsIn(value).includes(id)) answered = true;
          this.deliver(value);
        }
        return answered ? false : undefined;
      });
    } catch (error) {
      failure = asError(error);
    }
    if (answered || signal.aborted || this.state !== 'open') return;
    this.failRequests(
      [id],
      internalError(
        `The server's SSE answer to POST ${this.url.href} ended before the response${failure ? ` (${failure.message})` : ''}; 2026-07-28 streams cannot be resumed, so the request is lost (send it again)`,
      ),
    );
  }

  /**
   * 2025-11-25 transports: "When a client receives HTTP 404 in response to a request
   * containing an MCP-Session-Id, it MUST start a new session by sending a new
   * InitializeRequest without a session ID attached."
   */
  private async postMetLostSession(
    message: WireMessage,
    messages: JSONRPCMessage[],
    requestIds: RequestId[],
    lostId: string,
    response: Response,
    mayRetry: boolean,
  ): Promise<void> {
    const error = await this.statusError('POST', response);
    // The handshake itself never starts a recovery: that would recurse.
    const recovered = messages.some(isHandshakeMessage) ? false : await this.recoverSession(lostId, error);
    if (recovered && mayRetry && requestIds.length > 0) return this.post(message, messages, false);
    if (requestIds.length > 0) return this.failRequests(requestIds, error.toErrorObject());
    // A notification or response of the lost session means nothing to the new one.
    if (!recovered) throw error;
  }

  private recoverSession(lostId: string, cause: Error): Promise<boolean> {
    let recovery = this.recoveries.get(lostId);
    if (!recovery) {
      recovery = this.runRecovery(lostId, cause);
      this.recoveries.set(lostId, recovery);
    }
    return recovery;
  }

  private async runRecovery(lostId: string, cause: Error): Promise<boolean> {
    if (this.session === lostId) this.session = undefined;
    this.stopStandalone();
    const handler = this.sessionLostHandler;
    if (!this.reinitializeOnSessionLost || !handler || this.state !== 'open') {
      this.fail(
        new ConnectionClosedError(
          `The server no longer knows session ${lostId} (${cause.message}); connect again to start a new session`,
          { cause },
        ),
      );
      return false;
    }
    const recovery = handler().then(
      () => true,
      (error: unknown) => {
        this.fail(
          new ConnectionClosedError(
            `The server no longer knows session ${lostId}, and starting a new session failed: ${asError(error).message}`,
            { cause: error },
          ),
        );
        return false;
      },
    );
    this.recovering = recovery;
    try {
      return await recovery;
    } finally {
      if (this.recovering === recovery) this.recovering = undefined;
    }
  }

  /** Takes the session id from the answer to `initialize`; returns an error if it is malformed. */
  private adoptSession(response: Response): JSONRPCErrorObject | undefined {
    const id = response.headers.get('mcp-session-id');
    this.session = undefined;
    if (id === null) return undefined;
    if (!SESSION_ID.test(id)) {
      return internalError(
        `The server assigned an invalid MCP-Session-Id ${JSON.stringify(excerpt(id, 100))}: it must hold only visible ASCII characters (2025-11-25 transports)`,
      );
    }
    this.session = id;
    return undefined;
  }

  private async receiveJson(response: Response, requestIds: RequestId[]): Promise<void> {
    let value: unknown;
    try {
      const text = await readBodyText(response, this.maxMessageBytes);
      value = JSON.parse(text);
    } catch (error) {
      if (this.state !== 'open') return;
      const reason =
        error instanceof SyntaxError ? `it is not JSON (${error.message})` : asError(error).message;
      return this.failRequests(
        requestIds,
        new ParseError(`Cannot read the server's JSON answer to POST ${this.url.href}: ${reason}`).toJSON(),
      );
    }
    const answered = responseIdsIn(value);
    this.deliver(value);
    const missing = requestIds.filter((id) => !answered.includes(id));
    if (missing.length > 0) {
      this.failRequests(
        missing,
        internalError(`The server's JSON answer to POST ${this.url.href} holds no response for this request`),
      );
    }
  }

  private followRequestStream(response: Response, requestIds: RequestId[]): void {
    const stream = newEventStream('request', this.lifetime.signal);
    for (const id of requestIds) {
      stream.awaiting.add(id);
      this.awaiting.set(id, stream);
    }
    followRequestStream(this.host, stream, response).catch((error) => this.reportError(asError(error)));
  }

  private openStandaloneStream(): void {
    this.stopStandalone();
    const stream = newEventStream('standalone', this.lifetime.signal);
    this.standalone = stream;
    followStandaloneStream(this.host, stream).catch((error) => this.reportError(asError(error)));
  }

  private stopStandalone(): void {
    this.standalone?.controller.abort();
    this.standalone = undefined;
  }

  /** Opens a GET stream, resuming after `stream.lastEventId` when there is one. */
  private async openGet(stream: EventStream): Promise<GetOutcome> {
    const sessionId = this.session;
    let response: Response;
    try {
      const headers = await this.headersFor(sessionId);
      headers.set('accept', 'text/event-stream');
      if (stream.lastEventId !== '') headers.set('last-event-id', stream.lastEventId);
      response = await this.fetchImpl(this.url, { method: 'GET', headers, signal: stream.signal });
    } catch (error) {
      return { kind: 'retry', error: this.networkError('GET', error) };
    }
    if (response.ok && mediaTypeOf(response) === 'text/event-stream' && response.body) {
      return { kind: 'open', response };
    }
    if (response.ok) {
      await discardBody(response);
      const type = mediaTypeOf(response);
      const error = new GantryError(
        LocalErrorCode.ProtocolViolation,
        `The server answered GET ${this.url.href} with ${type ? `Content-Type ${type}` : 'no Content-Type'} instead of text/event-stream`,
      );
      return { kind: 'stop', error, quiet: false };
    }
    const error = await this.statusError('GET', response);
    // 2025-11-25 transports: 405 means the server offers no GET stream.
    if (response.status === 405) return { kind: 'stop', error, quiet: stream.kind === 'standalone' };
    if (response.status === 404 && sessionId !== undefined) {
      // The session is gone; a new one opens its own GET stream after `notifications/initialized`.
      this.recoverSession(sessionId, error).catch(() => {});
      return { kind: 'stop', error, quiet: true };
    }
    return { kind: 'retry', error };
  }

  /** Hands a decoded value to the sink, first noting the responses it carries. */
  private deliver(value: unknown): void {
    const sink = this.sink;
    if (this.state !== 'open' || !sink) return;
    for (const id of responseIdsIn(value)) this.stopAwaiting(id);
    sink.message(value);
  }

  /** The response for `id` arrived or is no longer wanted; a stream owing nothing more stops. */
  private stopAwaiting(id: RequestId): void {
    const stream = this.awaiting.get(id);
    if (!stream) return;
    this.awaiting.delete(id);
    stream.awaiting.delete(id);
    if (stream.awaiting.size === 0) stream.controller.abort();
  }

  /** Rejects every request a stream still owes. */
  private failStream(stream: EventStream, error: JSONRPCErrorObject): void {
    const ids = [...stream.awaiting];
    for (const id of ids) this.awaiting.delete(id);
    stream.awaiting.clear();
    stream.controller.abort();
    this.failRequests(ids, error);
  }

  /** Delivers a JSON-RPC error response for each id, so the Peer rejects exactly those requests. */
  private failRequests(ids: RequestId[], error: JSONRPCErrorObject): void {
    for (const id of ids) this.deliver(errorResponse(id, error));
  }

  private async headersFor(sessionId: string | undefined, withVersion = true): Promise<Headers> {
    const headers = await resolveHeaders(this.options.headers);
    if (sessionId !== undefined) headers.set('mcp-session-id', sessionId);
    if (withVersion && this.version !== undefined) headers.set('mcp-protocol-version', this.version);
    return headers;
  }

  private statusError(method: string, response: Response): Promise<HttpStatusError> {
    return HttpStatusError.fromResponse(method, this.url, response, this.maxMessageBytes);
  }

  private networkError(method: string, error: unknown): Error {
    return unreachableError(method, this.url, error, this.state !== 'open');
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

  private reportError(error: Error): void {
    this.options.onError?.(error);
  }
}

/**
 * What `Mcp-Name` mirrors: `params.name` of `tools/call` and `prompts/get`, `params.uri` of
 * `resources/read`, `params.taskId` of the tasks extension's `tasks/get|update|cancel`.
 */
function mcpNameOf(method: string, params: { [key: string]: unknown }): string | undefined {
  let value: unknown;
  if (method === Method.ToolsCall || method === Method.PromptsGet) value = params.name;
  else if (method === Method.ResourcesRead) value = params.uri;
  else if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel')
    value = params.taskId;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The error a failed stateless-era POST delivers: the JSON-RPC error of the body when there is
 * one (code and data kept, so e.g. −32022's `data.supported` reaches the Client), with the
 * HTTP status and body added to `data`; else −32603.
 */
function statelessErrorObject(error: HttpStatusError): JSONRPCErrorObject {
  let answered: JSONRPCErrorObject | undefined;
  try {
    const value: unknown = JSON.parse(error.body);
    if (isJSONRPCErrorResponse(value)) answered = value.error;
  } catch {
    // Not JSON: the status says enough.
  }
  const failure: HttpFailureData = { httpStatus: error.status, body: error.body };
  const own = answered?.data;
  const data =
    typeof own === 'object' && own !== null && !Array.isArray(own) ? { ...own, ...failure } : failure;
  return { code: answered?.code ?? ErrorCode.InternalError, message: error.message, data };
}

/** `initialize` and `notifications/initialized` never wait for a session recovery: they perform it. */
function isHandshakeMessage(message: JSONRPCMessage): boolean {
  return (
    (isJSONRPCRequest(message) && message.method === Method.Initialize) ||
    (isJSONRPCNotification(message) && message.method === Method.Initialized)
  );
}

/** Ids of the responses in a decoded value (a message or a batch). */
function responseIdsIn(value: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (
      (isJSONRPCResultResponse(item) || isJSONRPCErrorResponse(item)) &&
      item.id !== null &&
      item.id !== undefined
    ) {
      ids.push(item.id);
    }
  }
  return ids;
}
