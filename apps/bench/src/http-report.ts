// What the HTTP section found, as data (the `http` part of the JSON file) and as text.
import { formatNumber, table, VERDICT_TEXT } from './report';
import { spread } from './stats';

export type HttpMetricKey =
  | 'rps1'
  | 'rps16'
  | 'rps64'
  | 'p50'
  | 'p99'
  | 'cpu16'
  | 'rssPerSession'
  | 'heapPerSession';

interface HttpMetric {
  readonly key: HttpMetricKey;
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
}

/** The metrics, in table order. Memory is per idle session, in KiB. */
export const HTTP_METRICS: readonly HttpMetric[] = [
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

interface HttpTarget {
  readonly metric: HttpMetricKey;
  readonly versus: 'sdk' | 'floor';
  readonly atLeast?: number;
  readonly above?: number;
  readonly atMost?: number;
  readonly text: string;
}

/** The goals Gantry is held to over HTTP; a ratio is Gantry's value divided by the other server's. */
const HTTP_TARGETS: readonly HttpTarget[] = [
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
  over: Record<(typeof VERSUS)[number], { ratio: number; rounds: number[] } | null>;
}

export interface HttpTargetRow {
  target: string;
  metric: HttpMetricKey;
  versus: string;
  ratio: number | null;
  rounds: number[] | null;
  /** As in report.ts: `unclear` when the ratio of medians and the single rounds disagree; null when a server is missing. */
  verdict: 'met' | 'missed' | 'unclear' | null;
}

function ratioOf(results: HttpResults, key: HttpMetricKey, versus: string) {
  const gantry = results.servers.gantry;
  const other = results.servers[versus];
  if (gantry === undefined || other === undefined) return null;
  const top = gantry.median[key];
  const bottom = other.median[key];
  if (top === null || bottom === null) return null;
  const rounds = gantry.rounds[key].map((value, round) => value / other.rounds[key][round]);
  return { ratio: top / bottom, rounds };
}

export function computeHttpRatios(results: HttpResults): HttpRatioRow[] {
  if (results.servers.gantry === undefined) return [];
  return HTTP_METRICS.map(({ key }) => ({
    metric: key,
    over: {
      sdk: ratioOf(results, key, 'sdk'),
      'sdk-v2': ratioOf(results, key, 'sdk-v2'),
      floor: ratioOf(results, key, 'floor'),
    },
  }));
}

export function computeHttpTargets(results: HttpResults): HttpTargetRow[] {
  return HTTP_TARGETS.map((target) => {
    const found = ratioOf(results, target.metric, target.versus);
    const row: HttpTargetRow = {
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
        (target.above === undefined || value > target.above) &&
        (target.atMost === undefined || value <= target.atMost);
      const outcomes = new Set([found.ratio, ...found.rounds].map(meets));
      row.verdict = outcomes.size > 1 ? 'unclear' : meets(found.ratio) ? 'met' : 'missed';
    }
    return row;
  });
}

function label(name: string): string {
  return HTTP_SERVER_LABELS[name] ?? name;
}

/** A ratio with the range of its single-round ratios in brackets. */
export function ratioText(found: { ratio: number; rounds: number[] } | null, digits = 2): string {
  if (found === null) return '—';
  const { ratio, rounds } = found;
  if (rounds.length < 2) return `${ratio.toFixed(digits)}×`;
  return `${ratio.toFixed(digits)}× (${Math.min(...rounds).toFixed(digits)}–${Math.max(...rounds).toFixed(digits)})`;
}

export function renderHttpReport(results: HttpResults): string {
  const { machine, settings } = results;
  const names = Object.keys(results.servers);
  const header =
    `Streamable HTTP tools/call echo (stateful session, JSON responses, keep-alive connections) — ` +
    `${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up, then per concurrency ` +
    `${settings.primeMs} ms on fresh connections + ${settings.durationMs} ms in ${settings.sliceMs} ms slices ` +
    `taken in turn); memory: ${settings.sessions} idle sessions opened after ${settings.warmupSessions}` +
    `${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    `c=1: ${settings.latencyCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.latencyCpu}`}\n` +
    `node ${machine.node}, ${machine.platform}, ${machine.cpus} × ${machine.cpuModel}` +
    (machine.otherLoad.some((value) => value !== null)
      ? `\nCPU used by other processes, per round (0% = the benchmark had the machine to itself): ` +
        machine.otherLoad.map((value) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`)).join(', ')
      : '');

  const medians = table([
    ['server', ...HTTP_METRICS.map((metric) => `${metric.label} (${metric.unit})`)],
    ...names.map((name) => [
      label(name),
      ...HTTP_METRICS.map((metric) => {
        const value = results.servers[name].median[metric.key];
        return value === null ? '—' : formatNumber(value, metric.digits);
      }),
    ]),
  ]);
  const missing = Object.entries(results.notInstalled).map(
    ([name, note]) => `${label(name)}: not installed — ${note}`,
  );

  const spreads = table([
    ['server', ...HTTP_METRICS.map((metric) => metric.label)],
    ...names.map((name) => [
      label(name),
      ...HTTP_METRICS.map((metric) => {
        const rounds = results.servers[name].rounds[metric.key];
        return rounds.length < 2 ? '—' : `${(spread(rounds) * 100).toFixed(1)}%`;
      }),
    ]),
  ]);

  const ratioRows = computeHttpRatios(results);
  const ratios =
    ratioRows.length === 0
      ? '(gantry is not in this run)'
      : table([
          ['metric', ...VERSUS.map((name) => `gantry ÷ ${label(name)}`)],
          ...ratioRows.map((row) => {
            const metric = HTTP_METRICS.find((candidate) => candidate.key === row.metric)!;
            return [`${metric.label} (${metric.unit})`, ...VERSUS.map((name) => ratioText(row.over[name]))];
          }),
        ]);

  const targetRows = computeHttpTargets(results);
  const targets = table([
    ['target', 'ratio', 'verdict'],
    ...targetRows.map((row) => [
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
    'Ratios of medians (gantry ÷ each), with the lowest–highest ratio of a single round in brackets;',
    'req/s: higher is better for gantry; latency, CPU and memory: lower is better',
    ratios,
    '',
    'Targets',
    targets,
  ].join('\n');
}
