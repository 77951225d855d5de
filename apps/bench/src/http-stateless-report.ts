// What the stateless-era HTTP section found, as data (the `httpStateless` part of the JSON file)
// and as text.
import type { HttpMetricKey } from './http-report';
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

export type HttpStatelessMetricKey = Extract<
  HttpMetricKey,
  'rps1' | 'rps16' | 'rps64' | 'p50' | 'p99' | 'cpu16'
>;

/** The metrics, in table order: the HTTP section's, without memory (there are no sessions). */
export const HTTP_STATELESS_METRICS: readonly Metric<HttpStatelessMetricKey>[] = [
  { key: 'rps1', label: 'c=1', unit: 'req/s', digits: 0 },
  { key: 'rps16', label: 'c=16', unit: 'req/s', digits: 0 },
  { key: 'rps64', label: 'c=64', unit: 'req/s', digits: 0 },
  { key: 'p50', label: 'p50 at c=1', unit: 'µs', digits: 1 },
  { key: 'p99', label: 'p99 at c=1', unit: 'µs', digits: 1 },
  { key: 'cpu16', label: 'server CPU/req at c=16', unit: 'µs', digits: 1 },
];

/** The servers, in table order, and how the tables name them. */
export const HTTP_STATELESS_SERVER_LABELS: Readonly<Record<string, string>> = {
  'gantry-stateless': 'gantry stateless',
  'sdk-v2-stateless': 'sdk v2 stateless',
  floor: 'floor',
  gantry: 'gantry session era',
};

/** The server whose numbers are divided. */
const GANTRY = 'gantry-stateless';

/** The servers the ratios divide Gantry's stateless numbers by, in column order. */
const VERSUS = ['floor', 'sdk-v2-stateless', 'gantry'] as const;
type Versus = (typeof VERSUS)[number];

/** The goals Gantry is held to in the stateless era over HTTP. */
const HTTP_STATELESS_TARGETS: readonly RatioTarget<HttpStatelessMetricKey, Versus>[] = [
  { metric: 'rps16', versus: 'floor', atLeast: 0.5, text: 'c=16: gantry stateless ≥ 0.5× floor' },
  {
    metric: 'rps16',
    versus: 'sdk-v2-stateless',
    above: 1,
    text: 'c=16: gantry stateless > sdk v2 stateless',
  },
  {
    metric: 'rps16',
    versus: 'gantry',
    atLeast: 1,
    text: 'c=16: gantry stateless ≥ gantry session era',
  },
];

export interface HttpStatelessServerResults {
  rounds: Record<HttpStatelessMetricKey, number[]>;
  median: Record<HttpStatelessMetricKey, number | null>;
}

export interface HttpStatelessResults {
  date: string;
  machine: MachineDescription;
  settings: {
    rounds: number;
    warmupMs: number;
    primeMs: number;
    durationMs: number;
    sliceMs: number;
    concurrencies: readonly number[];
    quick: boolean;
    /** The CPU driver and server shared at concurrency 1; null when not pinned. */
    latencyCpu: number | null;
  };
  servers: Record<string, HttpStatelessServerResults>;
  /** Servers left out because their packages are not installed, with what to install. */
  notInstalled: Record<string, string>;
}

export interface HttpStatelessRatioRow {
  metric: HttpStatelessMetricKey;
  over: Record<Versus, Ratio | null>;
}

export type HttpStatelessTargetRow = TargetRow<HttpStatelessMetricKey>;

export function computeHttpStatelessRatios(results: HttpStatelessResults): HttpStatelessRatioRow[] {
  if (results.servers[GANTRY] === undefined) return [];
  return HTTP_STATELESS_METRICS.map(({ key }) => ({
    metric: key,
    over: Object.fromEntries(
      VERSUS.map((name) => [name, ratioOf(results.servers, GANTRY, key, name)]),
    ) as HttpStatelessRatioRow['over'],
  }));
}

export function computeHttpStatelessTargets(results: HttpStatelessResults): HttpStatelessTargetRow[] {
  return targetRows(results.servers, GANTRY, HTTP_STATELESS_TARGETS);
}

function label(name: string): string {
  return HTTP_STATELESS_SERVER_LABELS[name] ?? name;
}

export function renderHttpStatelessReport(results: HttpStatelessResults): string {
  const { machine, settings } = results;
  const header =
    `Streamable HTTP tools/call echo, stateless era (2026-07-28: no initialize, no session; _meta on every ` +
    `request, MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; JSON responses, keep-alive connections; ` +
    `gantry session era = the HTTP section's server and client, for comparison) — ` +
    `${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up, then per concurrency ` +
    `${settings.primeMs} ms on fresh connections + ${settings.durationMs} ms in ${settings.sliceMs} ms slices ` +
    `taken in turn)${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    `c=1: ${settings.latencyCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.latencyCpu}`}\n` +
    machineLines(machine);

  const missing = Object.entries(results.notInstalled).map(
    ([name, note]) => `${label(name)}: not installed — ${note}`,
  );

  const ratioRows = computeHttpStatelessRatios(results);
  const ratios =
    ratioRows.length === 0
      ? '(gantry stateless is not in this run)'
      : ratiosTable(ratioRows, HTTP_STATELESS_METRICS, VERSUS, (name) => `gantry stateless ÷ ${label(name)}`);

  return [
    header,
    '',
    'Medians over rounds',
    mediansTable(results.servers, HTTP_STATELESS_METRICS, label),
    ...missing,
    '',
    'Spread between rounds (max/min − 1)',
    spreadsTable(results.servers, HTTP_STATELESS_METRICS, label),
    '',
    'Ratios of medians (gantry stateless ÷ each), with the lowest–highest ratio of a single round in brackets;',
    'req/s: higher is better for gantry stateless; latency and CPU: lower is better',
    ratios,
    '',
    'Targets',
    targetsTable(computeHttpStatelessTargets(results)),
  ].join('\n');
}
