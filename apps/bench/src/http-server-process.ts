// One HTTP server under test as a child process, and the keep-alive HTTP/1.1 client that
// drives it: spawn, MCP sessions over Streamable HTTP, checking every answer, timed slices of
// traffic with a given number of requests in flight, memory readings.
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { processCpuTimeNs } from './process-cpu';
import {
  type Era,
  expectEcho,
  INITIALIZE_JSON,
  INITIALIZED_JSON,
  PROTOCOL_VERSION,
  type Response,
  STATELESS_PROTOCOL_VERSION,
  toolCallJson,
} from './server-process';
import type { FromServer, ToServer } from './servers/http/harness';

/** An HTTP server under test: its name and the compiled script `node` runs. */
export interface HttpServerSpec {
  readonly name: string;
  readonly script: string;
  /** Command-line arguments of the script (the cluster section's nodes take some). */
  readonly args?: readonly string[];
  /** Environment variables set for the server, beside this process's own. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The era its client speaks (default legacy): a session opened with initialize, or
   * stateless-era POSTs (2026-07-28) with no session at all.
   */
  readonly era?: Era;
  /** Stateless era: every answer must carry resultType "complete" (not asked of the floor, which has no MCP logic). */
  readonly expectComplete?: boolean;
}

/** What one timed slice of traffic achieved. */
export interface HttpSlice {
  /** Responses received inside the slice's window (answers to requests still in flight at its end are not counted). */
  readonly responses: number;
  /** Every response checked, the ones to requests still in flight at the window's end included. */
  readonly answered: number;
  readonly seconds: number;
  /** Only when asked for: request written → response parsed, per request, in µs. */
  readonly latenciesUs: number[];
}

/** The server's memory after a forced GC, in bytes. */
export interface MemoryReading {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  /** Sessions the server holds in memory, where it says (the cluster section's nodes do). */
  readonly sessions?: number;
}

/** Where an MCP client sends its requests: a server under test, or a load balancer in front of some. */
export interface HttpTarget {
  readonly name: string;
  readonly port: number;
  /** Adds what is known about the target (its recent output) to an error about it. */
  explain(error: Error): Error;
}

/** A server that answers nothing for this long has stalled; the run fails rather than hangs. */
const STALL_MS = 10_000;
const PATH = '/mcp';
const ACCEPT = 'application/json, text/event-stream';

export interface HttpReply {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly sessionId: string | undefined;
  readonly body: string;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function secondsSince(from: bigint): number {
  return Number(process.hrtime.bigint() - from) / 1e9;
}

/** `promise`, or a rejection with `message` once `ms` have passed. */
function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** One spawned HTTP server: its port, its stderr, and the IPC channel of servers/http/harness.ts. */
export class HttpServerProcess implements HttpTarget {
  readonly name: string;
  readonly port: number;
  private readonly child: ChildProcess;
  private readonly closed: Promise<void>;
  private readonly output: { tail: string };
  private exited = false;

  private constructor(
    name: string,
    child: ChildProcess,
    port: number,
    closed: Promise<void>,
    output: { tail: string },
  ) {
    this.name = name;
    this.child = child;
    this.port = port;
    this.closed = closed;
    this.output = output;
    child.once('exit', () => {
      this.exited = true;
    });
  }

