// The WebSocket measurements. The WebSocket servers (Gantry's listener and a bare `ws` floor)
// are driven by the same client code (WsMcpClient); Gantry's Streamable HTTP server is driven
// beside them by the HTTP section's client at the same numbers of requests in flight, and all
// of them take turns in short slices, as in the other sections.
import WebSocket from 'ws';
import { measureSlices, pinAll } from './http-driver';
import { HttpMcpClient, HttpServerProcess, type HttpServerSpec, type HttpSlice } from './http-server-process';
import { expectEcho, INITIALIZE_JSON, INITIALIZED_JSON, type Response, toolCallJson } from './server-process';

/** A server of the WebSocket section: a WebSocket server, or Gantry's HTTP server as the reference. */
export interface WsServerSpec extends HttpServerSpec {
  readonly transport: 'ws' | 'http';
}

/**
 * The ways traffic is offered, each with 1, 16 or 64 requests in flight:
 * - `c1`: one request at a time on one connection (latency);
 * - `c16`: 16 connections, one request in flight on each;
 * - `c64`: 64 in flight: over WebSocket pipelined on one connection, over HTTP/1.1 (which
 *   cannot pipeline in practice) on 64 keep-alive connections.
 */
export const WS_MODES = [
  { key: 'c1', inFlight: 1, connections: 1, depth: 1 },
  { key: 'c16', inFlight: 16, connections: 16, depth: 1 },
  { key: 'c64', inFlight: 64, connections: 1, depth: 64 },
] as const;
export type WsMode = (typeof WS_MODES)[number]['key'];

export interface WsModeResult {
  readonly requestsPerSecond: number;
  /** Server CPU time (all threads) per request answered, in µs; null where it cannot be read. */
  readonly serverCpuUs: number | null;
  readonly p50Us: number;
  readonly p99Us: number;
}

/** How the WebSocket measurements are timed (the HTTP section's schedule, without memory). */
export interface WsSchedule {
  readonly warmupMs: number;
  readonly primeMs: number;
  readonly durationMs: number;
  readonly sliceMs: number;
}

/** A server that answers nothing for this long has stalled; the run fails rather than hangs. */
const STALL_MS = 10_000;
const PATH = '/mcp';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One connection of {@link WsMcpClient}: the socket and who gets its responses. */
interface Lane {
  readonly socket: WebSocket;
  onResponse: (response: Response) => void;
}

/**
 * An MCP client of one WebSocket server: `connections` sockets opened with subprotocol `mcp`,
 * each with its own session (initialize checked, then notifications/initialized), then
 * `tools/call` requests whose every answer is parsed and checked.
 */
export class WsMcpClient {
  private readonly lanes: Lane[] = [];
  private nextId = 1;
  private failure: Error | undefined;
  private onFailure: (error: Error) => void = () => {};

  constructor(private readonly server: HttpServerProcess) {}

  get name(): string {
    return this.server.name;
  }

  /** Opens `connections` sockets and a session on each. */
  async open(connections: number): Promise<void> {
    try {
      for (let i = 0; i < connections; i++) this.lanes.push(await this.openLane());
    } catch (error) {
      throw this.server.explain(error as Error);
    }
  }

