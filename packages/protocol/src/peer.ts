import {
  ConnectionClosedError,
  InvalidRequestError,
  McpError,
  MethodNotFoundError,
  NotConnectedError,
  RequestCancelledError,
  RequestTimeoutError,
  toWireError,
} from './errors';
import {
  type BatchCollector,
  InboundRequest,
  type RequestHandler,
  type RequestOptions,
} from './inbound-request';
import { InflightLimit } from './inflight-limit';
import {
  classifyMessage,
  JSONRPC_VERSION,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Meta,
  notificationOf,
  type OutboundMessage,
  type RequestId,
  type Result,
} from './jsonrpc';
import type { Transport, TransportSink, WireMessage } from './transport';
import { type CancelledNotificationParams, Method, type ProgressNotificationParams } from './types';

/** setTimeout's largest delay; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What `transmit` returns for a transport whose `send` returned nothing: sent, at once. */
const SENT: Promise<void> = Promise.resolve();

/** Default time an outbound request waits for its response: 60 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface PeerOptions {
  /** Answers inbound requests. Without one, every request is answered with −32601. */
  onRequest?: RequestHandler;
  /** Receives notifications other than cancellation and progress, which the Peer routes itself. */
  onNotification?: (notification: JSONRPCNotification) => void;
  /** Whether a JSON-RPC batch is acceptable now (MCP allows batches only in 2025-03-26). */
  acceptBatch?: () => boolean;
  /** Errors that cannot be reported to the other side: failed sends, handler errors after cancellation. */
  onError?: (error: Error) => void;
  /** Called once when the connection closes. */
  onClose?: (error?: Error) => void;
  /** Default timeout of outbound requests; default 60 000 ms. */
  requestTimeoutMs?: number;
  /**
   * Makes the ids of outbound requests strings `<idPrefix><n>` instead of numbers `n`: a node of
   * a cluster prefixes its own id, so the answer to a request it sent can be routed back to it
   * from whichever node the client posts it to. Default: numeric ids.
   */
  idPrefix?: string;
  /**
   * Inbound requests that run at once: a request holds its slot until its response is written
   * or the other side cancels it. With every slot taken the Peer holds further requests back
   * and pauses a transport that has `pauseReading()`, or answers them with −32603 on one that has not
   * (see `InflightLimit`). Default: no limit.
   */
  maxInflight?: number;
}

/** The one record kept per outbound request, settled in one place (`settle`). */
interface PendingRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: Error) => void;
  readonly onProgress?: (progress: ProgressNotificationParams) => void;
  readonly timeoutMs: number;
  readonly resetTimeoutOnProgress: boolean;
  /** The bound on the whole wait, when one was given. */
  readonly maxTotalTimeoutMs?: number;
  readonly deadline: number;
  readonly signal?: AbortSignal;
  readonly abortListener?: () => void;
  timer?: NodeJS.Timeout;
}

/**
 * One side of a JSON-RPC connection. Server and client use the same Peer: both send and
 * receive requests, notifications and responses. It correlates responses with one
 * `PendingRequest` per outbound request, enforces timeouts, routes progress, and handles
 * cancellation both ways. It knows nothing of MCP methods beyond cancellation and progress.
 */
export class Peer {
  private transport?: Transport;
  private closed = false;
  private nextId = 0;
  private readonly pending = new Map<RequestId, PendingRequest>();
  private readonly inflight = new Map<RequestId, InboundRequest>();
  private readonly requestTimeoutMs: number;
  private readonly limit?: InflightLimit;
  /**
   * The last promise the transport's `send` returned, and the same with its failure reported.
   * A transport that joins the messages of one tick into one write (stdio) returns one promise
   * for all of them, and it needs one handler, not one per message.
   */
  private lastSent?: Promise<void>;
  private lastWritten: Promise<void> = SENT;
  /** Requests whose answers went out in one write: their in-flight slots are freed together. */
  private releasing?: { readonly written: Promise<void>; readonly requests: InboundRequest[] };