  /**
   * Spawns the server (`node --expose-gc`, plus `--cpu-prof` into `cpuProfDir` when given)
   * and resolves once it listens.
   */
  static async start(spec: HttpServerSpec, cpuProfDir?: string): Promise<HttpServerProcess> {
    const execArgv = ['--expose-gc'];
    if (cpuProfDir !== undefined) {
      execArgv.push(
        '--cpu-prof',
        `--cpu-prof-dir=${cpuProfDir}`,
        `--cpu-prof-name=${spec.name}-${Date.now()}.cpuprofile`,
      );
    }
    const child = fork(spec.script, [...(spec.args ?? [])], {
      execArgv,
      env: spec.env === undefined ? undefined : { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const output = { tail: '' };
    const keep = (chunk: string) => {
      output.tail = (output.tail + chunk).slice(-4000);
    };
    child.stdout?.setEncoding('utf8').on('data', keep);
    child.stderr?.setEncoding('utf8').on('data', keep);
    // 'close' rather than 'exit': the output has been read to its end by then.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const port = await withDeadline(
      new Promise<number>((resolve, reject) => {
        child.on('message', (message: FromServer) => {
          if (message.type === 'listening') resolve(message.port);
        });
        child.once('error', reject);
        child.once('exit', (code, signal) =>
          reject(new Error(`${spec.name} exited before listening (${signal ?? `code ${code}`})`)),
        );
      }),
      STALL_MS,
      `${spec.name}: not listening within ${STALL_MS} ms`,
    ).catch(async (error: Error) => {
      child.kill();
      await closed;
      throw withOutput(error, spec.name, output.tail);
    });
    return new HttpServerProcess(spec.name, child, port, closed, output);
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** CPU time the server has used so far, in ns; null where that cannot be read (see process-cpu.ts). */
  cpuTimeNs(): number | null {
    return processCpuTimeNs(this.pid);
  }

  /** Adds the server's recent output (and whether it died) to an error about it. */
  explain(error: Error): Error {
    if (this.exited && !error.message.includes('exited')) error.message += ` (${this.name} has exited)`;
    return withOutput(error, this.name, this.output.tail);
  }

  /** Forces a GC in the server, then reads its memory. */
  async stats(): Promise<MemoryReading> {
    const reading = new Promise<MemoryReading>((resolve, reject) => {
      const onExit = () => reject(new Error(`${this.name} exited`));
      const onMessage = (message: FromServer) => {
        if (message.type !== 'stats') return;
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        resolve(message);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.send({ type: 'stats' });
    });
    return withDeadline(reading, STALL_MS, `${this.name}: no memory reading within ${STALL_MS} ms`).catch(
      (error: Error) => {
        throw this.explain(error);
      },
    );
  }

  /** Asks the server to publish a change to `uri` (servers/cluster/node.ts); does not wait for it. */
  notify(uri: string): void {
    this.send({ type: 'notify', uri });
  }

  /** Asks the server to exit (so a CPU profile gets written), kills it if it does not, and waits until it is gone. */
  async close(): Promise<void> {
    if (!this.exited) {
      this.send({ type: 'exit' });
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.closed;
      clearTimeout(timer);
    }
    await this.closed;
  }

  private send(message: ToServer): void {
    if (this.child.connected) this.child.send(message);
  }
}

function withOutput(error: Error, name: string, tail: string): Error {
  const output = tail.trim();
  if (output !== '' && !error.message.includes('--- '))
    error.message += `\n--- ${name} output (tail) ---\n${output}`;
  return error;
}

/**
 * An MCP client of one server over Streamable HTTP. Session era: one session (initialize, read
 * `Mcp-Session-Id`, notifications/initialized), then `tools/call` requests on it over
 * keep-alive connections; the floor sends no session id, then none is sent back. Stateless era
 * (2026-07-28): no initialize and no session; every `tools/call` carries its `_meta` and the
 * headers of MCP 2026-07-28 Transports › Streamable HTTP (request metadata: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
 */
export class HttpMcpClient {
  private agent = HttpMcpClient.newAgent();
  private sessionId: string | undefined;
  private nextId = 1;
  private readonly era: Era;
  private readonly expectComplete: boolean;

  constructor(
    private readonly server: HttpTarget,
    spec: Pick<HttpServerSpec, 'era' | 'expectComplete'> = {},
  ) {
    this.era = spec.era ?? 'session';
    this.expectComplete = spec.expectComplete ?? false;
  }

  get name(): string {
    return this.server.name;
  }

  private static newAgent(): Agent {
    // Connections are opened as needed (one per request in flight) and kept open.
    return new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  }

  /** Opens the session: initialize (checked), then notifications/initialized (202). The stateless era has none. */
  async initialize(): Promise<void> {
    if (this.era === 'stateless') return;
    this.sessionId = await openSession(this.server, this.agent);
  }

  /**
   * Closes every connection, so the next slice opens its own: the servers' keep-alive timeout
   * (5 s for node:http, so for express) must not close a connection the agent is reusing.
   */
  resetConnections(): void {
    this.agent.destroy();
    this.agent = HttpMcpClient.newAgent();
  }

  /**
   * `concurrency` requests in flight for `durationMs`: each of `concurrency` lanes sends a
   * request, checks the answer and sends the next. Then the lanes stop and the requests still
   * in flight are awaited, so the server is idle when it returns.
   */
  async slice(durationMs: number, concurrency: number, measureLatency = false): Promise<HttpSlice> {
    let sending = true;
    let responses = 0;
    let answered = 0;
    const latenciesUs: number[] = [];
    const headers = this.headers();
    const era = this.era;
    const complete = this.expectComplete;
    const lane = async () => {
      while (sending) {
        const id = this.nextId++;
        const body = toolCallJson(id, era);
        const sentAt = process.hrtime.bigint();
        const reply = await post(this.server.port, this.agent, headers, body);
        const receivedAt = process.hrtime.bigint();
        expectToolResult(this.name, reply, id, complete);
        answered++;
        if (!sending) return;
        responses++;
        if (measureLatency) latenciesUs.push(Number(receivedAt - sentAt) / 1000);
      }
    };
    const startedAt = process.hrtime.bigint();
    const lanes = Promise.all(Array.from({ length: concurrency }, lane));
    try {
      await Promise.race([sleep(durationMs), lanes]);
      sending = false;
      const seconds = secondsSince(startedAt);
      await withDeadline(
        lanes,
        STALL_MS,
        `${this.name}: requests unanswered ${STALL_MS} ms after the slice ended (stalled?)`,
      );
      return { responses, answered, seconds, latenciesUs };
    } catch (error) {
      sending = false;
      throw this.server.explain(error as Error);
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private headers(): Record<string, string> {
    if (this.era === 'stateless') {
      return {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-protocol-version': STATELESS_PROTOCOL_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      };
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': PROTOCOL_VERSION,
    };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return headers;
  }
}

/**
 * Opens `count` sessions on `server` (initialize + notifications/initialized each),
 * `concurrency` at a time, over `agent`'s connections; the sessions are left open, idle.
 */
export async function openSessions(
  server: HttpTarget,
  agent: Agent,
  count: number,
  concurrency: number,
): Promise<void> {
  let left = count;
  const lane = async () => {
    while (left > 0) {
      left--;
      const id = await openSession(server, agent);
      if (id === undefined) throw new Error(`${server.name}: initialize answered without an Mcp-Session-Id`);
    }
  };
  try {
    await withDeadline(
      Promise.all(Array.from({ length: concurrency }, lane)),
      STALL_MS + count * 50,
      `${server.name}: opening ${count} sessions stalled`,
    );
  } catch (error) {
    throw server.explain(error as Error);
  }
}

/** initialize (checked) and notifications/initialized; resolves to the session id, if the server sent one. */
export async function openSession(server: HttpTarget, agent: Agent): Promise<string | undefined> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
  try {
    const reply = await post(server.port, agent, headers, INITIALIZE_JSON);
    const response = parseReply(server.name, reply, 'initialize');
    if (response.id !== 0 || typeof response.result?.protocolVersion !== 'string') {
      throw new Error(`${server.name}: initialize result has no protocolVersion: ${reply.body}`);
    }
    const sessionId = reply.sessionId;
    if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
    headers['mcp-protocol-version'] = PROTOCOL_VERSION;
    const initialized = await post(server.port, agent, headers, INITIALIZED_JSON);
    if (initialized.status !== 202) {
      throw new Error(
        `${server.name}: notifications/initialized answered ${initialized.status}, not 202: ${initialized.body}`,
      );
    }
    return sessionId;
  } catch (error) {
    throw server.explain(error as Error);
  }
}

/** One POST to the MCP endpoint; resolves with the whole answer. */
export function post(
  port: number,
  agent: Agent,
  headers: Record<string, string>,
  body: string,
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('error', reject);
        res.on('end', () => {
          const sessionId = res.headers['mcp-session-id'];
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            sessionId: Array.isArray(sessionId) ? sessionId[0] : sessionId,
            body: text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC response a 200 JSON answer carries; throws on anything else. */
function parseReply(name: string, reply: HttpReply, what: string): Response {
  if (reply.status !== 200) throw new Error(`${name}: ${what} answered HTTP ${reply.status}: ${reply.body}`);
  if (!reply.contentType?.startsWith('application/json')) {
    throw new Error(`${name}: ${what} answered ${reply.contentType}, not a JSON body: ${reply.body}`);
  }
  const message = JSON.parse(reply.body);
  if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') {
    throw new Error(`${name}: ${what} answered something other than a JSON-RPC response: ${reply.body}`);
  }
  return message as Response;
}

function expectToolResult(name: string, reply: HttpReply, id: number, complete: boolean): void {
  const response = parseReply(name, reply, `tools/call ${id}`);
  if (response.id !== id) throw new Error(`${name}: expected the response to ${id}, got ${reply.body}`);
  expectEcho(name, response, id, complete);
}
