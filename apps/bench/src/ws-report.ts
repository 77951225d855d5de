// What the WebSocket section found, as data (the `ws` part of the JSON file) and as text.
import { formatNumber, table, VERDICT_TEXT } from './report';
import { spread } from './stats';

export type WsMetricKey = 'rps1' | 'rps16' | 'rps64' | 'p50' | 'p99' | 'cpu16' | 'cpu64';

interface WsMetric {
  readonly key: WsMetricKey;
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
}

/** The metrics, in table order. */
export const WS_METRICS: readonly WsMetric[] = [
  { key: 'rps1', label: 'c=1', unit: 'req/s', digits: 0 },
  { key: 'rps16', label: 'c=16', unit: 'req/s', digits: 0 },
  { key: 'rps64', label: 'c=64', unit: 'req/s', digits: 0 },
  { key: 'p50', label: 'p50 at c=1', unit: 'µs', digits: 1 },
  { key: 'p99', label: 'p99 at c=1', unit: 'µs', digits: 1 },
  { key: 'cpu16', label: 'server CPU/req at c=16', unit: 'µs', digits: 1 },
  { key: 'cpu64', label: 'server CPU/req at c=64', unit: 'µs', digits: 1 },
];

/** The servers, in table order, and how the tables name them. */
export const WS_SERVER_LABELS: Readonly<Record<string, string>> = {
  gantry: 'gantry ws',
  floor: 'ws floor',
  'gantry-http': 'gantry http',
};

/** The servers the ratios divide Gantry's WebSocket numbers by, in column order. */
const VERSUS = ['floor', 'gantry-http'] as const;
type Versus = (typeof VERSUS)[number];

interface WsTarget {
  readonly metric: WsMetricKey;
  readonly versus: Versus;
  readonly atLeast?: number;
  readonly above?: number;
  readonly text: string;
}

/** The goals Gantry's WebSocket server is held to. */
const WS_TARGETS: readonly WsTarget[] = [
  { metric: 'rps16', versus: 'floor', atLeast: 0.6, text: 'c=16: gantry ws ≥ 0.6× ws floor' },
  { metric: 'rps64', versus: 'floor', atLeast: 0.6, text: 'c=64: gantry ws ≥ 0.6× ws floor' },
  { metric: 'rps16', versus: 'gantry-http', above: 1, text: 'c=16: gantry ws > gantry http' },
  { metric: 'rps64', versus: 'gantry-http', above: 1, text: 'c=64: gantry ws > gantry http' },
];

export interface WsServerResults {
  rounds: Record<WsMetricKey, number[]>;
  median: Record<WsMetricKey, number | null>;
}

export interface WsResults {
  date: string;
  machine: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    otherLoad: (number | null)[];
  };
  settings: {
    rounds: number;
    warmupMs: number;
    primeMs: number;
    durationMs: number;
    sliceMs: number;
    quick: boolean;
    /** The CPU driver and server shared at c=1; null when not pinned. */
    latencyCpu: number | null;
  };
  servers: Record<string, WsServerResults>;
  /**
   * For scale, from the stdio section of the same run when it ran: the same tool (JSON Schema
   * arguments) over stdio, 64 in flight and one at a time.
   */
  stdio: { pipelined: number; sequential: number } | null;
}

export interface WsRatioRow {
  metric: WsMetricKey;
  over: Record<Versus, { ratio: number; rounds: number[] } | null>;
}

export interface WsTargetRow {
  target: string;
  metric: WsMetricKey;
  versus: string;
  ratio: number | null;
  rounds: number[] | null;
  verdict: 'met' | 'missed' | 'unclear' | null;
}

function ratioOf(results: WsResults, key: WsMetricKey, versus: string) {
  const gantry = results.servers.gantry;
  const other = results.servers[versus];
  if (gantry === undefined || other === undefined) return null;
  const top = gantry.median[key];
  const bottom = other.median[key];
  if (top === null || bottom === null) return null;
  const rounds = gantry.rounds[key].map((value, round) => value / other.rounds[key][round]);
  return { ratio: top / bottom, rounds };
}

export function computeWsRatios(results: WsResults): WsRatioRow[] {
  if (results.servers.gantry === undefined) return [];
  return WS_METRICS.map(({ key }) => ({
    metric: key,
    over: { floor: ratioOf(results, key, 'floor'), 'gantry-http': ratioOf(results, key, 'gantry-http') },
  }));
}