  constructor(private readonly options: PeerOptions = {}) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    if (options.maxInflight !== undefined) {
      this.limit = new InflightLimit(options.maxInflight, {
        dispatch: (value) => this.dispatch(value),
        awaitingAnswers: () => this.pending.size > 0,
      });
    }
  }

  /** Starts the transport; from now on messages flow. */
  async connect(transport: Transport): Promise<void> {
    if (this.transport) throw new Error('This Peer is already connected; create one Peer per connection');
    this.transport = transport;
    this.limit?.attach(transport);
    const sink: TransportSink = {
      message: (value) => this.receive(value),
      invalid: (error) => this.sendError(null, error),
      closed: (error) => this.handleClosed(error),
    };
    await transport.start(sink);
  }

  /** True until the transport closes. */
  get isConnected(): boolean {
    return this.transport !== undefined && !this.closed;
  }

  /** Number of inbound requests whose handlers are still running. */
  get inflightCount(): number {
    return this.inflight.size;
  }

  /** Sends a request and resolves with its result, or rejects with the peer's `McpError` or a local error. */
  request<T extends Result = Result>(message: OutboundMessage, options: RequestOptions = {}): Promise<T> {
    const transport = this.transport;
    if (!transport || this.closed) return Promise.reject(new NotConnectedError());
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(new RequestCancelledError(message.method, signal.reason));

    const n = this.nextId++;
    const prefix = this.options.idPrefix;
    const id: RequestId = prefix === undefined ? n : `${prefix}${n}`;
    if (options.onId) {
      try {
        options.onId(id);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    let params = message.params;
    if (options.onProgress || options.resetTimeoutOnProgress) {
      // Without a token the peer sends no progress, so a timeout reset by progress would never
      // be reset. The request id doubles as the token: unique among this side's active requests.
      const meta = params?._meta as Meta | undefined;
      params = { ...params, _meta: { ...meta, progressToken: id } };
    }
    const request: JSONRPCRequest =
      params === undefined
        ? { jsonrpc: JSONRPC_VERSION, id, method: message.method }
        : { jsonrpc: JSONRPC_VERSION, id, method: message.method, params };

    return new Promise<T>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
      const abortListener = signal ? () => this.abortPending(id, signal.reason) : undefined;
      const record: PendingRequest = {
        id,
        method: message.method,
        resolve: resolve as (result: Result) => void,
        reject,
        onProgress: options.onProgress,
        timeoutMs,
        resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? false,
        maxTotalTimeoutMs: options.maxTotalTimeoutMs,
        deadline: options.maxTotalTimeoutMs === undefined ? Infinity : Date.now() + options.maxTotalTimeoutMs,
        signal,
        abortListener,
      };
      this.pending.set(id, record);
      this.limit?.update();
      this.startTimer(record);
      if (signal && abortListener) signal.addEventListener('abort', abortListener, { once: true });
      const sent = options.deliver
        ? options.deliver(request)
        : this.transmit(request, options.relatedRequestId);
      sent.catch((error: Error) => this.settle(record, undefined, error));
    });
  }

  /**
   * Sends a message made elsewhere, as it is: a request another Peer (another node of a
   * cluster) sent through `RequestOptions.deliver` and awaits the answer to.
   */
  forward(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<void> {
    return this.transmit(message, relatedRequestId);
  }

  /** Sends a notification. */
  notify(message: OutboundMessage, options: { relatedRequestId?: RequestId } = {}): Promise<void> {
    if (!this.transport || this.closed) return Promise.reject(new NotConnectedError());
    return this.write(notificationOf(message), options.relatedRequestId);
  }

  /** Closes the transport. Pending requests reject with `ConnectionClosedError`; running handlers are aborted. */
  async close(): Promise<void> {
    if (!this.transport || this.closed) return;
    try {
      await this.transport.close();
    } finally {
      // A transport that closed without telling its sink (or failed to close) still ends the connection here.
      this.handleClosed();
    }
  }

  /** Entry point for every decoded inbound value (the transport sink calls it). */
  receive(value: unknown): void {
    if (this.closed || this.limit?.hold(value)) return;
    this.dispatch(value);
  }

  private dispatch(value: unknown): void {
    if (this.closed) return;
    if (Array.isArray(value)) return this.receiveBatch(value);
    this.receiveOne(value, undefined);
  }

  private receiveOne(value: unknown, batch: BatchCollector | undefined): void {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'request':
        return this.handleRequest(classified.message, batch);
      case 'notification':
        return this.handleNotification(classified.message);
      case 'response':
        return this.handleResponse(classified.message);
      case 'invalid':
        return this.answerError(
          classified.id,
          new InvalidRequestError(`Invalid request: ${classified.reason}`),
          batch,
        );
    }
  }

  /** Answers at once with `error`, alone or in its batch. */
  private answerError(id: RequestId | null, error: McpError, batch: BatchCollector | undefined): void {
    const response: JSONRPCErrorResponse = { jsonrpc: JSONRPC_VERSION, id, error: error.toJSON() };
    if (batch) batch.responses.push(response);
    else this.write(response);
  }

  private receiveBatch(values: unknown[]): void {
    if (!this.options.acceptBatch?.()) {
      return this.sendError(
        null,
        new InvalidRequestError(
          'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
        ),
      );
    }
    if (values.length === 0) {
      return this.sendError(null, new InvalidRequestError('Invalid request: a batch must not be empty'));
    }
    const batch: BatchCollector = { remaining: 1, responses: [], settled: [] };
    for (const value of values) {
      if (Array.isArray(value)) {
        batch.responses.push({
          jsonrpc: JSONRPC_VERSION,
          id: null,
          error: new InvalidRequestError('Invalid request: batches cannot be nested').toJSON(),
        });
        continue;
      }
      this.receiveOne(value, batch);
    }
    this.settleBatchEntry(batch);
  }

  private handleRequest(request: JSONRPCRequest, batch: BatchCollector | undefined): void {
    if (this.inflight.has(request.id)) {
      const error = new InvalidRequestError(
        `Invalid request: request id ${JSON.stringify(request.id)} is already in use by a request in progress`,
      );
      return this.answerError(request.id, error, batch);
    }
    const inbound = new InboundRequest(this, request);
    const refused = this.limit?.acquire(inbound);
    if (refused) return this.answerError(request.id, refused, batch);
    if (batch) {
      inbound.batch = batch;
      batch.remaining++;
    }
    this.inflight.set(request.id, inbound);
    const handler = this.options.onRequest;
    if (!handler) {
      return this.finish(inbound, undefined, new MethodNotFoundError(`Method not found: ${request.method}`));
    }
    let outcome: Result | Promise<Result>;
    try {
      outcome = handler(request, inbound);
    } catch (error) {
      return this.finish(inbound, undefined, error);
    }
    if (outcome !== null && typeof (outcome as Promise<Result>).then === 'function') {
      (outcome as Promise<Result>).then(
        (result) => this.finish(inbound, result, undefined),
        (error) => this.finish(inbound, undefined, error),
      );
    } else {
      this.finish(inbound, outcome as Result, undefined);
    }
  }

  /** Sends the response of an inbound request, unless it was cancelled or the connection closed. */
  private finish(inbound: InboundRequest, result: Result | undefined, error: unknown): void {
    if (this.inflight.get(inbound.id) === inbound) this.inflight.delete(inbound.id);
    let response: JSONRPCResponse | undefined;
    if (inbound.cancelled || this.closed) {
      // MCP 2025-11-25, Basic / Utilities §Cancellation: no response for a cancelled request.
    } else if (error === undefined) {
      response = { jsonrpc: JSONRPC_VERSION, id: inbound.id, result: result ?? {} };
    } else {
      response = { jsonrpc: JSONRPC_VERSION, id: inbound.id, error: this.toWireError(error).toJSON() };
    }
    const batch = inbound.batch;
    const limit = this.limit;
    if (batch) {
      if (response) batch.responses.push(response);
      batch.settled.push(inbound);
      this.settleBatchEntry(batch);
    } else if (!response) {
      limit?.release(inbound);
    } else {
      const written = this.write(response, inbound.id);
      if (limit) this.releaseWhenWritten(limit, written, [inbound]);
    }
  }

  /** Frees the slots of `requests` once `written` settles, with the other answers of the same write. */
  private releaseWhenWritten(
    limit: InflightLimit,
    written: Promise<void>,
    requests: readonly InboundRequest[],
  ): void {
    const current = this.releasing;
    if (current?.written === written) {
      current.requests.push(...requests);
      return;
    }
    const group = { written, requests: [...requests] };
    this.releasing = group;
    written.then(() => {
      if (this.releasing === group) this.releasing = undefined;
      for (const request of group.requests) limit.release(request);
    });
  }

  private settleBatchEntry(batch: BatchCollector): void {
    batch.remaining--;
    if (batch.remaining > 0) return;
    const written = batch.responses.length > 0 && !this.closed ? this.write(batch.responses) : SENT;
    if (this.limit) this.releaseWhenWritten(this.limit, written, batch.settled);
  }

  private toWireError(error: unknown): McpError {
    if (!(error instanceof McpError)) this.reportError(error);
    return toWireError(error);
  }

  private handleNotification(notification: JSONRPCNotification): void {
    const method = notification.method;
    if (method === Method.Cancelled) {
      const params = notification.params as CancelledNotificationParams | undefined;
      const requestId = params?.requestId;
      // Unknown, finished or malformed cancellations are ignored (MCP 2025-11-25, Basic / Utilities §Cancellation).
      const inbound = requestId === undefined ? undefined : this.inflight.get(requestId);
      if (!inbound) return;
      inbound.cancel(params?.reason ?? 'Cancelled by the peer');
      // No response follows, so its slot is free (even if its handler ignores the abort).
      this.limit?.release(inbound);
      return;
    }
    if (method === Method.Progress) {
      const params = notification.params as ProgressNotificationParams | undefined;
      const record = params ? this.pending.get(params.progressToken) : undefined;
      if (record && (record.onProgress || record.resetTimeoutOnProgress)) {
        if (record.resetTimeoutOnProgress) this.startTimer(record);
        if (!record.onProgress) return;
        try {
          record.onProgress(params as ProgressNotificationParams);
        } catch (error) {
          this.reportError(error);
        }
        return;
      }
    }
    const handler = this.options.onNotification;
    if (!handler) return;
    try {
      handler(notification);
    } catch (error) {
      // A notification is never answered, not even with an error.
      this.reportError(error);
    }
  }

  private handleResponse(response: JSONRPCResponse): void {
    const id = response.id;
    // Responses to unknown ids (late answers to cancelled or timed-out requests) are dropped.
    const record = id === null ? undefined : this.pending.get(id);
    if (!record) return;
    if ('result' in response) this.settle(record, response.result, undefined);
    else this.settle(record, undefined, McpError.fromError(response.error));
  }

  /** The one place an outbound request is settled and its record cleaned up. */
  private settle(record: PendingRequest, result: Result | undefined, error: Error | undefined): void {
    if (this.pending.get(record.id) !== record) return;
    this.pending.delete(record.id);
    this.limit?.update();
    if (record.timer) clearTimeout(record.timer);
    if (record.signal && record.abortListener)
      record.signal.removeEventListener('abort', record.abortListener);
    if (error) record.reject(error);
    else record.resolve(result as Result);
  }

  /** Arms the record's timer for the shorter of its timeout and what is left of its total bound. */
  private startTimer(record: PendingRequest): void {
    if (record.timer) clearTimeout(record.timer);
    const remaining = record.deadline - Date.now();
    if (remaining <= 0) return this.timeoutPending(record, true);
    // Which bound this timer enforces is known now; the wall clock read when it fires may be a
    // millisecond behind the timer's own.
    const total = remaining <= record.timeoutMs;
    const delay = total ? remaining : record.timeoutMs;
    // Infinity (or anything past setTimeout's 2^31-1 ms range) means no timeout at all.
    record.timer =
      delay < MAX_TIMER_MS ? setTimeout(() => this.timeoutPending(record, total), delay) : undefined;
  }

  private timeoutPending(record: PendingRequest, total: boolean): void {
    // Name the bound that expired: the total one, or the (possibly restarted) per-wait one.
    const bound =
      total && record.maxTotalTimeoutMs !== undefined ? record.maxTotalTimeoutMs : record.timeoutMs;
    this.sendCancelled(record.id, `Request timed out after ${bound} ms`);
    this.settle(record, undefined, new RequestTimeoutError(record.method, bound));
  }

  private abortPending(id: RequestId, reason: unknown): void {
    const record = this.pending.get(id);
    if (!record) return;
    this.sendCancelled(
      id,
      reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined,
    );
    this.settle(record, undefined, new RequestCancelledError(record.method, reason));
  }

  private sendCancelled(requestId: RequestId, reason: string | undefined): void {
    if (this.closed) return;
    const params: CancelledNotificationParams = reason === undefined ? { requestId } : { requestId, reason };
    this.notify({ method: Method.Cancelled, params: params as { [key: string]: unknown } }).catch((error) =>
      this.reportError(error),
    );
  }

  private sendError(id: RequestId | null, error: McpError): void {
    this.write({ jsonrpc: JSONRPC_VERSION, id, error: error.toJSON() });
  }

  /** Sends and reports failures to `onError`: for responses and notifications, nobody else waits. */
  private write(message: WireMessage, relatedRequestId?: RequestId): Promise<void> {
    const sent = this.transmit(message, relatedRequestId);
    if (sent !== this.lastSent) {
      this.lastSent = sent;
      this.lastWritten = sent.catch((error) => this.reportError(error));
    }
    return this.lastWritten;
  }

  /** Sends; the promise rejects when the transport fails to. */
  private transmit(message: WireMessage, relatedRequestId?: RequestId): Promise<void> {
    const transport = this.transport;
    if (!transport || this.closed) return Promise.reject(new NotConnectedError());
    try {
      const sent = transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
      return sent ?? SENT;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private handleClosed(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.limit?.close();
    // Built only when someone hears it: an Error captures a stack, and short-lived connections
    // (one per stateless HTTP request) usually close with nothing pending.
    if (this.pending.size > 0 || this.inflight.size > 0) {
      const closedError = new ConnectionClosedError(
        error ? `Connection closed: ${error.message}` : 'Connection closed',
        error ? { cause: error } : undefined,
      );
      for (const record of [...this.pending.values()]) this.settle(record, undefined, closedError);
      for (const inbound of this.inflight.values()) inbound.cancel(closedError);
      this.inflight.clear();
    }
    this.options.onClose?.(error);
  }

  private reportError(error: unknown): void {
    const onError = this.options.onError;
    if (onError) onError(error instanceof Error ? error : new Error(String(error)));
  }
}

export type { JSONRPCMessage };
