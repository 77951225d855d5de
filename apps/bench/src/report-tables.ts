// The pieces every section's report is built from: metric descriptors, ratios with their verdicts,
// and the tables and header lines the sections print alike.
import { spread } from './stats';

/** A measured quantity, as the tables name and format it. */
export interface Metric<K extends string> {
  readonly key: K;
  readonly label: string;
  readonly unit: string;
  readonly digits: number;
}

/** What a section keeps per server: one value per round, and the median over rounds (null where not measured). */
export interface MeasuredServer<K extends string> {
  rounds: Record<K, number[]>;
  median: Record<K, number | null>;
}

/** The machine a section ran on. */
export interface MachineDescription {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  /** Per round: share of all CPU time used by other processes (Linux procfs), null where unknown. */
  otherLoad: (number | null)[];
}

export type Verdict = 'met' | 'missed' | 'unclear';

export const VERDICT_TEXT = { met: 'met', missed: 'MISSED', unclear: 'unclear (rounds disagree)' } as const;

/** A ratio of medians and the same ratio in each round. */
export interface Ratio {
  ratio: number;
  rounds: number[];
}

/** A goal held against a ratio: every bound given must hold. */
export interface RatioTarget<K extends string, V extends string = string> {
  readonly metric: K;
  readonly versus: V;
  readonly atLeast?: number;
  readonly above?: number;
  readonly atMost?: number;
  readonly text: string;
}

export interface TargetRow<K extends string> {
  target: string;
  metric: K;
  versus: string;
  ratio: number | null;
  rounds: number[] | null;
  /** `unclear` when the ratio of medians and the single rounds disagree; null when a server is missing. */
  verdict: Verdict | null;
}

export function formatNumber(value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Left-aligns the first `leftColumns` columns and right-aligns the others. */
export function table(rows: readonly string[][], leftColumns = 1): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column < leftColumns ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
        )
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}

/** A ratio with the range of its single-round ratios in brackets. */
export function ratioText(found: Ratio | null, digits = 2): string {
  if (found === null) return '—';
  const { ratio, rounds } = found;
  if (rounds.length < 2) return `${ratio.toFixed(digits)}×`;
  return `${ratio.toFixed(digits)}× (${Math.min(...rounds).toFixed(digits)}–${Math.max(...rounds).toFixed(digits)})`;
}

/** `top`'s median ÷ `versus`'s, and the same per round; null when either server or median is missing. */
export function ratioOf<K extends string>(
  servers: Readonly<Record<string, MeasuredServer<K>>>,
  top: string,
  key: K,
  versus: string,
): Ratio | null {
  const gantry = servers[top];
  const other = servers[versus];
  if (gantry === undefined || other === undefined) return null;
  const upper = gantry.median[key];
  const lower = other.median[key];
  if (upper === null || lower === null) return null;
  const rounds = gantry.rounds[key].map((value, round) => value / other.rounds[key][round]);
  return { ratio: upper / lower, rounds };
}

/** Whether `value` meets every bound `target` gives. */
export function meetsTarget(
  target: Omit<RatioTarget<string>, 'metric' | 'versus' | 'text'>,
  value: number,
): boolean {
  return (
    (target.atLeast === undefined || value >= target.atLeast) &&
    (target.above === undefined || value > target.above) &&
    (target.atMost === undefined || value <= target.atMost)
  );
}

/**
 * `met`/`missed`: the ratio of medians and every round's ratio are on the same side of the
 * target; `unclear`: the rounds disagree, so one run does not decide.
 */
export function verdictOf(
  meets: (value: number) => boolean,
  ratio: number,
  rounds: readonly number[],
): Verdict {
  const outcomes = new Set([ratio, ...rounds].map(meets));
  return outcomes.size > 1 ? 'unclear' : meets(ratio) ? 'met' : 'missed';
}

/** One row per target: `top` ÷ the target's server, and whether the target is met. */
export function targetRows<K extends string>(
  servers: Readonly<Record<string, MeasuredServer<K>>>,
  top: string,
  targets: readonly RatioTarget<K>[],
): TargetRow<K>[] {
  return targets.map((target) => {
    const found = ratioOf(servers, top, target.metric, target.versus);
    return {
      target: target.text,
      metric: target.metric,
      versus: target.versus,
      ratio: found?.ratio ?? null,
      rounds: found?.rounds ?? null,
      verdict:
        found === null ? null : verdictOf((value) => meetsTarget(target, value), found.ratio, found.rounds),
    };
  });
}

/** The machine line, and the load of other processes per round when it is known. */
export function machineLines(machine: MachineDescription): string {
  return (
    `node ${machine.node}, ${machine.platform}, ${machine.cpus} × ${machine.cpuModel}` +
    (machine.otherLoad.some((value) => value !== null)
      ? `\nCPU used by other processes, per round (0% = the benchmark had the machine to itself): ` +
        machine.otherLoad.map((value) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`)).join(', ')
      : '')
  );
}

/** Each server's median of each metric, '—' where not measured. */
export function mediansTable<K extends string>(
  servers: Readonly<Record<string, MeasuredServer<K>>>,
  metrics: readonly Metric<K>[],
  label: (name: string) => string,
): string {
  return table([
    ['server', ...metrics.map((metric) => `${metric.label} (${metric.unit})`)],
    ...Object.keys(servers).map((name) => [
      label(name),
      ...metrics.map((metric) => {
        const value = servers[name].median[metric.key];
        return value === null ? '—' : formatNumber(value, metric.digits);
      }),
    ]),
  ]);
}

/** How far apart each server's rounds are (max/min − 1), '—' with fewer than two rounds. */
export function spreadsTable<K extends string>(
  servers: Readonly<Record<string, MeasuredServer<K>>>,
  metrics: readonly Metric<K>[],
  label: (name: string) => string,
): string {
  return table([
    ['server', ...metrics.map((metric) => metric.label)],
    ...Object.keys(servers).map((name) => [
      label(name),
      ...metrics.map((metric) => {
        const rounds = servers[name].rounds[metric.key];
        return rounds.length < 2 ? '—' : `${(spread(rounds) * 100).toFixed(1)}%`;
      }),
    ]),
  ]);
}

/** One row per metric, one column per server divided by, headed by `column(server)`. */
export function ratiosTable<K extends string, V extends string>(
  rows: readonly { metric: K; over: Record<V, Ratio | null> }[],
  metrics: readonly Metric<K>[],
  versus: readonly V[],
  column: (name: V) => string,
): string {
  return table([
    ['metric', ...versus.map(column)],
    ...rows.map((row) => {
      const metric = metrics.find((candidate) => candidate.key === row.metric)!;
      return [`${metric.label} (${metric.unit})`, ...versus.map((name) => ratioText(row.over[name]))];
    }),
  ]);
}

/** Each target, its ratio (three digits) and verdict. */
export function targetsTable(rows: readonly TargetRow<string>[]): string {
  return table([
    ['target', 'ratio', 'verdict'],
    ...rows.map((row) => [
      row.target,
      ratioText(row.ratio === null ? null : { ratio: row.ratio, rounds: row.rounds ?? [] }, 3),
      row.verdict === null ? '— (a server is missing)' : VERDICT_TEXT[row.verdict],
    ]),
  ]);
}
