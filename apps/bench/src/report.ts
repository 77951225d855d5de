// What a run found, as data (the JSON file) and as text (the tables `npm run bench` prints).
import {
  type MachineDescription,
  type Metric,
  machineLines,
  mediansTable,
  meetsTarget,
  ratioText,
  spreadsTable,
  table,
  VERDICT_TEXT,
  type Verdict,
  verdictOf,
} from './report-tables';

export type MetricKey = 'pipelined' | 'sequential' | 'p50' | 'p99' | 'coldStart';

/** The metrics, in table order. */
export const METRICS: readonly Metric<MetricKey>[] = [
  { key: 'pipelined', label: 'pipelined', unit: 'msg/s', digits: 0 },
  { key: 'sequential', label: 'sequential', unit: 'msg/s', digits: 0 },
  { key: 'p50', label: 'latency p50', unit: 'µs', digits: 1 },
  { key: 'p99', label: 'latency p99', unit: 'µs', digits: 1 },
  { key: 'coldStart', label: 'cold start', unit: 'ms', digits: 1 },
];

interface Target {
  readonly metric: MetricKey;
  readonly versus: 'sdk' | 'floor';
  readonly atLeast?: number;
  readonly atMost?: number;
  readonly text: string;
}

/** The goals each Gantry variant is held to; a ratio is its value divided by the other server's. */
const TARGETS: readonly Target[] = [
  { metric: 'pipelined', versus: 'sdk', atLeast: 2, text: 'gantry ≥ 2× sdk' },
  { metric: 'sequential', versus: 'floor', atLeast: 0.9, text: 'gantry ≥ 0.9× floor' },
  { metric: 'coldStart', versus: 'sdk', atMost: 0.7, text: 'gantry ≤ 0.7× sdk' },
];

/** The Gantry servers that get ratio rows, and how the tables name them. */
export const GANTRY_VARIANTS: Readonly<Record<string, string>> = {
  gantry: 'gantry (DTO)',
  'gantry-schema': 'gantry (JSON Schema)',
};

/**
 * The same Gantry servers spoken to in the stateless era (2026-07-28: no initialize, `_meta` on
 * every request), how the tables name them, and the session-era server each is compared with.
 */
export const STATELESS_VARIANTS: Readonly<
  Record<string, { readonly label: string; readonly session: string; readonly floor?: true }>
> = {
  'gantry-stateless': { label: 'gantry (DTO) stateless', session: 'gantry' },
  'gantry-schema-stateless': { label: 'gantry (JSON Schema) stateless', session: 'gantry-schema' },
  // No MCP logic: its ratio is what the era's bigger messages cost by themselves. No target.
  'floor-stateless': { label: 'floor stateless', session: 'floor', floor: true },
};

/** The metrics the stateless-era variants are measured on: no cold start (there is no handshake to time). */
export const STATELESS_METRICS: readonly MetricKey[] = ['pipelined', 'sequential', 'p50', 'p99'];

/** How the tables name a server: Gantry variants by their argument style (and era), the others as is. */
function label(name: string): string {
  return GANTRY_VARIANTS[name] ?? STATELESS_VARIANTS[name]?.label ?? name;
}

export interface ServerResults {
  /** One value per round (cold start: the median of that round's spawns); empty where not measured. */
  rounds: Record<MetricKey, number[]>;
  /** The median over rounds (null where not measured: cold start of the stateless-era variants). */
  median: Record<MetricKey, number | null>;
}

export interface BenchResults {
  date: string;
  machine: MachineDescription;
  settings: {
    rounds: number;
    warmupMs: number;
    durationMs: number;
    sliceMs: number;
    inFlight: number;
    coldSpawns: number;
    quick: boolean;
    /** The CPU driver and server shared in the sequential measurement; null when not pinned. */
    sequentialCpu: number | null;
  };
  servers: Record<string, ServerResults>;
}