export function computeWsTargets(results: WsResults): WsTargetRow[] {
  return WS_TARGETS.map((target) => {
    const found = ratioOf(results, target.metric, target.versus);
    const row: WsTargetRow = {
      target: target.text,
      metric: target.metric,
      versus: target.versus,
      ratio: found?.ratio ?? null,
      rounds: found?.rounds ?? null,
      verdict: null,
    };
    if (found !== null) {
      const meets = (value: number) =>
        (target.atLeast === undefined || value >= target.atLeast) &&
        (target.above === undefined || value > target.above);
      const outcomes = new Set([found.ratio, ...found.rounds].map(meets));
      row.verdict = outcomes.size > 1 ? 'unclear' : meets(found.ratio) ? 'met' : 'missed';
    }
    return row;
  });
}

function label(name: string): string {
  return WS_SERVER_LABELS[name] ?? name;
}

function ratioText(found: { ratio: number; rounds: number[] } | null, digits = 2): string {
  if (found === null) return '—';
  const { ratio, rounds } = found;
  if (rounds.length < 2) return `${ratio.toFixed(digits)}×`;
  return `${ratio.toFixed(digits)}× (${Math.min(...rounds).toFixed(digits)}–${Math.max(...rounds).toFixed(digits)})`;
}

export function renderWsReport(results: WsResults): string {
  const { machine, settings } = results;
  const names = Object.keys(results.servers);
  const header =
    `WebSocket tools/call echo (one MCP session per connection; gantry http = the Streamable HTTP ` +
    `server of the HTTP section, same tool, at the same number of requests in flight) — ` +
    `${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up, then per mode ` +
    `${settings.primeMs} ms unmeasured + ${settings.durationMs} ms in ${settings.sliceMs} ms slices taken in turn)` +
    `${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    'c=1: one request at a time on one connection; c=16: 16 connections, one request in flight each; ' +
    'c=64: WebSocket: 64 pipelined on one connection, HTTP: 64 keep-alive connections\n' +
    `c=1: ${settings.latencyCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.latencyCpu}`}\n` +
    `node ${machine.node}, ${machine.platform}, ${machine.cpus} × ${machine.cpuModel}` +
    (machine.otherLoad.some((value) => value !== null)
      ? `\nCPU used by other processes, per round (0% = the benchmark had the machine to itself): ` +
        machine.otherLoad.map((value) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`)).join(', ')
      : '');

  const medians = table([
    ['server', ...WS_METRICS.map((metric) => `${metric.label} (${metric.unit})`)],
    ...names.map((name) => [
      label(name),
      ...WS_METRICS.map((metric) => {
        const value = results.servers[name].median[metric.key];
        return value === null ? '—' : formatNumber(value, metric.digits);
      }),
    ]),
  ]);
  const stdio =
    results.stdio === null
      ? []
      : [
          `For scale, the same tool over stdio in this run (gantry, JSON Schema): ` +
            `${formatNumber(results.stdio.pipelined, 0)} msg/s with 64 in flight, ` +
            `${formatNumber(results.stdio.sequential, 0)} msg/s one at a time.`,
        ];

  const spreads = table([
    ['server', ...WS_METRICS.map((metric) => metric.label)],
    ...names.map((name) => [
      label(name),
      ...WS_METRICS.map((metric) => {
        const rounds = results.servers[name].rounds[metric.key];
        return rounds.length < 2 ? '—' : `${(spread(rounds) * 100).toFixed(1)}%`;
      }),
    ]),
  ]);

  const ratioRows = computeWsRatios(results);
  const ratios =
    ratioRows.length === 0
      ? '(gantry is not in this run)'
      : table([
          ['metric', ...VERSUS.map((name) => `gantry ws ÷ ${label(name)}`)],
          ...ratioRows.map((row) => {
            const metric = WS_METRICS.find((candidate) => candidate.key === row.metric)!;
            return [`${metric.label} (${metric.unit})`, ...VERSUS.map((name) => ratioText(row.over[name]))];
          }),
        ]);

  const targets = table([
    ['target', 'ratio', 'verdict'],
    ...computeWsTargets(results).map((row) => [
      row.target,
      ratioText(row.ratio === null ? null : { ratio: row.ratio, rounds: row.rounds ?? [] }, 3),
      row.verdict === null ? '— (a server is missing)' : VERDICT_TEXT[row.verdict],
    ]),
  ]);

  return [
    header,
    '',
    'Medians over rounds',
    medians,
    ...stdio,
    '',
    'Spread between rounds (max/min − 1)',
    spreads,
    '',
    'Ratios of medians (gantry ws ÷ each), with the lowest–highest ratio of a single round in brackets;',
    'req/s: higher is better for gantry ws; latency and CPU: lower is better',
    ratios,
    '',
    'Targets',
    targets,
  ].join('\n');
}
