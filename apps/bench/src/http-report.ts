// What the HTTP section found, as data (the `http` part of the JSON file) and as text.
import {
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

export type HttpMetricKey =
  | 'rps1'
  | 'rps16'
  | 'rps64'
  | 'p50'
  | 'p99'
  | 'cpu16'
  | 'rssPerSession'
  | 'heapPerSession';

/** The metrics, in table order. Memory is per idle session, in KiB. */
export const HTTP_METRICS: readonly Metric<HttpMetricKey>[] = [
  { key: 'rps1', label: 'c=1', unit: 'req/s', digits: 0 },
  { key: 'rps16', label: 'c=16', unit: 'req/s', digits: 0 },
  { key: 'rps64', label: 'c=64', unit: 'req/s', digits: 0 },
  { key: 'p50', label: 'p50 at c=1', unit: 'µs', digits: 1 },
  { key: 'p99', label: 'p99 at c=1', unit: 'µs', digits: 1 },
  { key: 'cpu16', label: 'server CPU/req at c=16', unit: 'µs', digits: 1 },
  { key: 'rssPerSession', label: 'RSS/session', unit: 'KiB', digits: 1 },
  { key: 'heapPerSession', label: 'heap/session', unit: 'KiB', digits: 1 },
];

/** The HTTP servers, in table order, and how the tables name them. */
export const HTTP_SERVER_LABELS: Readonly<Record<string, string>> = {
  gantry: 'gantry',
  sdk: 'sdk v1',
  'sdk-v2': 'sdk v2',
  floor: 'floor',
};

/** The servers the ratios divide Gantry by, in column order. */
const VERSUS = ['sdk', 'sdk-v2', 'floor'] as const;

/** The goals Gantry is held to over HTTP; a ratio is Gantry's value divided by the other server's. */
const HTTP_TARGETS: readonly RatioTarget<HttpMetricKey, 'sdk' | 'floor'>[] = [
  { metric: 'rps16', versus: 'floor', atLeast: 0.5, text: 'c=16: gantry ≥ 0.5× floor' },
  { metric: 'rps16', versus: 'sdk', above: 5, text: 'c=16: gantry > 5× sdk v1' },
  { metric: 'rssPerSession', versus: 'sdk', atMost: 1 / 3, text: 'RSS/session: gantry ≤ ⅓ of sdk v1' },
];

export interface HttpServerResults {
  /** One value per round; empty for what is not measured (memory of the floor, which has no sessions). */
  rounds: Record<HttpMetricKey, number[]>;
  /** The median over rounds (null where not measured): the number the tables show. */
  median: Record<HttpMetricKey, number | null>;
}

export interface HttpResults {
  date: string;
  machine: MachineDescription;
  settings: {
    rounds: number;
    warmupMs: number;
    primeMs: number;
    durationMs: number;
    sliceMs: number;
    concurrencies: readonly number[];
    sessions: number;
    warmupSessions: number;
    quick: boolean;
    /** The CPU driver and server shared at concurrency 1; null when not pinned. */
    latencyCpu: number | null;
  };
  servers: Record<string, HttpServerResults>;
  /** Servers left out because their packages are not installed, with what to install. */
  notInstalled: Record<string, string>;
}

export interface HttpRatioRow {
  metric: HttpMetricKey;
  /** Per other server: Gantry's median ÷ its median, and the same ratio in each round (null: not in the run, or not measured). */
  over: Record<(typeof VERSUS)[number], Ratio | null>;
}

export type HttpTargetRow = TargetRow<HttpMetricKey>;

export function computeHttpRatios(results: HttpResults): HttpRatioRow[] {
  if (results.servers.gantry === undefined) return [];
  return HTTP_METRICS.map(({ key }) => ({
    metric: key,
    over: {
      sdk: ratioOf(results.servers, 'gantry', key, 'sdk'),
      'sdk-v2': ratioOf(results.servers, 'gantry', key, 'sdk-v2'),
      floor: ratioOf(results.servers, 'gantry', key, 'floor'),
    },
  }));
}

export function computeHttpTargets(results: HttpResults): HttpTargetRow[] {
  return targetRows(results.servers, 'gantry', HTTP_TARGETS);
}

function label(name: string): string {
  return HTTP_SERVER_LABELS[name] ?? name;
}

export function renderHttpReport(results: HttpResults): string {
  const { machine, settings } = results;
  const header =
    `Streamable HTTP tools/call echo (stateful session, JSON responses, keep-alive connections) — ` +
    `${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up, then per concurrency ` +
    `${settings.primeMs} ms on fresh connections + ${settings.durationMs} ms in ${settings.sliceMs} ms slices ` +
    `taken in turn); memory: ${settings.sessions} idle sessions opened after ${settings.warmupSessions}` +
    `${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    `c=1: ${settings.latencyCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.latencyCpu}`}\n` +
    machineLines(machine);

  const missing = Object.entries(results.notInstalled).map(
    ([name, note]) => `${label(name)}: not installed — ${note}`,
  );

  const ratioRows = computeHttpRatios(results);
  const ratios =
    ratioRows.length === 0
      ? '(gantry is not in this run)'
      : ratiosTable(ratioRows, HTTP_METRICS, VERSUS, (name) => `gantry ÷ ${label(name)}`);

  return [
    header,
    '',
    'Medians over rounds',
    mediansTable(results.servers, HTTP_METRICS, label),
    ...missing,
    '',
    'Spread between rounds (max/min − 1)',
    spreadsTable(results.servers, HTTP_METRICS, label),
    '',
    'Ratios of medians (gantry ÷ each), with the lowest–highest ratio of a single round in brackets;',
    'req/s: higher is better for gantry; latency, CPU and memory: lower is better',
    ratios,
    '',
    'Targets',
    targetsTable(computeHttpTargets(results)),
  ].join('\n');
}
