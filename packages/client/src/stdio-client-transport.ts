import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import {
  ConnectionClosedError,
  encodeLine,
  GantryError,
  type InvalidRequestError,
  LineDecoder,
  LocalErrorCode,
  NotConnectedError,
  type ParseError,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';

/** Options of {@link StdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** The executable to run. It is spawned directly, never through a shell. */
  command: string;
  args?: readonly string[];
  /**
   * The child's environment. As with `child_process.spawn`, it replaces the environment
   * (default: `process.env`); spread `process.env` into it to extend rather than replace.
   */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * What happens to the child's stderr (default `'inherit'`). With `'pipe'`, it is readable
   * from {@link StdioClientTransport.stderr} and its last 2 KB are quoted when the child dies.
   */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** Largest line accepted from the child's stdout; default `DEFAULT_MAX_LINE_BYTES` (4 MiB). */
  maxLineBytes?: number;
  /**
   * Receives each stdout line that is not a JSON value (or is too long). Such lines are
   * dropped; see {@link StdioClientTransport} for why.
   */
  onInvalidLine?: (error: ParseError | InvalidRequestError) => void;
  /**
   * How long `close()` waits at each stage of the shutdown (MCP 2025-11-25, Lifecycle
   * §Shutdown, stdio): after closing the child's stdin before sending SIGTERM, and after
   * SIGTERM before SIGKILL. Default {@link DEFAULT_STDIO_SHUTDOWN_GRACE_MS} (2 s). A child that
   * exits on end of input, as MCP servers do, ends `close()` at once whatever this is.
   */
  shutdownGraceMs?: number;
}

/** The default {@link StdioClientTransportOptions.shutdownGraceMs}: 2 s per shutdown stage. */
export const DEFAULT_STDIO_SHUTDOWN_GRACE_MS = 2_000;
/** How much of the child's stderr is quoted when it exits unexpectedly. */
const STDERR_TAIL_BYTES = 2_048;
/** Unread piped stderr kept for the caller before further output is dropped. */
const MAX_UNREAD_STDERR_BYTES = 1024 * 1024;
/** After `exit`, how long to wait for the stdio pipes to close (a grandchild may hold them). */
const PIPE_CLOSE_GRACE_MS = 1_000;

