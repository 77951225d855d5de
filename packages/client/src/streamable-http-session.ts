// The session era over Streamable HTTP (MCP 2025-03-26 … 2025-11-25, Basic / Transports
// §"Streamable HTTP"): `MCP-Session-Id`, `MCP-Protocol-Version`, the standalone GET stream,
// resumption with `Last-Event-ID`, session recovery and the closing DELETE.
import {
  ConnectionClosedError,
  GantryError,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCErrorObject,
  type JSONRPCMessage,
  LocalErrorCode,
  Method,
  type RequestId,
  type WireMessage,
} from '@gantry/protocol';
import { asError, discardBody, excerpt, mediaTypeOf, resolveHeaders } from './http-exchange';
import { isAuthStatus } from './http-status-error';
import type { ReconnectOptions } from './reconnect-policy';
import {
  type EventStream,
  type EventStreamHost,
  followRequestStream,
  followStandaloneStream,
  type GetOutcome,
  internalError,
  newEventStream,
} from './resumable-event-stream';
import { failRequests, type HttpCore, networkError, receiveJson, statusError } from './streamable-http-core';

/** How long `close()` waits for the server to answer the DELETE that ends the session. */
const DELETE_TIMEOUT_MS = 5_000;
/** MCP 2025-11-25, Basic / Transports §"Session Management": a session id holds only visible ASCII (0x21–0x7E). */
const SESSION_ID = /^[\x21-\x7e]+$/;

/** The session-era messages of one transport, and the session they belong to. */
export class SessionHttpExchange {
  /** The session id the server assigned in its answer to `initialize`, if any. */
  session?: string;
  /** Sent as `MCP-Protocol-Version` once the Client has set it. */
  version?: string;
  /** Runs the handshake again (the Client installs it). */
  lostHandler?: () => Promise<void>;
  /** One recovery per lost session id, shared by every message that met its 404. */
  private readonly recoveries = new Map<string, Promise<boolean>>();
  /** The recovery in progress: messages other than the handshake wait for it. */
  private recovering?: Promise<boolean>;
  /** Request id → the stream that owes its response. */
  private readonly awaiting = new Map<RequestId, EventStream>();
  private standalone?: EventStream;
  /** What the stream loops use of this transport. */
  private readonly host: EventStreamHost;

  constructor(
    private readonly core: HttpCore,
    reconnect: ReconnectOptions,
    private readonly reinitializeOnSessionLost: boolean,
  ) {
    this.host = {
      url: core.url,
      reconnect,
      maxMessageBytes: core.maxMessageBytes,
      openGet: (stream) => this.openGet(stream),
      deliver: (value) => core.deliver(value),
      failStream: (stream, error) => this.failStream(stream, error),
      reportError: (error) => core.reportError(error),
    };
  }

