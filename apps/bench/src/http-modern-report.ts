// What the stateless-era HTTP section found, as data (the `httpModern` part of the JSON file)
// and as text.
import type { HttpMetricKey } from './http-report';
import { ratioText } from './http-report';
import { formatNumber, table, VERDICT_TEXT } from './report';
import { spread } from './stats';

export type HttpModernMetricKey = Extract<
  HttpMetricKey,
  'rps1' | 'rps16' | 'rps64' | 'p50' | 'p99' | 'cpu16'
>;

interface HttpModernMetric {
  readonly key: HttpModernMetricKey;
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
}

/** The metrics, in table order: the HTTP section's, without memory (there are no sessions). */
export const HTTP_MODERN_METRICS: readonly HttpModernMetric[] = [
  { key: 'rps1', label: 'c=1', unit: 'req/s', digits: 0 },
  { key: 'rps16', label: 'c=16', unit: 'req/s', digits: 0 },
  { key: 'rps64', label: 'c=64', unit: 'req/s', digits: 0 },
  { key: 'p50', label: 'p50 at c=1', unit: 'µs', digits: 1 },
  { key: 'p99', label: 'p99 at c=1', unit: 'µs', digits: 1 },
  { key: 'cpu16', label: 'server CPU/req at c=16', unit: 'µs', digits: 1 },
];

/** The servers, in table order, and how the tables name them. */
export const HTTP_MODERN_SERVER_LABELS: Readonly<Record<string, string>> = {
  'gantry-modern': 'gantry stateless',
  'sdk-v2-modern': 'sdk v2 stateless',
  floor: 'floor',
  gantry: 'gantry session era',
};

/** The server whose numbers are divided. */
const GANTRY = 'gantry-modern';

/** The servers the ratios divide Gantry's stateless numbers by, in column order. */
const VERSUS = ['floor', 'sdk-v2-modern', 'gantry'] as const;
type Versus = (typeof VERSUS)[number];

interface HttpModernTarget {
  readonly metric: HttpModernMetricKey;
  readonly versus: Versus;
  readonly atLeast?: number;
  readonly above?: number;
  readonly text: string;
}

/** The goals Gantry is held to in the stateless era over HTTP. */
const HTTP_MODERN_TARGETS: readonly HttpModernTarget[] = [
  { metric: 'rps16', versus: 'floor', atLeast: 0.5, text: 'c=16: gantry stateless ≥ 0.5× floor' },
  { metric: 'rps16', versus: 'sdk-v2-modern', above: 1, text: 'c=16: gantry stateless > sdk v2 stateless' },
  {
    metric: 'rps16',
    versus: 'gantry',
    atLeast: 0.9,
    text: 'c=16: gantry stateless ≥ 0.9× gantry session era',
  },
];

export interface HttpModernServerResults {
  rounds: Record<HttpModernMetricKey, number[]>;
  median: Record<HttpModernMetricKey, number | null>;
}

export interface HttpModernResults {
  date: string;
  machine: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    /** Per round: share of all CPU time used by other processes (Linux procfs), null where unknown. */
    otherLoad: (number | null)[];
  };
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
  servers: Record<string, HttpModernServerResults>;
  /** Servers left out because their packages are not installed, with what to install. */
  notInstalled: Record<string, string>;
}

export interface HttpModernRatioRow {
  metric: HttpModernMetricKey;
  over: Record<Versus, { ratio: number; rounds: number[] } | null>;
}

export interface HttpModernTargetRow {
  target: string;
  metric: HttpModernMetricKey;
  versus: string;
  ratio: number | null;
  rounds: number[] | null;
  verdict: 'met' | 'missed' | 'unclear' | null;
}

function ratioOf(results: HttpModernResults, key: HttpModernMetricKey, versus: string) {
  const gantry = results.servers[GANTRY];
  const other = results.servers[versus];
  if (gantry === undefined || other === undefined) return null;
  const top = gantry.median[key];
  const bottom = other.median[key];
  if (top === null || bottom === null) return null;
  const rounds = gantry.rounds[key].map((value, round) => value / other.rounds[key][round]);
  return { ratio: top / bottom, rounds };
}

