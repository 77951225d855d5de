// The HTTP measurements. As for stdio (driver.ts), every server is driven by the same client
// code (HttpMcpClient) and the servers take turns in short slices, so a noisy moment on the
// machine lands on all of them rather than deciding a ratio.
import { Agent } from 'node:http';
import { pinProcess, pinSelf } from './cpu-affinity';
import { addSlice, cpuUsPerAnswer, emptySliceTotal, rotate } from './driver';
import {
  HttpMcpClient,
  HttpServerProcess,
  type HttpServerSpec,
  type HttpSlice,
  openSessions,
} from './http-server-process';
import { percentileOfSorted } from './stats';

export type { HttpServerSpec } from './http-server-process';

/** The numbers of requests in flight that throughput is measured at. */
export const CONCURRENCIES = [1, 16, 64] as const;
export type Concurrency = (typeof CONCURRENCIES)[number];

/** How the HTTP measurements are timed and sized. */
export interface HttpSchedule {
  /** Unmeasured traffic per server (at 16 in flight) before anything is measured. */
  readonly warmupMs: number;
  /** Unmeasured traffic per server at each concurrency before its slices, on fresh connections. */
  readonly primeMs: number;
  /** Measured traffic per server and concurrency, cut into slices of `sliceMs` that alternate between servers. */
  readonly durationMs: number;
  readonly sliceMs: number;
  /** Sessions opened for the memory measurement. */
  readonly sessions: number;
  /** Sessions opened (and not counted) before the first memory reading. */
  readonly warmupSessions: number;
}

export interface ConcurrencyResult {
  readonly requestsPerSecond: number;
  /** Server CPU time (all threads) per request answered, in µs; null where it cannot be read. */
  readonly serverCpuUs: number | null;
  /** Latency percentiles of the measured requests, in µs. */
  readonly p50Us: number;
  readonly p99Us: number;
}

/** Memory growth per idle session, in bytes. */
export interface SessionMemory {
  readonly rssPerSession: number;
  readonly heapPerSession: number;
}

/** Sessions initialized at a time in the memory measurement. */
const SESSION_CONCURRENCY = 8;

/**
 * Pins this process and every server to `cpu`; the returned function undoes it. Only the
 * server being measured runs meanwhile: the others wait for their turn.
 */
export function pinAll(cpu: number, servers: readonly HttpServerProcess[]): () => void {
  const undo = [pinSelf(cpu), ...servers.map((server) => pinProcess(server.pid, cpu))];
  return () => {
    for (const restore of undo) restore();
  };
}

/**
 * Runs measured slices round-robin over `clients` (server `i` belongs to client `i`) until each
 * has had `schedule.durationMs`, and sums them up per client: throughput, server CPU per
 * request answered, latency percentiles. Shared by the HTTP and WebSocket sections.
 */
export async function measureSlices<C extends { readonly name: string }>(
  clients: readonly C[],
  servers: readonly { cpuTimeNs(): number | null }[],
  schedule: { readonly durationMs: number; readonly sliceMs: number },
  slice: (client: C) => Promise<HttpSlice>,
): Promise<Map<string, ConcurrencyResult>> {
  const totals = new Map(clients.map((client) => [client.name, emptySliceTotal()]));
  const cycles = Math.max(1, Math.round(schedule.durationMs / schedule.sliceMs));
  for (let cycle = 0; cycle < cycles; cycle++) {
    for (const client of rotate(clients, cycle))
      await addSlice(totals.get(client.name)!, servers[clients.indexOf(client)], () => slice(client));
  }
  const results = new Map<string, ConcurrencyResult>();
  for (const [name, total] of totals) {
    const sorted = Float64Array.from(total.latenciesUs).sort();
    results.set(name, {
      requestsPerSecond: total.responses / total.seconds,
      serverCpuUs: cpuUsPerAnswer(total),
      p50Us: percentileOfSorted(sorted, 50),
      p99Us: percentileOfSorted(sorted, 99),
    });
  }
  return results;
}

/**
 * Spawns one fresh child per server, opens a session on each (a stateless-era client has none
 * to open) and warms it up; then, for each concurrency in turn, runs measured slices
 * round-robin until every server has had `durationMs`. At concurrency 1, with a `cpu`, this
 * process and the servers run pinned to it (see cpu-affinity.ts). Returns, per server, the
 * result at each concurrency.
 */
export async function measureHttpThroughput(
  specs: readonly HttpServerSpec[],
  schedule: HttpSchedule,
  cpu: number | null,
  cpuProfDir?: string,
): Promise<Map<string, Map<Concurrency, ConcurrencyResult>>> {
  const servers: HttpServerProcess[] = [];
  const clients: HttpMcpClient[] = [];
  try {
    for (const spec of specs) {
      const server = await HttpServerProcess.start(spec, cpuProfDir);
      servers.push(server);
      const client = new HttpMcpClient(server, spec);
      clients.push(client);
      await client.initialize();
    }
    for (const client of clients) await client.slice(schedule.warmupMs, 16);

    const results = new Map(specs.map((spec) => [spec.name, new Map<Concurrency, ConcurrencyResult>()]));
    for (const concurrency of CONCURRENCIES) {
      const unpin = concurrency === 1 && cpu !== null ? pinAll(cpu, servers) : null;
      try {
        for (const client of clients) {
          client.resetConnections();
          await client.slice(schedule.primeMs, concurrency);
        }
        const measured = await measureSlices(clients, servers, schedule, (client) =>
          client.slice(schedule.sliceMs, concurrency, true),
        );
        for (const [name, result] of measured) results.get(name)!.set(concurrency, result);
      } finally {
        unpin?.();
      }
    }
    return results;
  } finally {
    for (const client of clients) client.close();
    await Promise.all(servers.map((server) => server.close()));
  }
}

/**
 * Memory per idle session: a fresh server, `warmupSessions` opened (so lazily loaded code and
 * one-time allocations are not counted), a reading, `sessions` more opened, another reading;
 * each reading after a forced GC in the server. The connections stay the same throughout.
 */
export async function measureSessionMemory(
  spec: HttpServerSpec,
  schedule: HttpSchedule,
): Promise<SessionMemory> {
  const server = await HttpServerProcess.start(spec);
  const agent = new Agent({ keepAlive: true, maxSockets: SESSION_CONCURRENCY });
  try {
    await openSessions(server, agent, schedule.warmupSessions, SESSION_CONCURRENCY);
    const before = await server.stats();
    await openSessions(server, agent, schedule.sessions, SESSION_CONCURRENCY);
    const after = await server.stats();
    return {
      rssPerSession: (after.rss - before.rss) / schedule.sessions,
      heapPerSession: (after.heapUsed - before.heapUsed) / schedule.sessions,
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}