  /** POSTs one message (or a batch); settles once the server has answered the POST's headers. */
  async send(message: WireMessage): Promise<void> {
    const messages = Array.isArray(message) ? message : [message];
    if (this.recovering && !messages.some(isHandshakeMessage)) {
      await this.recovering;
      this.core.assertOpen();
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

  /** The response for `id` arrived or is no longer wanted; a stream owing nothing more stops. */
  stopAwaiting(id: RequestId): void {
    const stream = this.awaiting.get(id);
    if (!stream) return;
    this.awaiting.delete(id);
    stream.awaiting.delete(id);
    if (stream.awaiting.size === 0) stream.controller.abort();
  }

  /**
   * MCP 2025-11-25, Basic / Transports §"Session Management": the client SHOULD end a
   * session it no longer needs with DELETE (a 405 or 404 answer is fine).
   */
  async end(): Promise<void> {
    const sessionId = this.session;
    if (sessionId === undefined) return;
    try {
      const headers = await this.headersFor(sessionId);
      const response = await this.core.fetch(this.core.url, {
        method: 'DELETE',
        headers,
        signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
      });
      // 405: the server does not let clients end sessions; 404: it has already forgotten this one.
      if (!response.ok && response.status !== 405 && response.status !== 404) {
        this.core.reportError(await statusError(this.core, 'DELETE', response));
      }
      await discardBody(response);
    } catch (error) {
      this.core.reportError(asError(error));
    }
  }

  private async post(message: WireMessage, messages: JSONRPCMessage[], mayRetry: boolean): Promise<void> {
    const core = this.core;
    const requestIds = messages.filter(isJSONRPCRequest).map((request) => request.id);
    const initialize = messages.some((item) => isJSONRPCRequest(item) && item.method === Method.Initialize);
    // A fresh initialize starts a new session: it carries neither the old id nor a version.
    const sessionId = initialize ? undefined : this.session;
    const headers = await this.headersFor(sessionId, !initialize);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');

    let response: Response;
    try {
      response = await core.fetch(core.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal: core.lifetime,
      });
    } catch (error) {
      throw networkError(core, 'POST', error);
    }

    if (response.status === 404 && sessionId !== undefined) {
      return this.postMetLostSession(message, messages, requestIds, sessionId, response, mayRetry);
    }
    if (!response.ok) {
      const error = await statusError(core, 'POST', response);
      // A refused request rejects with the local HttpStatusError (status, challenges, body),
      // not with a JSON-RPC error the server never sent.
      if (requestIds.length === 0 || (requestIds.length === 1 && isAuthStatus(error.status))) throw error;
      return failRequests(core, requestIds, error.toErrorObject());
    }
    if (initialize) {
      const problem = this.adoptSession(response);
      if (problem) {
        await discardBody(response);
        return failRequests(core, requestIds, problem);
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
    if (type === 'application/json') return receiveJson(core, response, requestIds);
    await discardBody(response);
    failRequests(
      core,
      requestIds,
      internalError(
        `The server answered POST ${core.url.href} with HTTP ${response.status} and ${type ? `Content-Type ${type}` : 'no Content-Type'}; a request must be answered with application/json or text/event-stream (2025-11-25 transports)`,
      ),
    );
  }

  /**
   * MCP 2025-11-25, Basic / Transports §"Session Management": "When a client receives HTTP
   * 404 in response to a request containing an MCP-Session-Id, it MUST start a new session
   * by sending a new InitializeRequest without a session ID attached."
   */
  private async postMetLostSession(
    message: WireMessage,
    messages: JSONRPCMessage[],
    requestIds: RequestId[],
    lostId: string,
    response: Response,
    mayRetry: boolean,
  ): Promise<void> {
    const error = await statusError(this.core, 'POST', response);
    // The handshake itself never starts a recovery: that would recurse.
    const recovered = messages.some(isHandshakeMessage) ? false : await this.recoverSession(lostId, error);
    if (recovered && mayRetry && requestIds.length > 0) return this.post(message, messages, false);
    if (requestIds.length > 0) return failRequests(this.core, requestIds, error.toErrorObject());
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
    const handler = this.lostHandler;
    if (!this.reinitializeOnSessionLost || !handler || !this.core.isOpen()) {
      this.core.fail(
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
        this.core.fail(
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

  private followRequestStream(response: Response, requestIds: RequestId[]): void {
    const stream = newEventStream('request', this.core.lifetime);
    for (const id of requestIds) {
      stream.awaiting.add(id);
      this.awaiting.set(id, stream);
    }
    followRequestStream(this.host, stream, response).catch((error) => this.core.reportError(asError(error)));
  }

  private openStandaloneStream(): void {
    this.stopStandalone();
    const stream = newEventStream('standalone', this.core.lifetime);
    this.standalone = stream;
    followStandaloneStream(this.host, stream).catch((error) => this.core.reportError(asError(error)));
  }

  private stopStandalone(): void {
    this.standalone?.controller.abort();
    this.standalone = undefined;
  }

  /** Opens a GET stream, resuming after `stream.lastEventId` when there is one. */
  private async openGet(stream: EventStream): Promise<GetOutcome> {
    const core = this.core;
    const sessionId = this.session;
    let response: Response;
    try {
      const headers = await this.headersFor(sessionId);
      headers.set('accept', 'text/event-stream');
      if (stream.lastEventId !== '') headers.set('last-event-id', stream.lastEventId);
      response = await core.fetch(core.url, { method: 'GET', headers, signal: stream.signal });
    } catch (error) {
      return { kind: 'retry', error: networkError(core, 'GET', error) };
    }
    if (response.ok && mediaTypeOf(response) === 'text/event-stream' && response.body) {
      return { kind: 'open', response };
    }
    if (response.ok) {
      await discardBody(response);
      const type = mediaTypeOf(response);
      const error = new GantryError(
        LocalErrorCode.ProtocolViolation,
        `The server answered GET ${core.url.href} with ${type ? `Content-Type ${type}` : 'no Content-Type'} instead of text/event-stream`,
      );
      return { kind: 'stop', error, quiet: false };
    }
    const error = await statusError(core, 'GET', response);
    // MCP 2025-11-25, Basic / Transports §"Listening for Messages from the Server": 405 means
    // the server offers no GET stream.
    if (response.status === 405) return { kind: 'stop', error, quiet: stream.kind === 'standalone' };
    if (response.status === 404 && sessionId !== undefined) {
      // The session is gone; a new one opens its own GET stream after `notifications/initialized`.
      this.recoverSession(sessionId, error).catch(() => {});
      return { kind: 'stop', error, quiet: true };
    }
    return { kind: 'retry', error };
  }

  /** Rejects every request a stream still owes. */
  private failStream(stream: EventStream, error: JSONRPCErrorObject): void {
    const ids = [...stream.awaiting];
    for (const id of ids) this.awaiting.delete(id);
    stream.awaiting.clear();
    stream.controller.abort();
    failRequests(this.core, ids, error);
  }

  private async headersFor(sessionId: string | undefined, withVersion = true): Promise<Headers> {
    const headers = await resolveHeaders(this.core.headers);
    if (sessionId !== undefined) headers.set('mcp-session-id', sessionId);
    if (withVersion && this.version !== undefined) headers.set('mcp-protocol-version', this.version);
    return headers;
  }
}

/** `initialize` and `notifications/initialized` never wait for a session recovery: they perform it. */
function isHandshakeMessage(message: JSONRPCMessage): boolean {
  return (
    (isJSONRPCRequest(message) && message.method === Method.Initialize) ||
    (isJSONRPCNotification(message) && message.method === Method.Initialized)
  );
}
