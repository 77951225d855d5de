// One server under test as a child process, and the newline-delimited JSON-RPC pipe to it:
// spawn, framing, correlation, checking every answer, and timed slices of traffic.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { pinnedCommand } from './cpu-affinity';
import { processCpuTimeNs } from './process-cpu';

/**
 * Which protocol era a driver speaks: `session` is the session era (2025-11-25: `initialize`
 * first, then requests on the session), `stateless` the stateless era (2026-07-28: no
 * handshake, every request carries its version and capabilities in `params._meta`).
 */
export type Era = 'session' | 'stateless';

/** A server under test: its name, the compiled script `node` runs, and the era it is spoken to in (default legacy). */
export interface ServerSpec {
  readonly name: string;
  readonly script: string;
  readonly era?: Era;
  /** Environment variables set for the server, beside this process's own. */
  readonly env?: Readonly<Record<string, string>>;
}

/** What one timed slice of traffic achieved. */
export interface Slice {
  /** Responses received inside the slice's window (answers to requests still in flight at its end are not counted). */
  readonly responses: number;
  /** Every response the slice received, also those that came after its window closed. */
  readonly answered: number;
  readonly seconds: number;
  /** Sequential slices only: write → response parsed, per request, in µs. */
  readonly latenciesUs: number[];
}

/** A JSON-RPC response as the checks read it. */
export interface Response {
  readonly id: number | string;
  readonly result?: {
    protocolVersion?: unknown;
    content?: Array<{ type?: unknown; text?: unknown }>;
    resultType?: unknown;
  };
  readonly error?: { code: number; message: string };
}

/** A server that answers nothing for this long has stalled; the run fails rather than hangs. */
const STALL_MS = 10_000;

/** The protocol version every session-era driver (stdio, HTTP, WebSocket) negotiates. */
export const PROTOCOL_VERSION = '2025-11-25';

/** The protocol version of every stateless-era request. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';

/**
 * The `_meta` every stateless-era request carries (MCP 2026-07-28, Basic › `_meta` of requests): the two required
 * keys, no capabilities. No clientInfo (a SHOULD, not a MUST): a request grows by what the era
 * requires and no more.
 */
const STATELESS_META_JSON = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': STATELESS_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** The `initialize` request (id 0) and the `notifications/initialized` that follows its answer. */
export const INITIALIZE_JSON = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'gantry-bench', version: '1.0.0' },
  },
});
export const INITIALIZED_JSON = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

const INITIALIZE_LINE = `${INITIALIZE_JSON}\n`;
const INITIALIZED_LINE = `${INITIALIZED_JSON}\n`;

/** The text request `id` carries; the echo must return exactly this. */
function textFor(id: number): string {
  return `hello ${id}`;
}

/**
 * The `tools/call` of the echo tool with request id `id`, as JSON text; in the stateless era
 * with the `_meta` every request of it carries.
 */
export function toolCallJson(id: number, era: Era = 'session'): string {
  if (era === 'stateless') {
    return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${textFor(id)}"},"_meta":${STATELESS_META_JSON}}}`;
  }
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${textFor(id)}"}}}`;
}

function toolCallLine(id: number, era: Era): string {
  return `${toolCallJson(id, era)}\n`;
}

const ignore = (): void => {};

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function secondsSince(from: bigint): number {
  return Number(process.hrtime.bigint() - from) / 1e9;
}

/**
 * One spawned server and the pipe to it. Use `start` (spawn + handshake in the session era) or,
 * to time the handshake, the constructor and `initialize`.
 */
export class ServerProcess {
  readonly name: string;
  /** The era the requests are written in; stateless answers must also carry resultType "complete". */
  private readonly era: Era;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly closed: Promise<void>;
  /** Receives every response, in arrival order; throwing fails the current exchange. */
  private onResponse: (response: Response) => void = ignore;
  /** Told when the pipe breaks, the server exits early, or a response is wrong. */
  private onFailure: (error: Error) => void = ignore;
  /** A failure that happened while nothing was listening; the next exchange reports it. */
  private failure: Error | undefined;
  private inbound = '';
  private outbound = '';
  private stderrTail = '';
  private closing = false;
  private nextId = 1;

