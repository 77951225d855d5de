// What the WebSocket section found, as data (the `ws` part of the JSON file) and as text.
import {
  formatNumber,
  type MachineDescription,
  type Metric,
  machineLines,
  mediansTable,
  type Ratio,
  type RatioTarget,
  ratioOf,
  ratiosTable,
  spreadsTable,
  type TargetRow,
  targetRows,
  targetsTable,
} from './report-tables';

export type WsMetricKey = 'rps1' | 'rps16' | 'rps64' | 'p50' | 'p99' | 'cpu16' | 'cpu64';

/** The metrics, in table order. */
export const WS_METRICS: readonly Metric<WsMetricKey>[] = [
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

/** The goals Gantry's WebSocket server is held to. */
const WS_TARGETS: readonly RatioTarget<WsMetricKey, Versus>[] = [
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
  machine: MachineDescription;
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
  over: Record<Versus, Ratio | null>;
}

export type WsTargetRow = TargetRow<WsMetricKey>;

export function computeWsRatios(results: WsResults): WsRatioRow[] {
  if (results.servers.gantry === undefined) return [];
  return WS_METRICS.map(({ key }) => ({
    metric: key,
    over: {
      floor: ratioOf(results.servers, 'gantry', key, 'floor'),
      'gantry-http': ratioOf(results.servers, 'gantry', key, 'gantry-http'),
    },
  }));
}

export function computeWsTargets(results: WsResults): WsTargetRow[] {
  return targetRows(results.servers, 'gantry', WS_TARGETS);
}

function label(name: string): string {
  return WS_SERVER_LABELS[name] ?? name;
}

export function renderWsReport(results: WsResults): string {
  const { machine, settings } = results;
  const header =
    `WebSocket tools/call echo (one MCP session per connection; gantry http = the Streamable HTTP ` +
    `server of the HTTP section, same tool, at the same number of requests in flight) — ` +
    `${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up, then per mode ` +
    `${settings.primeMs} ms unmeasured + ${settings.durationMs} ms in ${settings.sliceMs} ms slices taken in turn)` +
    `${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    'c=1: one request at a time on one connection; c=16: 16 connections, one request in flight each; ' +
    'c=64: WebSocket: 64 pipelined on one connection, HTTP: 64 keep-alive connections\n' +
    `c=1: ${settings.latencyCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.latencyCpu}`}\n` +
    machineLines(machine);

  const stdio =
    results.stdio === null
      ? []
      : [
          `For scale, the same tool over stdio in this run (gantry, JSON Schema): ` +
            `${formatNumber(results.stdio.pipelined, 0)} msg/s with 64 in flight, ` +
            `${formatNumber(results.stdio.sequential, 0)} msg/s one at a time.`,
        ];

  const ratioRows = computeWsRatios(results);
  const ratios =
    ratioRows.length === 0
      ? '(gantry is not in this run)'
      : ratiosTable(ratioRows, WS_METRICS, VERSUS, (name) => `gantry ws ÷ ${label(name)}`);

  return [
    header,
    '',
    'Medians over rounds',
    mediansTable(results.servers, WS_METRICS, label),
    ...stdio,
    '',
    'Spread between rounds (max/min − 1)',
    spreadsTable(results.servers, WS_METRICS, label),
    '',
    'Ratios of medians (gantry ws ÷ each), with the lowest–highest ratio of a single round in brackets;',
    'req/s: higher is better for gantry ws; latency and CPU: lower is better',
    ratios,
    '',
    'Targets',
    targetsTable(computeWsTargets(results)),
  ].join('\n');
}