  private async openLane(): Promise<Lane> {
    const socket = new WebSocket(`ws://127.0.0.1:${this.server.port}${PATH}`, ['mcp'], {
      perMessageDeflate: false,
    });
    const lane: Lane = { socket, onResponse: () => {} };
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    if (socket.protocol !== 'mcp')
      throw new Error(`${this.name}: the server chose subprotocol "${socket.protocol}"`);
    socket.on('message', (data) => {
      try {
        const message = JSON.parse((data as Buffer).toString('utf8'));
        if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') {
          throw new Error(`${this.name}: not a JSON-RPC message: ${String(data)}`);
        }
        if (message.method !== undefined) return; // a notification
        lane.onResponse(message as Response);
      } catch (error) {
        this.fail(error as Error);
      }
    });
    socket.once('close', (code) => this.fail(new Error(`${this.name}: the socket closed with code ${code}`)));
    socket.on('error', (error) => this.fail(error));
    const initialized = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no initialize answer`)), STALL_MS);
      lane.onResponse = (response) => {
        clearTimeout(timer);
        if (response.id !== 0 || typeof response.result?.protocolVersion !== 'string') {
          reject(
            new Error(`${this.name}: initialize result has no protocolVersion: ${JSON.stringify(response)}`),
          );
        } else resolve();
      };
    });
    socket.send(INITIALIZE_JSON);
    await initialized;
    socket.send(INITIALIZED_JSON);
    return lane;
  }

  /**
   * Traffic for `durationMs` on the first `connections` sockets, `depth` requests outstanding
   * on each: every answer is checked and sends the next request. Then sending stops and the
   * requests still in flight are awaited, so the server is idle when it returns.
   */
  async slice(
    durationMs: number,
    connections: number,
    depth: number,
    measureLatency = false,
  ): Promise<HttpSlice> {
    if (this.failure) throw this.server.explain(this.failure);
    const lanes = this.lanes.slice(0, connections);
    if (lanes.length < connections)
      throw new Error(`${this.name}: only ${lanes.length} connections are open`);
    let sending = true;
    let responses = 0;
    let answered = 0;
    let outstanding = 0;
    const latenciesUs: number[] = [];
    const sentAt = new Map<number, bigint>();
    let drained!: () => void;
    let failed!: (error: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      drained = resolve;
      failed = reject;
    });
    this.onFailure = failed;
    const send = (lane: Lane) => {
      const id = this.nextId++;
      outstanding++;
      if (measureLatency) sentAt.set(id, process.hrtime.bigint());
      lane.socket.send(toolCallJson(id));
    };
    for (const lane of lanes) {
      const pending = new Set<number>();
      lane.onResponse = (response) => {
        const receivedAt = process.hrtime.bigint();
        const id = response.id as number;
        if (!pending.delete(id)) throw new Error(`${this.name}: response to unknown request ${response.id}`);
        expectEcho(this.name, response, id);
        outstanding--;
        answered++;
        if (!sending) {
          if (outstanding === 0) drained();
          return;
        }
        responses++;
        if (measureLatency) {
          latenciesUs.push(Number(receivedAt - (sentAt.get(id) as bigint)) / 1000);
          sentAt.delete(id);
        }
        const next = this.nextId;
        pending.add(next);
        send(lane);
      };
      for (let i = 0; i < depth; i++) {
        pending.add(this.nextId);
        send(lane);
      }
    }
    const startedAt = process.hrtime.bigint();
    await Promise.race([sleep(durationMs), done]);
    sending = false;
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    if (outstanding === 0) drained();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        done,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(
                  `${this.name}: requests unanswered ${STALL_MS} ms after the slice ended (stalled?)`,
                ),
              ),
            STALL_MS,
          );
        }),
      ]);
    } catch (error) {
      throw this.server.explain(error as Error);
    } finally {
      clearTimeout(timer);
      this.onFailure = () => {};
    }
    return { responses, answered, seconds, latenciesUs };
  }

  close(): void {
    for (const lane of this.lanes) {
      lane.socket.removeAllListeners('close');
      lane.socket.terminate();
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.onFailure(error);
  }
}

/** Either client, behind one interface: a slice with `mode`'s requests in flight. */
interface Driver {
  readonly name: string;
  slice(ms: number, mode: (typeof WS_MODES)[number], latency: boolean): Promise<HttpSlice>;
  /** Before each mode: HTTP opens fresh connections (see HttpMcpClient.resetConnections). */
  prepare(): void;
  close(): void;
}

async function driverFor(spec: WsServerSpec, server: HttpServerProcess): Promise<Driver> {
  if (spec.transport === 'http') {
    const client = new HttpMcpClient(server);
    await client.initialize();
    return {
      name: spec.name,
      slice: (ms, mode, latency) => client.slice(ms, mode.inFlight, latency),
      prepare: () => client.resetConnections(),
      close: () => client.close(),
    };
  }
  const client = new WsMcpClient(server);
  await client.open(Math.max(...WS_MODES.map((mode) => mode.connections)));
  return {
    name: spec.name,
    slice: (ms, mode, latency) => client.slice(ms, mode.connections, mode.depth, latency),
    prepare: () => {},
    close: () => client.close(),
  };
}

/**
 * Spawns one fresh child per server and connects to each; warms every server up at c16; then,
 * for each mode in turn, runs measured slices round-robin until every server has had
 * `durationMs`. In mode c1, with a `cpu`, this process and the servers run pinned to it.
 */
export async function measureWsThroughput(
  specs: readonly WsServerSpec[],
  schedule: WsSchedule,
  cpu: number | null,
): Promise<Map<string, Map<WsMode, WsModeResult>>> {
  const servers: HttpServerProcess[] = [];
  const drivers: Driver[] = [];
  const c16 = WS_MODES[1];
  try {
    for (const spec of specs) {
      const server = await HttpServerProcess.start(spec);
      servers.push(server);
      drivers.push(await driverFor(spec, server));
    }
    for (const driver of drivers) await driver.slice(schedule.warmupMs, c16, false);

    const results = new Map(specs.map((spec) => [spec.name, new Map<WsMode, WsModeResult>()]));
    for (const mode of WS_MODES) {
      const unpin = mode.key === 'c1' && cpu !== null ? pinAll(cpu, servers) : null;
      try {
        for (const driver of drivers) {
          driver.prepare();
          await driver.slice(schedule.primeMs, mode, false);
        }
        const measured = await measureSlices(drivers, servers, schedule, (driver) =>
          driver.slice(schedule.sliceMs, mode, mode.key === 'c1'),
        );
        for (const [name, result] of measured) results.get(name)!.set(mode.key, result);
      } finally {
        unpin?.();
      }
    }
    return results;
  } finally {
    for (const driver of drivers) driver.close();
    await Promise.all(servers.map((server) => server.close()));
  }
}