interface BacklogEntry {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Client side of the stdio transport: spawns an MCP server and speaks newline-delimited
 * JSON on its stdin/stdout.
 *
 * - Writes respect backpressure: once `stdin.write` returns false, later messages wait
 *   in order for `drain`, and their `send` promises settle when they are handed to the pipe.
 * - A stdout line that is not JSON is reported to `onInvalidLine` and dropped. It is not
 *   handed to the Peer, which would answer the server with a −32700 error carrying
 *   `id: null`: the server cannot correlate it, and the usual cause is a stray
 *   `console.log` in the server, which the spec forbids but which should not end the
 *   session (2025-11-25 transports, stdio: "MUST NOT write anything to its stdout that is
 *   not a valid MCP message").
 * - If the child exits on its own, the sink's `closed` receives a `ConnectionClosedError`
 *   naming the exit code or signal, with the tail of stderr when it is piped.
 *
 * @example
 * const transport = new StdioClientTransport({ command: process.execPath, args: ['server.js'] });
 * await client.connect(transport);
 */
export class StdioClientTransport implements Transport {
  private child?: ChildProcess;
  private sink?: TransportSink;
  /** Set while waiting for `drain`: messages queued behind the one that filled the pipe. */
  private backlog?: BacklogEntry[];
  private stderrTail = Buffer.alloc(0);
  private readonly stderrOut?: PassThrough;
  /** Settles once the child has spawned, or failed to. */
  private spawned?: Promise<void>;
  private exitPromise?: Promise<void>;
  private closingPromise?: Promise<void>;
  private closing = false;
  private finished = false;
  /** Set on `exit`; `expected` when `close()` had begun by then. */
  private exitState?: { code: number | null; signal: NodeJS.Signals | null; expected: boolean };
  private readonly shutdownGraceMs: number;

  constructor(private readonly options: StdioClientTransportOptions) {
    if (typeof options?.command !== 'string' || options.command === '') {
      throw new TypeError('StdioClientTransport: `command` must be a non-empty string');
    }
    const grace = options.shutdownGraceMs;
    if (grace !== undefined && !(typeof grace === 'number' && Number.isFinite(grace) && grace >= 0)) {
      throw new TypeError(
        `StdioClientTransport: \`shutdownGraceMs\` must be a non-negative number of milliseconds, got ${String(grace)}`,
      );
    }
    this.shutdownGraceMs = grace ?? DEFAULT_STDIO_SHUTDOWN_GRACE_MS;
    // Created now, so a caller can listen before `start` and miss nothing.
    if (options.stderr === 'pipe') this.stderrOut = new PassThrough();
  }

  /** The child's stderr when `stderr: 'pipe'`; `null` otherwise. Unread output beyond 1 MiB is dropped. */
  get stderr(): Readable | null {
    return this.stderrOut ?? null;
  }

  /**
   * The era cache's key for this server: its command and arguments (a client remembers the
   * protocol era a server spoke and tries it first next time).
   */
  get eraCacheKey(): string {
    return `stdio:${JSON.stringify([this.options.command, ...(this.options.args ?? [])])}`;
  }

  /** The child's process id once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The child's exit code once it has exited (null if it was killed by a signal). */
  get exitCode(): number | null {
    return this.exitState?.code ?? null;
  }

  /** The signal that ended the child, if one did. */
  get signalCode(): NodeJS.Signals | null {
    return this.exitState?.signal ?? null;
  }

  /** Spawns the server. Rejects if the command cannot be started (not found, not executable). */
  async start(sink: TransportSink): Promise<void> {
    if (this.child || this.sink) {
      throw new GantryError(LocalErrorCode.AlreadyStarted, 'StdioClientTransport already started');
    }
    if (this.closing) {
      throw new NotConnectedError('StdioClientTransport was closed before it started; create a new one');
    }
    this.sink = sink;
    const { command, args = [], env, cwd } = this.options;
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['pipe', 'pipe', this.options.stderr ?? 'inherit'],
      shell: false,
      windowsHide: true,
    });
    this.child = child;

    this.spawned = new Promise<void>((resolve, reject) => {
      const onSpawn = () => {
        child.off('error', onError);
        resolve();
      };
      const onError = (error: NodeJS.ErrnoException) => {
        child.off('spawn', onSpawn);
        this.stderrOut?.end();
        reject(this.spawnError(error));
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
    await this.spawned;

    // Errors after spawn (a failed kill, a broken pipe) are followed by `exit`/`close`,
    // which report the end of the connection; the listeners keep them from crashing the process.
    child.on('error', () => {});
    child.stdin!.on('error', () => {});
    child.stdout!.on('error', () => {});

    const decoder = new LineDecoder(
      {
        value: (value) => this.sink?.message(value),
        invalid: (error) => this.options.onInvalidLine?.(error),
      },
      this.options.maxLineBytes,
    );
    child.stdout!.on('data', (chunk: Buffer) => decoder.push(chunk));
    child.stdout!.on('end', () => decoder.reset());

    if (child.stderr) {
      child.stderr.on('error', () => {});
      child.stderr.on('data', (chunk: Buffer) => this.onStderr(chunk));
      // `close` rather than `end`: a pipe destroyed after exit never ends.
      child.stderr.once('close', () => this.stderrOut?.end());
    }

    this.exitPromise = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitState = { code, signal, expected: this.closing };
        this.rejectBacklog(new ConnectionClosedError(this.exitDescription()));
        // `close` normally follows once stdout is drained; a grandchild holding the pipes
        // open must not keep the connection alive.
        const grace = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, PIPE_CLOSE_GRACE_MS);
        grace.unref();
        child.once('close', () => clearTimeout(grace));
        resolve();
      });
    });
    // `close` comes after every stdout byte was read, so a response written just before
    // exiting still reaches the Peer.
    child.once('close', () => this.finish());
  }

  /** Writes one message as a line; waits behind earlier messages while the pipe is full. */
  send(message: WireMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing || this.finished || this.exitState || !stdin.writable) {
      return Promise.reject(new NotConnectedError('Not connected: the MCP server process is not running'));
    }
    const line = encodeLine(message);
    if (this.backlog) {
      const backlog = this.backlog;
      return new Promise<void>((resolve, reject) => backlog.push({ line, resolve, reject }));
    }
    if (!stdin.write(line)) {
      this.backlog = [];
      stdin.once('drain', () => this.flushBacklog());
    }
    return Promise.resolve();
  }

  /**
   * Shuts the server down (2025-11-25 lifecycle, stdio): closes its stdin, waits up to
   * `shutdownGraceMs` (2 s) for it to exit, then sends SIGTERM, and after `shutdownGraceMs`
   * more SIGKILL. Resolves once it has exited.
   */
  close(): Promise<void> {
    this.closingPromise ??= this.shutdown();
    return this.closingPromise;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    // A close during `start` waits for the spawn to settle, so no child is left behind.
    await this.spawned?.catch(() => {});
    const child = this.child;
    if (!child || !this.exitPromise) {
      // Never started, or the spawn failed: nothing runs, but the sink still hears of the close.
      this.finish();
      return;
    }
    this.rejectBacklog(new ConnectionClosedError('Connection closed: the transport was closed'));
    if (!this.exitState) {
      child.stdin?.end();
      if (!(await this.exitWithin(this.shutdownGraceMs))) {
        child.kill('SIGTERM');
        if (!(await this.exitWithin(this.shutdownGraceMs))) {
          child.kill('SIGKILL');
          await this.exitPromise;
        }
      }
    }
    // The pipes may still hold output; the Peer is told now either way.
    this.finish();
  }

  private exitWithin(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.exitPromise!.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private flushBacklog(): void {
    const backlog = this.backlog;
    const stdin = this.child?.stdin;
    this.backlog = undefined;
    if (!backlog || !stdin) return;
    while (backlog.length > 0) {
      const entry = backlog.shift()!;
      const ok = stdin.write(entry.line);
      entry.resolve();
      if (!ok) {
        this.backlog = backlog;
        stdin.once('drain', () => this.flushBacklog());
        return;
      }
    }
  }

  private rejectBacklog(error: Error): void {
    const backlog = this.backlog;
    this.backlog = undefined;
    if (backlog) for (const entry of backlog) entry.reject(error);
  }

  private onStderr(chunk: Buffer): void {
    const tail = Buffer.concat([this.stderrTail, chunk]);
    this.stderrTail = tail.length > STDERR_TAIL_BYTES ? tail.subarray(tail.length - STDERR_TAIL_BYTES) : tail;
    const out = this.stderrOut;
    // Never block the server on its logs: unread output past the limit is dropped.
    if (out && out.writableLength + out.readableLength < MAX_UNREAD_STDERR_BYTES) out.write(chunk);
  }

  /** Reports the end of the connection to the sink, once. */
  private finish(): void {
    this.finished = true;
    const sink = this.sink;
    this.sink = undefined;
    if (!sink) return;
    const state = this.exitState;
    if (state && !state.expected) sink.closed(new ConnectionClosedError(this.exitDescription()));
    else sink.closed();
  }

  private exitDescription(): string {
    const name = `MCP server "${this.options.command}"`;
    const state = this.exitState;
    let text =
      state === undefined
        ? `${name} closed its output`
        : state.signal
          ? `${name} was killed by signal ${state.signal}`
          : `${name} exited with code ${state.code}`;
    if (this.stderrTail.length > 0) {
      text += `; last stderr output:\n${this.stderrTail.toString('utf8').trimEnd()}`;
    }
    return text;
  }

  private spawnError(error: NodeJS.ErrnoException): Error {
    const { command, cwd } = this.options;
    let hint: string;
    if (error.code === 'ENOENT') {
      hint = cwd
        ? `command "${command}" was not found, or the working directory "${cwd}" does not exist`
        : `command "${command}" was not found; check its spelling and PATH, or give an absolute path`;
    } else if (error.code === 'EACCES') {
      hint = `command "${command}" is not executable (check its permissions)`;
    } else {
      hint = `command "${command}" could not be started`;
    }
    return new Error(`Cannot start the MCP server: ${hint} (${error.message})`, { cause: error });
  }
}