export interface RatioRow {
  /** The Gantry variant (a key of GANTRY_VARIANTS) whose value is divided. */
  server: string;
  metric: MetricKey;
  /** The ratio of the medians, and the ratio in each round (both servers measured in turn). */
  overSdk: number | null;
  overSdkRounds: number[] | null;
  overFloor: number | null;
  overFloorRounds: number[] | null;
  target: string | null;
  /**
   * `met`/`missed`: the ratio of medians and every round's ratio are on the same side of the
   * target; `unclear`: the rounds disagree, so one run does not decide; null: no target or
   * a server is missing.
   */
  verdict: Verdict | null;
}

/** One row per metric for each Gantry variant in the run, variant by variant. */
export function computeRatios(results: BenchResults): RatioRow[] {
  const variants = Object.keys(GANTRY_VARIANTS).filter((name) => results.servers[name] !== undefined);
  return variants.flatMap((name) => METRICS.map(({ key }) => ratioRow(results, name, key)));
}

/** The ratio of two medians; null when either is missing. */
function medianRatio(top: number | null, bottom: number | null | undefined): number | null {
  return top === null || bottom === null || bottom === undefined ? null : top / bottom;
}

function ratioRow(results: BenchResults, name: string, key: MetricKey): RatioRow {
  const gantry = results.servers[name];
  const over = (versus: string) => medianRatio(gantry.median[key], results.servers[versus]?.median[key]);
  const overRounds = (versus: string) => {
    const other = results.servers[versus];
    if (other === undefined) return null;
    return gantry.rounds[key].map((value, round) => value / other.rounds[key][round]);
  };
  const row: RatioRow = {
    server: name,
    metric: key,
    overSdk: over('sdk'),
    overSdkRounds: overRounds('sdk'),
    overFloor: over('floor'),
    overFloorRounds: overRounds('floor'),
    target: null,
    verdict: null,
  };
  const target = TARGETS.find((candidate) => candidate.metric === key);
  if (target !== undefined) {
    row.target = target.text;
    const versusSdk = target.versus === 'sdk';
    const ratio = versusSdk ? row.overSdk : row.overFloor;
    const rounds = versusSdk ? row.overSdkRounds : row.overFloorRounds;
    if (ratio !== null && rounds !== null) {
      row.verdict = verdictOf((value) => meetsTarget(target, value), ratio, rounds);
    }
  }
  return row;
}

export interface StatelessRatioRow {
  /** The stateless-era variant (a key of STATELESS_VARIANTS) whose value is divided. */
  server: string;
  metric: MetricKey;
  /** ÷ the same server in the session era (measured in the same rounds), and per round. */
  overSession: number | null;
  overSessionRounds: number[] | null;
  /** ÷ the floor answering the same stateless-era lines (null for the floor itself). */
  overFloor: number | null;
  overFloorRounds: number[] | null;
  target: string | null;
  verdict: Verdict | null;
}

/** What the stateless era may cost over stdio: at most ~10% of the session era's throughput. */
const STATELESS_TARGETS: readonly { metric: MetricKey; atLeast: number; text: string }[] = [
  { metric: 'pipelined', atLeast: 0.9, text: 'stateless ≥ 0.9× session era' },
  { metric: 'sequential', atLeast: 0.9, text: 'stateless ≥ 0.9× session era' },
];

/** One row per metric for each stateless-era variant in the run, variant by variant. */
export function computeStatelessRatios(results: BenchResults): StatelessRatioRow[] {
  const variants = Object.keys(STATELESS_VARIANTS).filter((name) => results.servers[name] !== undefined);
  return variants.flatMap((name) =>
    STATELESS_METRICS.map((key) => {
      const stateless = results.servers[name];
      const versus = (other: string) => {
        const server = results.servers[other];
        if (server === undefined) return [null, null] as const;
        const rounds = stateless.rounds[key].map((value, round) => value / server.rounds[key][round]);
        return [medianRatio(stateless.median[key], server.median[key]), rounds] as const;
      };
      const variant = STATELESS_VARIANTS[name];
      const [overSession, overSessionRounds] = versus(variant.session);
      const [overFloor, overFloorRounds] = variant.floor ? [null, null] : versus('floor-stateless');
      const target = variant.floor
        ? undefined
        : STATELESS_TARGETS.find((candidate) => candidate.metric === key);
      let verdict: StatelessRatioRow['verdict'] = null;
      if (target !== undefined && overSession !== null && overSessionRounds !== null) {
        verdict = verdictOf((value) => meetsTarget(target, value), overSession, overSessionRounds);
      }
      return {
        server: name,
        metric: key,
        overSession,
        overSessionRounds: overSessionRounds === null ? null : [...overSessionRounds],
        overFloor,
        overFloorRounds: overFloorRounds === null ? null : [...overFloorRounds],
        target: target?.text ?? null,
        verdict,
      };
    }),
  );
}

