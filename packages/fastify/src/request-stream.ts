import type { JSONRPCMessage, RequestId } from '@gantry/protocol';
import type { FastifyReply } from 'fastify';
import { SSE_HEADERS, SseWriter, type SseWriterOptions } from './sse-writer';

/** How a POST carrying requests is answered. */
export type ResponseMode = 'auto' | 'json' | 'sse';

/** Per-era details of an answer. */
export interface RequestStreamOptions {
  /** Start an SSE stream with a priming event (session era); default true. */
  prime?: boolean;
  /** The HTTP status of a JSON answer; default 200. */
  statusOf?: (message: JSONRPCMessage | JSONRPCMessage[]) => number;
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

  constructor(
    private readonly reply: FastifyReply,
    readonly ids: readonly RequestId[],
    private readonly mode: ResponseMode,
    private readonly sseOptions: SseWriterOptions,
    private readonly newStreamId: () => string,
    private readonly onSse: (writer: SseWriter, stream: RequestStream) => void,
    private readonly onFinish: (stream: RequestStream, response: JSONRPCMessage | JSONRPCMessage[]) => void,
    /** Answers an insufficient-scope error with an HTTP 403 challenge; true when it did. */
    private readonly stepUp?: (error: { message: string; data?: unknown }) => boolean,
    private readonly extras: RequestStreamOptions = {},
  ) {
    this.pending = new Set(ids);
    if (mode === 'sse') this.upgrade();
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** The SSE writer, once the answer became a stream. */
  get writer(): SseWriter | undefined {
    return this.sse;
  }

  /**
   * A notification or request tied to one of this POST's requests. Returns false in `json`
   * mode, where it cannot travel on this answer (the caller then uses the standalone stream).
   */
  related(message: JSONRPCMessage): boolean {
    if (this.finished) return false;
    if (!this.sse) {
      if (this.mode === 'json') return false;
      this.upgrade();
    }
    (this.sse as SseWriter).write(message);
    return true;
  }

  /** The response (or batch of responses) to this POST's request(s). */
  respond(id: RequestId | undefined, message: JSONRPCMessage | JSONRPCMessage[]): void {
    if (this.finished) return;
    if (Array.isArray(message)) this.pending.clear();
    else if (id !== undefined) this.pending.delete(id);
    const last = this.pending.size === 0;
    if (this.sse) {
      this.sse.write(message);
      if (last) {
        this.finished = true;
        this.sse.end();
        this.onFinish(this, message);
      }
      return;
    }
    // JSON mode: a POST with several requests (a batch) is answered once, as an array.
    if (!last) return;
    this.finished = true;
    this.onFinish(this, message);
    const error = (message as { error?: { message: string; data?: { insufficientScope?: boolean } } }).error;
    if (error?.data?.insufficientScope === true && !this.reply.sent && this.stepUp?.(error)) return;
    if (!this.reply.sent) {
      const status = this.extras.statusOf?.(message) ?? 200;
      this.reply.code(status).header('content-type', 'application/json').send(JSON.stringify(message));
    }
  }

  /**
   * Closes the POST's connection once an id'd event was sent (the answer becomes a stream
   * first if it was not yet one, starting with its priming event); the client resumes with GET
   * and `Last-Event-ID` (SSE polling, SEP-1699). False when nothing could resume it: JSON
   * mode, or no event store.
   */
  closeConnection(): boolean {
    if (this.finished || this.mode === 'json' || !this.sseOptions.eventStore) return false;
    if (!this.sse) this.upgrade();
    const writer = this.sse as SseWriter;
    // Queued behind the priming event, so the client always has an id to resume from.
    void writer.exclusive(async () => writer.detach());
    return true;
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
      error: { code: -32603, message: 'Internal error: the session ended before the request completed' },
    }));
    const body = errors.length === 1 ? errors[0] : errors;
    this.reply.code(200).header('content-type', 'application/json').send(JSON.stringify(body));
  }

  private upgrade(): void {
    const reply = this.reply;
    const headers: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) headers[name] = value as string | number | string[];
    }
    reply.hijack();
    reply.raw.writeHead(200, { ...headers, ...SSE_HEADERS });
    const writer = new SseWriter(this.newStreamId(), this.sseOptions);
    writer.attach(reply.raw, this.extras.prime ?? true);
    this.sse = writer;
    this.onSse(writer, this);
  }
}
