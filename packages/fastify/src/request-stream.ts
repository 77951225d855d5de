import { ErrorCode, type JSONRPCMessage, type RequestId } from '@gantry/protocol';
import type { FastifyReply } from 'fastify';
import { openSseResponse, SseWriter, type SseWriterOptions } from './sse-writer';

/** How a POST carrying requests is answered. */
export type ResponseMode = 'auto' | 'json' | 'sse';

/** What a {@link RequestStream} answers, and how. */
export interface RequestStreamOptions {
  /** The reply of the POST. */
  readonly reply: FastifyReply;
  /** The requests the POST carried: the answer ends once each is answered (or cancelled). */
  readonly ids: readonly RequestId[];
  readonly mode: ResponseMode;
  readonly sse: SseWriterOptions;
  /** Start an SSE stream with a priming event (session era); default true. */
  readonly prime?: boolean;
  /** The HTTP status of a JSON answer; default 200. */
  readonly statusOf?: (message: JSONRPCMessage | JSONRPCMessage[]) => number;
  /** Answers an insufficient-scope error with an HTTP 403 challenge; true when it did. */
  readonly stepUp?: (error: { message: string; data?: unknown }) => boolean;
  /** A new SSE stream id (unique among the streams an event store keeps). */
  readonly newStreamId: () => string;
  /** Told when the answer became an SSE stream. */
  readonly onSse?: (writer: SseWriter, stream: RequestStream) => void;
  /** Told once the answer is complete (or ended without one). */
  readonly onFinish?: (stream: RequestStream) => void;
}

/**
 * The answer to one POST that carried requests: a JSON body, or an SSE stream when the
 * handler sends notifications or server→client requests before its result (mode `auto`),
 * or always (mode `sse`). Ends once every request it carried is answered.
 */
export class RequestStream {
  private sse?: SseWriter;
  private readonly pending: Set<RequestId>;
  private finished = false;
  private readonly reply: FastifyReply;
  readonly ids: readonly RequestId[];
  private readonly mode: ResponseMode;

  constructor(private readonly options: RequestStreamOptions) {
    this.reply = options.reply;
    this.ids = options.ids;
    this.mode = options.mode;
    this.pending = new Set(options.ids);
    if (this.mode === 'sse') this.upgrade();
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** True until the answer is complete (or ended without one). */
  get isOpen(): boolean {
    return !this.finished;
  }

  /** True while this POST still waits for the response to request `id`. */
  awaits(id: RequestId): boolean {
    return !this.finished && this.pending.has(id);
  }

  /** The SSE writer, once the answer became a stream. */
  get writer(): SseWriter | undefined {
    return this.sse;
  }

  /**
   * A notification or request tied to one of this POST's requests: the promise of its write
   * (settled once the client can take more). Undefined in `json` mode, where it cannot travel
   * on this answer (the caller then uses the standalone stream).
   */
  related(message: JSONRPCMessage): Promise<void> | undefined {
    if (this.finished) return undefined;
    if (!this.sse) {
      if (this.mode === 'json') return undefined;
      this.upgrade();
    }
    return (this.sse as SseWriter).write(message);
  }

  /** The response (or batch of responses) to this POST's request(s). */
  respond(id: RequestId | undefined, message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> | undefined {
    if (this.finished) return undefined;
    // An array, or an error without id (a batch refused as a whole), answers every request.
    if (Array.isArray(message) || id === undefined) this.pending.clear();
    else this.pending.delete(id);
    const last = this.pending.size === 0;
    if (this.sse) {
      const written = this.sse.write(message);
      if (last) {
        this.finished = true;
        void this.sse.end();
        this.options.onFinish?.(this);
      }
      return written;
    }
    // JSON mode: a POST with several requests (a batch) is answered once, as an array.
    if (!last) return undefined;
    this.finished = true;
    this.options.onFinish?.(this);
    const error = (message as { error?: { message: string; data?: { insufficientScope?: boolean } } }).error;
    if (error?.data?.insufficientScope === true && !this.reply.sent && this.options.stepUp?.(error))
      return undefined;
    if (!this.reply.sent) {
      const status = this.options.statusOf?.(message) ?? 200;
      this.reply.code(status).header('content-type', 'application/json').send(JSON.stringify(message));
    }
    return undefined;
  }

  /**
   * Closes the POST's connection once an id'd event was sent (the answer becomes a stream
   * first if it was not yet one, starting with its priming event); the client resumes with GET
   * and `Last-Event-ID` (SSE polling, SEP-1699). False when nothing could resume it: JSON
   * mode, or no event store.
   */
  closeConnection(): boolean {
    if (this.finished || this.mode === 'json' || !this.options.sse.eventStore) return false;
    if (!this.sse) this.upgrade();
    const writer = this.sse as SseWriter;
    // Queued behind the priming event, so the client always has an id to resume from.
    void writer.exclusive(async () => writer.detach());
    return true;
  }

  /**
   * The client cancelled request `id` (`notifications/cancelled`): the server sends no response
   * for it (MCP 2025-11-25, Cancellation). Once every request of the POST is answered or
   * cancelled, the POST ends without more: an SSE answer closes after the events sent so far,
   * a JSON one becomes `202 Accepted` with no body (what the official SDK clients accept for a
   * POST that gets no JSON-RPC answer). A batch's answers not yet sent by then are dropped.
   */
  cancel(id: RequestId): void {
    if (this.finished || !this.pending.delete(id) || this.pending.size > 0) return;
    this.finished = true;
    if (this.sse) void this.sse.end();
    else if (!this.reply.sent) this.reply.code(202).send();
    this.options.onFinish?.(this);
  }

  /** Ends the answer without a response (session closed). */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.sse) {
      this.sse.end();
      return;
    }
    if (this.reply.sent) return;
    // Every pending request gets an answer that says why it has none.
    const errors = [...this.pending].map((id) => ({
      jsonrpc: '2.0' as const,
      id,
      error: {
        code: ErrorCode.InternalError,
        message: 'Internal error: the session ended before the request completed',
      },
    }));
    const body = errors.length === 1 ? errors[0] : errors;
    this.reply.code(200).header('content-type', 'application/json').send(JSON.stringify(body));
  }

  private upgrade(): void {
    const writer = new SseWriter(this.options.newStreamId(), { ...this.options.sse, requestIds: this.ids });
    writer.attach(openSseResponse(this.reply), this.options.prime ?? true);
    this.sse = writer;
    this.options.onSse?.(writer, this);
  }
}