export function computeHttpModernRatios(results: HttpModernResults): HttpModernRatioRow[] {
  if (results.servers[GANTRY] === undefined) return [];
  return HTTP_MODERN_METRICS.map(({ key }) => ({
    metric: key,
    over: Object.fromEntries(
      VERSUS.map((name) => [name, ratioOf(results, key, name)]),
    ) as HttpModernRatioRow['over'],
  }));
}

export function computeHttpModernTargets(results: HttpModernResults): HttpModernTargetRow[] {
  return HTTP_MODERN_TARGETS.map((target) => {
    const found = ratioOf(results, target.metric, target.versus);
    const row: HttpModernTargetRow = {
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
  return HTTP_MODERN_SERVER_LABELS[name] ?? name;
}

export function renderHttpModernReport(results: HttpModernResults): string {
  const { machine, settings } = results;
  const names = Object.keys(results.servers);
  const header =
    `Streamable HTTP tools/call echo, stateless era (2026-07-28: no initialize, no session; _meta on every ` +
    `request, MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; JSON responses, keep-alive connections; ` +
    `gantry session era = the HTTP section's server and client, for comparison) — ` +
    `${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up, then per concurrency ` +
    `${settings.primeMs} ms on fresh connections + ${settings.durationMs} ms in ${settings.sliceMs} ms slices ` +
    `taken in turn)${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    `c=1: ${settings.latencyCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.latencyCpu}`}\n` +
    `node ${machine.node}, ${machine.platform}, ${machine.cpus} × ${machine.cpuModel}` +
    (machine.otherLoad.some((value) => value !== null)
      ? `\nCPU used by other processes, per round (0% = the benchmark had the machine to itself): ` +
        machine.otherLoad.map((value) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`)).join(', ')
      : '');

  const medians = table([
    ['server', ...HTTP_MODERN_METRICS.map((metric) => `${metric.label} (${metric.unit})`)],
    ...names.map((name) => [
      label(name),
      ...HTTP_MODERN_METRICS.map((metric) => {
        const value = results.servers[name].median[metric.key];
        return value === null ? '—' : formatNumber(value, metric.digits);
      }),
    ]),
  ]);
  const missing = Object.entries(results.notInstalled).map(
    ([name, note]) => `${label(name)}: not installed — ${note}`,
  );

  const spreads = table([
    ['server', ...HTTP_MODERN_METRICS.map((metric) => metric.label)],
    ...names.map((name) => [
      label(name),
      ...HTTP_MODERN_METRICS.map((metric) => {
        const rounds = results.servers[name].rounds[metric.key];
        return rounds.length < 2 ? '—' : `${(spread(rounds) * 100).toFixed(1)}%`;
      }),
    ]),
  ]);

  const ratioRows = computeHttpModernRatios(results);
  const ratios =
    ratioRows.length === 0
      ? '(gantry stateless is not in this run)'
      : table([
          ['metric', ...VERSUS.map((name) => `gantry stateless ÷ ${label(name)}`)],
          ...ratioRows.map((row) => {
            const metric = HTTP_MODERN_METRICS.find((candidate) => candidate.key === row.metric)!;
            return [`${metric.label} (${metric.unit})`, ...VERSUS.map((name) => ratioText(row.over[name]))];
          }),
        ]);

  const targets = table([
    ['target', 'ratio', 'verdict'],
    ...computeHttpModernTargets(results).map((row) => [
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
    ...missing,
    '',
    'Spread between rounds (max/min − 1)',
    spreads,
    '',
    'Ratios of medians (gantry stateless ÷ each), with the lowest–highest ratio of a single round in brackets;',
    'req/s: higher is better for gantry stateless; latency and CPU: lower is better',
    ratios,
    '',
    'Targets',
    targets,
  ].join('\n');
}