/** The ratio of medians with the range of single-round ratios; '—' when a server is missing. */
function ratioCell(value: number | null, rounds: number[] | null): string {
  return ratioText(value === null || rounds === null ? null : { ratio: value, rounds });
}

/** A ratios table in blocks, one per variant (named in its first row), a blank row between blocks. */
function variantRatiosTable<
  R extends { server: string; metric: MetricKey; target: string | null; verdict: Verdict | null },
>(
  heading: readonly string[],
  rows: readonly R[],
  variantLabel: (server: string) => string,
  ratios: (row: R) => readonly string[],
): string {
  return table(
    [
      [...heading],
      ...rows.flatMap((row, index) => {
        const first = index === 0 || rows[index - 1].server !== row.server;
        const cells = [
          first ? variantLabel(row.server) : '',
          METRICS.find((metric) => metric.key === row.metric)!.label,
          ...ratios(row),
          row.target ?? '',
          row.verdict === null ? (row.target === null ? '' : '—') : VERDICT_TEXT[row.verdict],
        ];
        return first && index > 0 ? [cells.map(() => ''), cells] : [cells];
      }),
    ],
    2,
  );
}

export function renderReport(results: BenchResults): string {
  const { machine, settings } = results;
  const header =
    `stdio tools/call echo — ${settings.rounds} round(s) × (${settings.warmupMs} ms warm-up + ` +
    `${settings.durationMs} ms in ${settings.sliceMs} ms slices taken in turn), ` +
    `${settings.inFlight} in flight when pipelined, ` +
    `${settings.coldSpawns} cold spawns per round${settings.quick ? ' [--quick: smoke check only]' : ''}\n` +
    `sequential: ${settings.sequentialCpu === null ? 'not pinned' : `driver and server pinned to CPU ${settings.sequentialCpu}`}\n` +
    machineLines(machine);

  const rows = computeRatios(results);
  const ratios =
    rows.length === 0
      ? '(no session-era Gantry server in this run)'
      : variantRatiosTable(
          ['gantry variant', 'metric', '÷ sdk', '÷ floor', 'target', 'verdict'],
          rows,
          (server) => GANTRY_VARIANTS[server],
          (row) => [ratioCell(row.overSdk, row.overSdkRounds), ratioCell(row.overFloor, row.overFloorRounds)],
        );

  const statelessRows = computeStatelessRatios(results);
  const stateless =
    statelessRows.length === 0
      ? []
      : [
          '',
          'Stateless era (2026-07-28: no initialize, _meta on every request), the same servers: each variant ÷ itself',
          'in the session era and ÷ the floor answering the same stateless-era lines, in brackets as above; the floor',
          "stateless row is the floor ÷ itself in the session era: what the era's bigger messages cost with no MCP logic",
          variantRatiosTable(
            ['stateless variant', 'metric', '÷ session era', '÷ floor', 'target', 'verdict'],
            statelessRows,
            (server) => STATELESS_VARIANTS[server].label,
            (row) => [
              ratioCell(row.overSession, row.overSessionRounds),
              ratioCell(row.overFloor, row.overFloorRounds),
            ],
          ),
        ];

  return [
    header,
    '',
    'Medians over rounds',
    mediansTable(results.servers, METRICS, label),
    '',
    'Spread between rounds (max/min − 1)',
    spreadsTable(results.servers, METRICS, label),
    '',
    'Ratios of medians (each Gantry variant ÷ sdk, ÷ floor), with the lowest–highest ratio of a single round in brackets;',
    'throughput: higher is better; latency and cold start: lower is better',
    ratios,
    ...stateless,
  ].join('\n');
}
