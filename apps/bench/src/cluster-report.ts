// The cluster section's report: one table of what one run measured, with the targets it is
// held to. On a machine with few cores the three nodes share them with nginx, Redis and the
// driver, so "through nginx" measures the overhead of the load balancer and the hops, not scaling.
import { type ClusterResults, type ClusterSchedule, total } from './cluster-driver';
import type { Ratio } from './report-tables';

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

/** Ratios of the section, of medians and per round: Redis ÷ in-memory and nginx to 3 nodes ÷ in-memory, req/s at c=16. */
export function computeClusterRatios(report: ClusterReport): Record<'redis' | 'nginx3', Ratio> {
  const { throughput, throughputRounds } = report.results;
  const ratio = (name: string): Ratio => ({
    ratio: throughput[name].requestsPerSecond / throughput.memory.requestsPerSecond,
    rounds: throughputRounds[name].map((rps, round) => rps / throughputRounds.memory[round]),
  });
  return { redis: ratio('redis'), nginx3: ratio('nginx-3') };
}

function roundsText(ratio: Ratio): string {
  return ratio.rounds.length > 1
    ? ` (rounds ${ratio.rounds.map((value) => value.toFixed(2)).join(', ')})`
    : '';
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
    `Cluster (@gantry/redis): session-era tools/call over Streamable HTTP, c=${c}, median of ${settings.rounds} round(s)${settings.quick ? ' (--quick: a smoke check, not a measurement)' : ''}`,
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
  const redisLines = Object.entries(results.redisPerRequest).map(
    ([name, counts]) =>
      `Redis per tools/call, ${labels[name] ?? name}: ${total(counts.roundTrips).toFixed(3)} commands sent, each a round trip ` +
      `(${show(counts.roundTrips)}; heartbeats included); run inside scripts: ${show(counts.scripted)}`,
  );
  lines.push(
    '',
    `Redis ÷ in-memory: ${ratios.redis.ratio.toFixed(2)}×${roundsText(ratios.redis)} (target ≥ ${CLUSTER_TARGETS.redisRatio}×: ${verdict(ratios.redis.ratio >= CLUSTER_TARGETS.redisRatio)})`,
    `nginx → 3 nodes ÷ in-memory: ${ratios.nginx3.ratio.toFixed(2)}×${roundsText(ratios.nginx3)}`,
    ...redisLines,
    `nginx → 3 nodes on ${machine.cpus} CPUs: the nodes, nginx, Redis and the driver share the cores, so this is the overhead of the extra hop and the shared store, not scaling`,
    `Fan-out (publish on node-2 → notifications/resources/updated on node-1's GET stream): p50 ${results.fanOut.p50Us.toFixed(0)} µs, p99 ${results.fanOut.p99Us.toFixed(0)} µs over ${results.fanOut.count}`,
    `Per idle session (replica dropped after sessions.replicaIdleMs ${settings.replicaIdleMs} ms, ${results.memory.sessions} sessions): ` +
      `node heap ${results.memory.heapPerSession.toFixed(0)} B (target ≤ ${CLUSTER_TARGETS.heapPerIdleSession} B: ${verdict(results.memory.heapPerSession <= CLUSTER_TARGETS.heapPerIdleSession)}), ` +
      `node RSS ${results.memory.rssPerSession.toFixed(0)} B`,
    `Redis used_memory per 1,000 sessions: ${(results.memory.redisPer1000 / 1024).toFixed(0)} KiB`,
  );
  return lines.join('\n');
}