  /** `cpu`: run the server pinned to that CPU. */
  constructor(spec: ServerSpec, cpu: number | null = null) {
    this.name = spec.name;
    this.era = spec.era ?? 'session';
    const args = [process.execPath, spec.script];
    const [command, commandArgs] = cpu === null ? [args[0], args.slice(1)] : pinnedCommand(cpu, args);
    const env = spec.env === undefined ? undefined : { ...process.env, ...spec.env };
    this.child = spawn(command, commandArgs, { stdio: 'pipe', env });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.receive(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
    // EPIPE after the child died: the 'close' handler below reports the death itself.
    this.child.stdin.on('error', ignore);
    this.closed = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.fail(error);
        resolve();
      });
      // 'close' rather than 'exit': stderr has been read to its end by then.
      this.child.once('close', (code, signal) => {
        if (!this.closing) this.fail(new Error(`${this.name} exited (${signal ?? `code ${code}`})`));
        resolve();
      });
    });
  }

  /**
   * Spawns the server and, in the session era, completes the MCP handshake. The stateless era
   * has none: the first request goes out with the first slice, and the pipe holds it until
   * the server reads.
   */
  static async start(spec: ServerSpec, cpu: number | null = null): Promise<ServerProcess> {
    const server = new ServerProcess(spec, cpu);
    if (server.era === 'stateless') return server;
    try {
      await server.initialize();
      return server;
    } catch (error) {
      await server.close();
      throw error;
    }
  }

  /** Sends `initialize`, checks its result, then sends `notifications/initialized`. */
  async initialize(): Promise<void> {
    let response: Response | undefined;
    await this.exchange((settle) => {
      this.onResponse = (message) => {
        if (message.id !== 0)
          throw new Error(`${this.name}: expected the initialize response, got ${message.id}`);
        response = message;
        settle();
      };
      this.child.stdin.write(INITIALIZE_LINE);
    }, STALL_MS);
    if (typeof response?.result?.protocolVersion !== 'string') {
      throw new Error(`${this.name}: initialize result has no protocolVersion: ${JSON.stringify(response)}`);
    }
    this.child.stdin.write(INITIALIZED_LINE);
  }

  /**
   * `inFlight` requests outstanding for `durationMs`: each response sends the next request
   * (the requests a chunk of responses triggers go out in one write). Then the slice stops
   * sending and waits for the outstanding answers, so the server is idle when it returns.
   */
  async pipelined(durationMs: number, inFlight: number): Promise<Slice> {
    const pending = new Set<number>();
    let sending = true;
    let responses = 0;
    let answered = 0;
    const send = () => {
      const id = this.nextId++;
      pending.add(id);
      this.outbound += toolCallLine(id, this.era);
    };
    const startedAt = process.hrtime.bigint();
    const done = this.exchange((settle) => {
      this.onResponse = (response) => {
        const id = response.id as number;
        if (!pending.delete(id)) throw new Error(`${this.name}: response to unknown request ${response.id}`);
        expectEcho(this.name, response, id, this.era === 'stateless');
        answered++;
        if (sending) {
          responses++;
          send();
        } else if (pending.size === 0) settle();
      };
      for (let i = 0; i < inFlight; i++) send();
    }, durationMs + STALL_MS);
    await Promise.race([sleep(durationMs), done]);
    sending = false;
    const seconds = secondsSince(startedAt);
    await done;
    return { responses, answered, seconds, latenciesUs: [] };
  }

  /** One request at a time for `durationMs`, the next written as soon as a response is parsed. */
  async sequential(durationMs: number): Promise<Slice> {
    const latenciesUs: number[] = [];
    let sending = true;
    let current = 0;
    let sentAt = 0n;
    const send = () => {
      current = this.nextId++;
      sentAt = process.hrtime.bigint();
      this.child.stdin.write(toolCallLine(current, this.era));
    };
    const startedAt = process.hrtime.bigint();
    const done = this.exchange((settle) => {
      this.onResponse = (response) => {
        const receivedAt = process.hrtime.bigint();
        if (response.id !== current)
          throw new Error(`${this.name}: expected response ${current}, got ${response.id}`);
        expectEcho(this.name, response, current, this.era === 'stateless');
        if (!sending) return settle();
        latenciesUs.push(Number(receivedAt - sentAt) / 1000);
        send();
      };
      send();
    }, durationMs + STALL_MS);
    await Promise.race([sleep(durationMs), done]);
    sending = false;
    const seconds = secondsSince(startedAt);
    await done;
    return { responses: latenciesUs.length, answered: latenciesUs.length + 1, seconds, latenciesUs };
  }

  /** CPU time the server has used so far, in ns; null where that cannot be read (see process-cpu.ts). */
  cpuTimeNs(): number | null {
    return processCpuTimeNs(this.child.pid);
  }

  /** Stops the server and waits until it is gone, so the next measurement has the CPU to itself. */
  async close(): Promise<void> {
    this.closing = true;
    this.onResponse = ignore;
    this.onFailure = ignore;
    this.child.stdin.end();
    this.child.kill();
    await this.closed;
  }

  /** Runs `start`, then resolves when it calls `settle`; rejects on any failure or after `deadlineMs`. */
  private exchange(start: (settle: () => void) => void, deadlineMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) return reject(this.failure);
      const timer = setTimeout(
        () => this.fail(new Error(`${this.name}: no answer within ${deadlineMs} ms (stalled?)`)),
        deadlineMs,
      );
      this.onFailure = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      start(() => {
        clearTimeout(timer);
        this.onResponse = ignore;
        this.onFailure = ignore;
        resolve();
      });
      this.flush();
    });
  }

  private flush(): void {
    if (this.outbound === '') return;
    this.child.stdin.write(this.outbound);
    this.outbound = '';
  }

  private receive(chunk: string): void {
    const text = this.inbound + chunk;
    let start = 0;
    try {
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        const line = text.slice(start, newline);
        start = newline + 1;
        const response = parseResponse(this.name, line);
        if (response !== undefined) this.onResponse(response);
      }
      this.inbound = text.slice(start);
      this.flush();
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private fail(error: Error): void {
    const onFailure = this.onFailure;
    this.onResponse = ignore;
    this.onFailure = ignore;
    const stderr = this.stderrTail.trim();
    if (stderr !== '') error.message += `\n--- ${this.name} stderr (tail) ---\n${stderr}`;
    if (onFailure === ignore) this.failure ??= error;
    else onFailure(error);
  }
}

