import {
  DEFAULT_MAX_LINE_BYTES,
  encodeLine,
  LineDecoder,
  type RequestId,
  type SendOptions,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type { ServerSession } from '../server/server-session';
import type { ListenHost, McpListener } from './listener';

export interface StdioOptions {
  /** Largest accepted line; longer lines are answered with an error and skipped. Default 4 MiB. */
  maxLineBytes?: number;
  /**
   * Redirect other writes to stdout (`console.log`, stray `process.stdout.write`) to stderr
   * while serving, so that nothing corrupts the protocol stream. Default true.
   */
  guardStdout?: boolean;
  /**
   * Least time between a request's last notification and its response, so that clients that
   * handle notifications asynchronously (the official SDK client does) see progress and logs
   * before the result. Default 15 ms; 0 turns it off.
   */
  notificationGapMs?: number;
  /** Close the application when stdin ends (2026-07-28 stdio: exit promptly on EOF). Default true. */
  closeOnEnd?: boolean;
  /** Streams to use instead of the process's own (tests). */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

type WriteFn = NodeJS.WritableStream['write'];

/**
 * Newline-delimited JSON over a readable and a writable stream. Writes made in the same tick
 * are joined into one `write` call; when the output pushes back (`write` returns false), input
 * is paused until `drain`.
 */
export class StdioServerTransport implements Transport {
  private sink?: TransportSink;
  private decoder?: LineDecoder;
  private queued: string[] = [];
  /** When each request in flight last sent a notification (progress, log). */
  private readonly lastNotified = new Map<RequestId, number>();
  private flushScheduled = false;
  /** Responses held back behind their notifications; written at once when the transport closes. */
  private readonly delayed = new Map<NodeJS.Timeout, string>();
  private waitingForDrain = false;
  private closed = false;
  private restoreStdout?: () => void;
  private readonly write: (chunk: string) => boolean;
  private readonly notificationGapMs: number;
  private readonly onData = (chunk: Buffer | string) =>
    this.decoder?.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => this.finish();
  private readonly onInputError = (error: Error) => this.finish(error);
  private readonly onOutputError = (error: Error) => this.finish(error);
  private readonly onDrain = () => {
    this.waitingForDrain = false;
    this.input.resume();
  };

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly options: Pick<StdioOptions, 'maxLineBytes' | 'guardStdout' | 'notificationGapMs'> = {},
  ) {
    this.notificationGapMs = options.notificationGapMs ?? 15;
    const original = output.write;
    this.write = (chunk) => original.call(output, chunk) as boolean;
  }

  start(sink: TransportSink): void {
    if (this.sink) throw new Error('StdioServerTransport already started');
    this.sink = sink;
    this.decoder = new LineDecoder(
      { value: (value) => sink.message(value), invalid: (error) => sink.invalid(error) },
      this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
    if ((this.options.guardStdout ?? true) && this.output === process.stdout) this.guardStdout();
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
    this.output.on('drain', this.onDrain);
    this.input.resume();
  }

  send(message: WireMessage, options?: SendOptions): void {
    if (this.closed) return;
    const related = options?.relatedRequestId;
    if (related !== undefined && !Array.isArray(message) && this.notificationGapMs > 0) {
      if (!('id' in message)) {
        if (this.lastNotified.size > 1024) this.lastNotified.clear();
        this.lastNotified.set(related, performance.now());
      } else {
        const notifiedAt = this.lastNotified.get(related);
        if (notifiedAt !== undefined) {
          this.lastNotified.delete(related);
          const wait = this.notificationGapMs - (performance.now() - notifiedAt);
          if (wait > 0) {
            // The official SDK client runs notification handlers a microtask after it settles
            // the responses of the same read, so progress that arrives together with its
            // response is dropped. Leave the client time to read the notifications first.
            const line = encodeLine(message);
            const timer = setTimeout(() => {
              this.delayed.delete(timer);
              this.enqueue(line);
            }, wait);
            this.delayed.set(timer, line);
            return;
          }
        }
      }
    }
    this.enqueue(encodeLine(message));
  }

  private enqueue(line: string): void {
    if (this.closed) return;
    this.queued.push(line);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flush);
    }
  }

  async close(): Promise<void> {
    this.releaseDelayed();
    this.flush();
    this.finish();
  }

  /** Writes the held-back responses now, in the order they were sent. */
  private releaseDelayed(): void {
    for (const [timer, line] of this.delayed) {
      clearTimeout(timer);
      if (!this.closed) this.queued.push(line);
    }
    this.delayed.clear();
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.queued.length === 0 || this.closed) return;
    const chunk = this.queued.length === 1 ? this.queued[0] : this.queued.join('');
    this.queued = [];
    if (!this.write(chunk) && !this.waitingForDrain) {
      // Backpressure: stop reading requests until the client reads our responses.
      this.waitingForDrain = true;
      this.input.pause();
    }
  };

  /** Sends everything else written to stdout to stderr while the transport runs. */
  private guardStdout(): void {
    const stdout = process.stdout;
    const original = stdout.write;
    const redirected = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
      (process.stderr.write as (...args: unknown[]) => boolean)(chunk, encoding, callback)) as WriteFn;
    stdout.write = redirected as typeof stdout.write;
    this.restoreStdout = () => {
      if (stdout.write === redirected) stdout.write = original;
    };
  }

  private finish(error?: Error): void {
    if (this.closed) return;
    this.releaseDelayed();
    if (this.queued.length > 0) this.flush();
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
    this.output.off('drain', this.onDrain);
    this.input.pause();
    this.restoreStdout?.();
    this.decoder?.reset();
    this.sink?.closed(error);
  }
}

/**
 * Serves the application on the process's stdin/stdout (one client, one session).
 *
 * @example
 * ```ts
 * await app.listen(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): McpListener {
  let session: ServerSession | undefined;
  return {
    async listen(host: ListenHost): Promise<void> {
      const transport = new StdioServerTransport(options.input, options.output, options);
      session = await host.server.connect(transport);
      if (options.closeOnEnd ?? true) {
        session.onClose(() => {
          host.close().catch((error) => host.logger.error('Error while closing after stdin ended:', error));
        });
      }
    },
    async close(): Promise<void> {
      await session?.close();
    },
  };
}
