// One inbound request as its handler sees it (`InboundRequest`: its signal, its notifications
// and the requests made on its behalf), what it sends through (`InboundChannel`: a Peer, or a
// single-use exchange) and the options of an outbound request.
import type {
  JSONRPCRequest,
  JSONRPCResponse,
  Meta,
  OutboundMessage,
  ProgressToken,
  RequestId,
  Result,
} from './jsonrpc';
import type { ProgressNotificationParams } from './types';

/** Options of one outbound request. */
export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with `RequestCancelledError`. */
  signal?: AbortSignal;
  /** Time to wait for the response; default the Peer's `requestTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Restart the timeout each time a progress notification arrives for this request. Setting it
   * adds a `progressToken` to the request, with or without `onProgress`.
   */
  resetTimeoutOnProgress?: boolean;
  /** Upper bound on the whole wait when the timeout is reset by progress. */
  maxTotalTimeoutMs?: number;
  /** Receives `notifications/progress`; setting it adds a `progressToken` to the request. */
  onProgress?: (progress: ProgressNotificationParams) => void;
  /** The inbound request this one is made on behalf of (e.g. sampling inside a tool call). */
  relatedRequestId?: RequestId;
  /**
   * Told the id the Peer assigns to this request, before the request is sent: a caller can
   * route what the other side later tags with that id (e.g. `subscriptions/listen` streams).
   * A throw rejects the request, which is then not sent.
   */
  onId?: (id: RequestId) => void;
  /**
   * Sends the request some other way than this connection's transport; the Peer still awaits
   * its response. A clustered task's request to the client travels through the task store to
   * whichever node holds the `tasks/result` that carries it (see `Peer.forward`).
   */
  deliver?: (request: JSONRPCRequest) => Promise<void>;
}

/**
 * What an inbound request sends through: the Peer of its connection, or a single-use channel
 * (a stateless HTTP POST, which has no Peer).
 */
export interface InboundChannel {
  notify(message: OutboundMessage, options: { relatedRequestId?: RequestId }): Promise<void>;
  request<T extends Result = Result>(message: OutboundMessage, options: RequestOptions): Promise<T>;
}

/** Handles one inbound request. Throw an `McpError` to answer with that JSON-RPC error. */
export type RequestHandler = (request: JSONRPCRequest, inbound: InboundRequest) => Result | Promise<Result>;

/** Collects the responses of one inbound batch, sent together once every request settled. */
export interface BatchCollector {
  remaining: number;
  readonly responses: JSONRPCResponse[];
  /** Its requests that settled: their slots are freed once the batch is written. */
  readonly settled: InboundRequest[];
}

/**
 * One inbound request while its handler runs. Its `signal` aborts when the peer cancels the
 * request or the connection closes; the AbortController is created only if a handler asks.
 */
export class InboundRequest {
  private controller?: AbortController;
  private cancelReason?: unknown;
  /** True once cancelled by the peer or by connection loss: the response will be dropped. */
  cancelled = false;
  /** Set when the request arrived inside a batch. */
  batch?: BatchCollector;

  constructor(
    private readonly peer: InboundChannel,
    readonly request: JSONRPCRequest,
  ) {}

  get id(): RequestId {
    return this.request.id;
  }

  get method(): string {
    return this.request.method;
  }

  /** The request's `params._meta`, if any. */
  get meta(): (Meta & { progressToken?: ProgressToken }) | undefined {
    return this.request.params?._meta;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.cancelReason);
    }
    return this.controller.signal;
  }

  /** Sends a notification tied to this request (progress, log messages). Dropped once cancelled. */
  notify(message: OutboundMessage): Promise<void> {
    if (this.cancelled) return Promise.resolve();
    return this.peer.notify(message, { relatedRequestId: this.request.id });
  }

  /** Sends a request to the peer on behalf of this one; it is cancelled together with this one. */
  sendRequest<T extends Result = Result>(message: OutboundMessage, options: RequestOptions = {}): Promise<T> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.signal]) : this.signal;
    return this.peer.request<T>(message, { ...options, signal, relatedRequestId: this.request.id });
  }

  /** Cancels the request: its `signal` aborts and its notifications are dropped. */
  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.cancelReason = reason;
    this.controller?.abort(reason);
  }
}