/** Parses one line from a server; undefined for blank lines and notifications. */
function parseResponse(name: string, line: string): Response | undefined {
  if (line.trim() === '') return undefined;
  const message = JSON.parse(line);
  if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') {
    throw new Error(`${name}: not a JSON-RPC message: ${line}`);
  }
  if (message.method !== undefined) {
    if (message.id === undefined) return undefined; // a server notification (e.g. a log line)
    throw new Error(`${name}: unexpected server-to-client request: ${line}`);
  }
  return message as Response;
}

/**
 * Throws unless `response` is the echo result for request `id`; with `complete`, also unless
 * it carries `resultType: "complete"`, as every stateless-era result must.
 */
export function expectEcho(name: string, response: Response, id: number, complete = false): void {
  if (response.error !== undefined) {
    throw new Error(`${name}: request ${id} failed: ${response.error.code} ${response.error.message}`);
  }
  const content = response.result?.content;
  if (content?.length !== 1 || content[0].type !== 'text' || content[0].text !== textFor(id)) {
    throw new Error(`${name}: request ${id} expected echo '${textFor(id)}', got ${JSON.stringify(response)}`);
  }
  if (complete && response.result?.resultType !== 'complete') {
    throw new Error(`${name}: request ${id} expected resultType "complete", got ${JSON.stringify(response)}`);
  }
}
