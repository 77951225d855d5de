// The cluster section's report: one table of what one run measured, with the targets it is
// held to. On a machine with few cores the three nodes share them with nginx, Redis and the
// driver, so "through nginx" measures the overhead of the load balancer and the hops, not scaling.
import type { ClusterResults, ClusterSchedule } from './cluster-driver';

/** Targets of the section. */
export const CLUSTER_TARGETS = {
  /** req/s with sessions in Redis ÷ req/s with the in-memory store, same node, at c=16. */
  redisRatio: 0.7,
  /** Retained heap per idle session (replica dropped), in bytes. */
  heapPerIdleSession: 2048,
} as const;

export interface ClusterReport {
  date: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  settings: ClusterSchedule & { quick: boolean };
  results: ClusterResults;
}

/** Ratios of the section: Redis ÷ in-memory and nginx to 3 nodes ÷ in-memory, req/s at c=16. */
export function computeClusterRatios(report: ClusterReport): { redis: number; nginx3: number } {
  const { memory, redis, 'nginx-3': nginx } = report.results.throughput;
  return {
    redis: redis.requestsPerSecond / memory.requestsPerSecond,
    nginx3: nginx.requestsPerSecond / memory.requestsPerSecond,
  };
}

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

export function renderClusterReport(report: ClusterReport): string {
  const { results, settings, machine } = report;
  const ratios = computeClusterRatios(report);
  const c = settings.concurrency;
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    `Cluster (@gantry/redis): session-era tools/call over Streamable HTTP, c=${c}, one run${settings.quick ? ' (--quick: a smoke check, not a measurement)' : ''}`,
    `${machine.cpuModel}, ${machine.cpus} CPUs, node ${machine.node}, ${report.date}`,
    '',
    row(['target', 'req/s', 'p50 µs', 'p99 µs', 'server CPU/req µs', '÷ in-memory']),
    row(['---', '---:', '---:', '---:', '---:', '---:']),
  ];
  const labels: Record<string, string> = {
    memory: '1 node, in-memory sessions',
    redis: '1 node, sessions in Redis',
    'nginx-3': 'nginx → 3 nodes, Redis',
  };
  for (const name of ['memory', 'redis', 'nginx-3']) {
    const result = results.throughput[name];
    const ratio = result.requestsPerSecond / results.throughput.memory.requestsPerSecond;
    lines.push(
      row([
        labels[name],
        Math.round(result.requestsPerSecond).toString(),
        result.p50Us.toFixed(0),
        result.p99Us.toFixed(0),
        result.serverCpuUs?.toFixed(1) ?? '?',
        `${ratio.toFixed(2)}×`,
      ]),
    );
  }
  const show = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((x, y) => y[1] - x[1])
      .map(([name, perRequest]) => `${name} ${perRequest.toFixed(3)}`)
      .join(', ');
  lines.push(
    '',
    `Redis ÷ in-memory: ${ratios.redis.toFixed(2)}× (target ≥ ${CLUSTER_TARGETS.redisRatio}×: ${verdict(ratios.redis >= CLUSTER_TARGETS.redisRatio)})`,
    `Redis round trips per tools/call through one node: ${results.roundTripsPerRequest.toFixed(3)} commands sent (${show(results.roundTrips)}; heartbeats included), ` +
      `inside scripts: ${show(results.scripted)}`,
    `nginx → 3 nodes on ${machine.cpus} CPUs: the nodes, nginx, Redis and the driver share the cores, so this is the overhead of the extra hop and the shared store, not scaling`,
    `Fan-out (publish on node-2 → notifications/resources/updated on node-1's GET stream): p50 ${results.fanOut.p50Us.toFixed(0)} µs, p99 ${results.fanOut.p99Us.toFixed(0)} µs over ${results.fanOut.count}`,
    `Per idle session (replica dropped after sessions.replicaIdleMs ${settings.replicaIdleMs} ms, ${results.memory.sessions} sessions): ` +
      `node heap ${results.memory.heapPerSession.toFixed(0)} B (target ≤ ${CLUSTER_TARGETS.heapPerIdleSession} B: ${verdict(results.memory.heapPerSession <= CLUSTER_TARGETS.heapPerIdleSession)}), ` +
      `node RSS ${results.memory.rssPerSession.toFixed(0)} B`,
    `Redis used_memory per 1,000 sessions: ${(results.memory.redisPer1000 / 1024).toFixed(0)} KiB`,
  );
  return lines.join('\n');
}
