import {
  ConnectionClosedError,
  DEFAULT_MAX_LINE_BYTES,
  encodeLine,
  LineDecoder,
  Method,
  type RequestId,
  type SendOptions,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import { type Logger, logsToStdout, StderrLogger } from '../logger';
import type { Connection, ConnectionHost, TransportInfo } from './connection-host';
import { LineWriter } from './line-writer';
import type { McpListener } from './listener';
import { UnansweredRequests } from './unanswered-requests';

/** stdio is a pipe (OpenTelemetry `network.transport`, semantic-conventions-genai mcp.md). */
const STDIO_TRANSPORT: TransportInfo = Object.freeze({ network: 'pipe' });

/** Defaults of the flow options of {@link StdioTransportOptions}. */
export const DEFAULT_STDIO_FLOW = Object.freeze({
  /** As the WebSocket transport's options of the same names. */
  maxInflight: 64,
  maxQueuedBytes: 16 * 1024 * 1024,
  endGraceMs: 10_000,
  /** The most a Node.js client reads from a pipe at once (libuv reads streams in 64 KiB buffers). */
  progressPaddingBytes: 64 * 1024,
});

/** Options of {@link StdioServerTransport}. */
export interface StdioTransportOptions {
  /** Largest accepted line; longer lines are answered with an error and skipped. Default 4 MiB. */
  maxLineBytes?: number;
  /**
   * Redirect other writes to stdout (`console.log`, stray `process.stdout.write`) to stderr
   * while serving, so that nothing corrupts the protocol stream. Default true.
   */
  guardStdout?: boolean;
  /**
   * Bytes of messages that may wait in the transport while stdout pushes back (its `write`
   * returned false and it has not drained). Until then a send waits for `drain`, so a handler
   * that awaits `ctx.log` or `ctx.progress` is held back by a client that reads slowly; a
   * message that would take the queue past this closes the connection, with the reason on
   * stderr: a client that never reads must not make the server hold its output without bound.
   * Default 16 MiB (as the WebSocket transport's option of the same name).
   */
  maxQueuedBytes?: number;
  /**
   * Once stdin ends, how long requests still running may take to finish; their answers are
   * written, stdout is flushed, and then the connection closes. What still runs when the time
   * is up is cancelled (`ctx.signal` aborts) and its answer dropped. Default 10 000 ms.
   */
  endGraceMs?: number;
  /**
   * Spaces written before a response whose request reported progress, up to this many bytes
   * of response line. The official TypeScript SDK client handles a notification a microtask
   * after the responses of the same read, and forgets a request's progress handler when its
   * response arrives (modelcontextprotocol/typescript-sdk#2580), so progress that arrives in
   * the same read as the response is lost. A pipe read returns at most 64 KiB to a Node.js
   * client, so a response line of at least that length cannot complete in the read that
   * carried the progress before it, however the pipe merges writes. JSON allows whitespace
   * before a value (RFC 8259 §2). Default 65 536; 0 turns it off.
   */
  progressPaddingBytes?: number;
  /** Where the transport reports why it closed a connection itself. Default: stderr. */
  logger?: Pick<Logger, 'warn' | 'error'>;
}

export interface StdioOptions extends Omit<StdioTransportOptions, 'logger'> {
  /**
   * Requests the server runs at once: a request holds its slot until its answer is written or
   * the client cancels it. Further requests are held back (up to as many again are read
   * ahead), then stdin is paused until answers go out; the server's Peer enforces it
   * (`PeerOptions.maxInflight`). Default 64 (as the WebSocket transport's option).
   */
  maxInflight?: number;
  /**
   * Close the application when the connection ends: stdin ended (MCP 2026-07-28, Basic /
   * Transports §stdio: exit promptly on EOF, after the grace of `endGraceMs`), or the
   * transport closed it (a client that does not read, see `maxQueuedBytes`). Default true.
   */
  closeOnEnd?: boolean;
  /** Streams to use instead of the process's own (tests). */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

type WriteFn = NodeJS.WritableStream['write'];

function checkOption(name: string, value: number | undefined, fallback: number, least: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < least) {
    throw new TypeError(`stdio: ${name} must be a whole number ≥ ${least} (got ${String(value)})`);
  }
  return resolved;
}

/**
 * Newline-delimited JSON over a readable and a writable stream (MCP 2025-11-25, Basic /
 * Transports §stdio).
 *
 * - Output: lines sent in the same tick are joined into one `write` call. When the output
 *   pushes back, sends wait for `drain` (see `maxQueuedBytes`) and input is paused meanwhile.
 * - Order: messages are written in the order they are sent, so a request's notifications
 *   always precede its response on the wire; see `progressPaddingBytes` for clients that
 *   still handle them after the response.
 * - End of input: reading stops; requests still running are answered (see `endGraceMs`),
 *   stdout is flushed, and then the connection closes.
 */
export class StdioServerTransport implements Transport {
  private sink?: TransportSink;
  private decoder?: LineDecoder;
  private readonly writer: LineWriter;
  private readonly unanswered = new UnansweredRequests();
  /** Requests in flight that sent progress: their responses are padded. */
  private readonly progressed = new Set<RequestId>();
  private closed = false;
  /** Why reading stops: the Peer paused it (in-flight limit), or stdout pushes back. */
  private pausedByPeer = false;
  private congested = false;
  /** Set once stdin ended: the connection closes when nothing is unanswered or unwritten. */
  private endTimer?: NodeJS.Timeout;
  private ended = false;
  private restoreStdout?: () => void;
  private readonly endGraceMs: number;
  private readonly progressPaddingBytes: number;
  private readonly logger: Pick<Logger, 'warn' | 'error'>;
  private readonly onData = (chunk: Buffer | string) =>
    this.decoder?.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => this.inputEnded();
  private readonly onInputError = (error: Error) => this.finish(error, false);
  private readonly onOutputError = (error: Error) => this.finish(error, true);

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly options: StdioTransportOptions = {},
  ) {
    const maxQueuedBytes = checkOption(
      'maxQueuedBytes',
      options.maxQueuedBytes,
      DEFAULT_STDIO_FLOW.maxQueuedBytes,
      1,
    );
    this.endGraceMs = checkOption('endGraceMs', options.endGraceMs, DEFAULT_STDIO_FLOW.endGraceMs, 0);
    this.progressPaddingBytes = checkOption(
      'progressPaddingBytes',
      options.progressPaddingBytes,
      DEFAULT_STDIO_FLOW.progressPaddingBytes,
      0,
    );
    this.logger = options.logger ?? new StderrLogger();
    // The stream's own write, taken before guardStdout() replaces process.stdout.write.
    const original = output.write;
    this.writer = new LineWriter(
      output,
      (chunk, callback) =>
        (original as (chunk: string, callback: () => void) => boolean).call(output, chunk, callback),
      maxQueuedBytes,
      {
        congestion: (congested) => {
          // Backpressure both ways: stop reading requests until the client reads our output.
          this.congested = congested;
          this.updateReading();
        },
        overflow: (queued) => {
          this.logger.error(
            `stdio: closing the connection: the client is not reading stdout (more than ${maxQueuedBytes} bytes queued; see the maxQueuedBytes option)`,
          );
          this.finish(
            new ConnectionClosedError(
              `Connection closed: the client is not reading stdout (${queued} bytes would be queued, more than maxQueuedBytes ${maxQueuedBytes})`,
            ),
            true,
          );
        },
        idle: () => {
          if (this.ended && this.unanswered.size === 0) this.finish(undefined, false);
        },
      },
    );
  }

  start(sink: TransportSink): void {
    if (this.sink) throw new Error('StdioServerTransport already started');
    this.sink = sink;
    const unanswered = this.unanswered;
    this.decoder = new LineDecoder(
      {
        value: (value) => {
          unanswered.received(value);
          try {
            sink.message(value);
          } finally {
            unanswered.delivered();
          }
        },
        invalid: (error) => sink.invalid(error),
      },
      this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
    if ((this.options.guardStdout ?? true) && this.output === process.stdout) this.guardStdout();
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
    this.updateReading();
  }

  send(message: WireMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.resolve();
    const answered = this.unanswered.sent(message);
    const line = this.encode(message, options?.relatedRequestId);
    const written = this.writer.write(line);
    if (answered && this.ended) this.closeIfDone();
    return written;
  }

  /** Writes what is queued and closes the connection. */
  async close(): Promise<void> {
    this.finish(undefined, false);
  }

  /** Stops reading stdin (the Peer's in-flight limit is reached); lines already read still arrive. */
  pauseReading(): void {
    this.pausedByPeer = true;
    this.updateReading();
  }

  /** Reads stdin again, unless stdout still pushes back. */
  resumeReading(): void {
    this.pausedByPeer = false;
    this.updateReading();
  }

  private updateReading(): void {
    if (this.pausedByPeer || this.congested) this.input.pause();
    else if (!this.ended && !this.closed) this.input.resume();
  }

  private encode(message: WireMessage, related: RequestId | undefined): string {
    if (related === undefined || Array.isArray(message) || this.progressPaddingBytes === 0) {
      return encodeLine(message);
    }
    if ('method' in message) {
      if (message.method === Method.Progress && !('id' in message)) {
        // Ids of requests cancelled after reporting progress are never answered; keep the set small.
        if (this.progressed.size >= 1024) this.progressed.clear();
        this.progressed.add(related);
      }
      return encodeLine(message);
    }
    const line = encodeLine(message);
    if (!this.progressed.delete(related) || line.length >= this.progressPaddingBytes) return line;
    // String length never exceeds UTF-8 length, so the line is at least progressPaddingBytes bytes.
    return ' '.repeat(this.progressPaddingBytes - line.length) + line;
  }

  /** stdin ended: stop reading, let what runs finish within the grace, then close. */
  private inputEnded(): void {
    if (this.closed || this.ended) return;
    this.ended = true;
    this.input.off('data', this.onData);
    // A last line without its newline is not a message (newline-delimited framing).
    this.decoder?.reset();
    if (this.closeIfDone()) return;
    this.endTimer = setTimeout(() => {
      const running = this.unanswered.size;
      if (running > 0) {
        this.logger.warn(
          `stdio: stdin ended; ${running} ${running === 1 ? 'request' : 'requests'} still running after ${this.endGraceMs} ms (endGraceMs) ${running === 1 ? 'is' : 'are'} cancelled`,
        );
      } else {
        this.logger.warn(
          `stdio: stdin ended; the client did not read the last answers within ${this.endGraceMs} ms (endGraceMs); they are dropped`,
        );
      }
      this.finish(undefined, true);
    }, this.endGraceMs);
  }

  private closeIfDone(): boolean {
    if (this.unanswered.size > 0 || !this.writer.isIdle) return false;
    this.finish(undefined, false);
    return true;
  }

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

  /** Ends the connection once; `drop` forgets queued output (the client is not reading it). */
  private finish(error: Error | undefined, drop: boolean): void {
    if (this.closed) return;
    this.writer.close(drop);
    this.closed = true;
    if (this.endTimer) clearTimeout(this.endTimer);
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
    this.input.pause();
    this.restoreStdout?.();
    this.decoder?.reset();
    this.progressed.clear();
    this.sink?.closed(error);
  }
}

/**
 * Serves the application on the process's stdin/stdout (one client, one session).
 *
 * When stdin ends, requests still running get `endGraceMs` to finish and be answered; then the
 * connection and (with `closeOnEnd`) the application close. The process then exits once
 * nothing else keeps it alive: a handler that ignores its aborted `ctx.signal` and keeps a
 * timer running keeps it, until the client's SIGTERM (MCP 2025-11-25, Basic / Lifecycle §Shutdown, stdio).
 * If the client stops reading stdout, handlers wait; past `maxQueuedBytes` the connection
 * closes (reason on stderr) and the application with it, and the process exits once the
 * client reads what the pipe holds or closes it.
 *
 * @example
 * ```ts
 * await app.listen(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): McpListener {
  const maxInflight = checkOption('maxInflight', options.maxInflight, DEFAULT_STDIO_FLOW.maxInflight, 1);
  let session: Connection | undefined;
  return {
    async listen(host: ConnectionHost): Promise<void> {
      if (logsToStdout(host.logger)) {
        throw new TypeError(
          'stdio(): the application logs with a pino logger that writes to stdout, which carries the protocol on stdio; give pino another destination, e.g. pinoLogger(pino(pino.destination(2))) for stderr',
        );
      }
      const transport = new StdioServerTransport(options.input, options.output, {
        ...options,
        logger: host.logger,
      });
      session = await host.connect(transport, { maxInflight, transport: STDIO_TRANSPORT });
      if (options.closeOnEnd ?? true) {
        session.onClose(() => {
          // The one connection is gone: nothing could receive what in-flight calls answer.
          host
            .close({ drain: false })
            .catch((error) => host.logger.error('Error while closing after stdin ended:', error));
        });
      }
    },
    async close(): Promise<void> {
      await session?.close();
    },
  };
}
