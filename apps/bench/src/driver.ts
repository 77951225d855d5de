// The three measurements. Every server is driven by the same code (ServerProcess), and the
// servers take turns in short slices, so a noisy moment on the machine lands on all of them
// rather than deciding a ratio.
import { pinSelf } from './cpu-affinity';
import { ServerProcess, type ServerSpec, type Slice } from './server-process';
import { percentileOfSorted } from './stats';

export type { ServerSpec } from './server-process';

/** How one throughput measurement is timed. */
export interface Schedule {
  /** Unmeasured traffic per server before its first measured slice. */
  readonly warmupMs: number;
  /** Measured traffic per server, cut into slices of `sliceMs` that alternate between servers. */
  readonly durationMs: number;
  readonly sliceMs: number;
  /** Requests outstanding at all times in the pipelined measurement. */
  readonly inFlight: number;
}

export interface SequentialResult {
  readonly msgsPerSecond: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

/** `items` rotated left by `turn` places, so no server always goes first or last. */
export function rotate<T>(items: readonly T[], turn: number): T[] {
  const shift = turn % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** A server's measured slices added up, and the CPU time it used in them (null: unreadable). */
export interface SliceTotal {
  responses: number;
  answered: number;
  seconds: number;
  cpuNs: number | null;
  latenciesUs: number[];
}

/** Nothing measured yet. */
export function emptySliceTotal(): SliceTotal {
  return { responses: 0, answered: 0, seconds: 0, cpuNs: 0, latenciesUs: [] };
}

/** Runs one slice on `server` and adds it, and the server's CPU time during it, to `total`. */
export async function addSlice<S extends Omit<SliceTotal, 'cpuNs'>>(
  total: SliceTotal,
  server: { cpuTimeNs(): number | null },
  run: () => Promise<S>,
): Promise<void> {
  const cpuBefore = server.cpuTimeNs();
  const slice = await run();
  const cpuAfter = server.cpuTimeNs();
  total.responses += slice.responses;
  total.answered += slice.answered;
  total.seconds += slice.seconds;
  total.cpuNs =
    total.cpuNs === null || cpuBefore === null || cpuAfter === null
      ? null
      : total.cpuNs + cpuAfter - cpuBefore;
  for (const latency of slice.latenciesUs) total.latenciesUs.push(latency);
}

/** µs of the server's CPU per answer of `total`; null where its CPU time could not be read. */
export function cpuUsPerAnswer(total: SliceTotal): number | null {
  return total.cpuNs === null ? null : total.cpuNs / 1000 / total.answered;
}

/**
 * Spawns one fresh child per server, warms each up, then runs measured slices round-robin
 * until every server has had `durationMs`. Returns each server's slices added up. With a
 * `cpu`, this process and the servers all run pinned to it.
 */
async function interleave(
  specs: readonly ServerSpec[],
  schedule: Schedule,
  cpu: number | null,
  runSlice: (server: ServerProcess, ms: number) => Promise<Slice>,
): Promise<Map<string, SliceTotal>> {
  const servers: ServerProcess[] = [];
  const unpin = cpu === null ? null : pinSelf(cpu);
  try {
    for (const spec of specs) servers.push(await ServerProcess.start(spec, cpu));
    for (const server of servers) await runSlice(server, schedule.warmupMs);
    const totals = new Map(servers.map((server) => [server.name, emptySliceTotal()]));
    const cycles = Math.max(1, Math.round(schedule.durationMs / schedule.sliceMs));
    for (let cycle = 0; cycle < cycles; cycle++) {
      for (const server of rotate(servers, cycle))
        await addSlice(totals.get(server.name)!, server, () => runSlice(server, schedule.sliceMs));
    }
    return totals;
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    unpin?.();
  }
}

/** Pipelined throughput of one server, and the CPU time it spent per answer. */
export interface PipelinedResult {
  readonly msgsPerSecond: number;
  /** µs of the server's CPU per answer (every answer of the slices, their drain included); null where unreadable. */
  readonly serverCpuUs: number | null;
}

/** Pipelined throughput per server. Never pinned: driver and server each need a CPU. */
export async function measurePipelined(
  specs: readonly ServerSpec[],
  schedule: Schedule,
): Promise<Map<string, PipelinedResult>> {
  const totals = await interleave(specs, schedule, null, (server, ms) =>
    server.pipelined(ms, schedule.inFlight),
  );
  return new Map(
    [...totals].map(([name, total]) => [
      name,
      {
        msgsPerSecond: total.responses / total.seconds,
        serverCpuUs: cpuUsPerAnswer(total),
      },
    ]),
  );
}

/**
 * Sequential throughput per server, in msgs/s, and the latency percentiles of the same
 * requests. With a `cpu` (see cpu-affinity.ts), driver and server share that CPU, so the
 * numbers measure the work per round trip rather than where the scheduler put the processes.
 */
export async function measureSequential(
  specs: readonly ServerSpec[],
  schedule: Schedule,
  cpu: number | null,
): Promise<Map<string, SequentialResult>> {
  const totals = await interleave(specs, schedule, cpu, (server, ms) => server.sequential(ms));
  return new Map(
    [...totals].map(([name, total]) => {
      const sorted = Float64Array.from(total.latenciesUs).sort();
      const result = {
        msgsPerSecond: total.responses / total.seconds,
        p50Us: percentileOfSorted(sorted, 50),
        p99Us: percentileOfSorted(sorted, 99),
      };
      return [name, result];
    }),
  );
}

/**
 * Cold start: from just before spawn to the `initialize` response parsed, in ms; `spawns`
 * samples per server, taken server by server in turn. The request is written right after
 * spawn, as a client does; the pipe holds it until the server reads.
 */
export async function measureColdStarts(
  specs: readonly ServerSpec[],
  spawns: number,
): Promise<Map<string, number[]>> {
  const samples = new Map(specs.map((spec) => [spec.name, [] as number[]]));
  for (let i = 0; i < spawns; i++) {
    for (const spec of rotate(specs, i)) {
      const startedAt = process.hrtime.bigint();
      const server = new ServerProcess(spec);
      try {
        await server.initialize();
        samples.get(spec.name)!.push(Number(process.hrtime.bigint() - startedAt) / 1e6);
      } finally {
        await server.close();
      }
    }
  }
  return samples;
}
