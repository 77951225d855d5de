// Figures of a reliability run. Each test records its lane's counters in one JSON file per
// entry under test/reliability/.results/ (test files run in separate module registries, so
// the files are the shared record); the global teardown prints the table and writes
// test/reliability/.results.json.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RESULTS_DIR = join(__dirname, '..', '.results');
export const RESULTS_FILE = join(__dirname, '..', '.results.json');

/** The counters of one lane (one transport and era, or one fault or soak scenario). */
export interface LaneFigures {
  /** e.g. `fuzz stdio session`, `soak http`. */
  name: string;
  transport: 'stdio' | 'http' | 'ws' | 'notes';
  seed?: number;
  /** Fuzzed inputs sent (the liveness probes after them are counted in `messages`). */
  inputs: number;
  /** Every message sent: inputs, probes, handshakes. */
  messages: number;
  crashes: number;
  hangs: number;
  violations: number;
  /** Highest RSS of the server process seen, and its growth over the lane, in MB. */
  rssPeakMb?: number;
  rssGrowthMb?: number;
  /** Least-squares slope of the heap after GC (soak), KB/s. */
  heapSlopeKbPerSec?: number;
  durationMs: number;
  /** The first violation, hang or crash of each kind, for the report (at most 20). */
  examples: string[];
  /** How many times each kind of problem happened (numbers in the text left out). */
  kinds?: Record<string, number>;
  note?: string;
}

export function emptyFigures(name: string, transport: LaneFigures['transport']): LaneFigures {
  return {
    name,
    transport,
    inputs: 0,
    messages: 0,
    crashes: 0,
    hangs: 0,
    violations: 0,
    durationMs: 0,
    examples: [],
  };
}

const seenKinds = new WeakMap<LaneFigures, Set<string>>();

/** Adds an example line, one per kind of problem (numbers aside) and at most 20 per lane. */
export function noteExample(figures: LaneFigures, line: string): void {
  const kinds = seenKinds.get(figures) ?? new Set<string>();
  seenKinds.set(figures, kinds);
  const kind = line
    .replace(/\(.*?\):/, '')
    .replace(/[0-9]+/g, 'N')
    .slice(0, 100);
  figures.kinds ??= {};
  figures.kinds[kind] = (figures.kinds[kind] ?? 0) + 1;
  if (kinds.has(kind) || figures.examples.length >= 20) return;
  kinds.add(kind);
  figures.examples.push(line);
}

/** What a clean lane looks like, for one `toEqual` that shows every problem when it fails. */
export function cleanFigures(figures: LaneFigures) {
  return {
    crashes: figures.crashes,
    hangs: figures.hangs,
    violations: figures.violations,
    examples: figures.examples,
  };
}

export const CLEAN = { crashes: 0, hangs: 0, violations: 0, examples: [] };

export function recordFigures(figures: LaneFigures): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${figures.name.replace(/[^a-z0-9]+/gi, '-')}-${process.pid}-${Date.now()}.json`;
  writeFileSync(join(RESULTS_DIR, file), JSON.stringify(figures, null, 2));
}

export function clearFigures(): void {
  rmSync(RESULTS_DIR, { recursive: true, force: true });
}

export function readFigures(): LaneFigures[] {
  let files: string[];
  try {
    files = readdirSync(RESULTS_DIR).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  return files
    .map((file) => JSON.parse(readFileSync(join(RESULTS_DIR, file), 'utf8')) as LaneFigures)
    .sort((a, b) => a.name.localeCompare(b.name));
}

const mb = (value: number | undefined) => (value === undefined ? '' : value.toFixed(1));

/** The summary table, one row per lane, and a total per transport. */
export function formatTable(all: LaneFigures[]): string {
  const header = [
    'lane',
    'inputs',
    'messages',
    'crashes',
    'hangs',
    'violations',
    'RSS peak MB',
    'RSS growth MB',
    'heap KB/s',
    's',
  ];
  const rows = all.map((f) => [
    f.name,
    String(f.inputs),
    String(f.messages),
    String(f.crashes),
    String(f.hangs),
    String(f.violations),
    mb(f.rssPeakMb),
    mb(f.rssGrowthMb),
    f.heapSlopeKbPerSec === undefined ? '' : f.heapSlopeKbPerSec.toFixed(1),
    (f.durationMs / 1000).toFixed(1),
  ]);
  for (const transport of ['stdio', 'http', 'ws', 'notes'] as const) {
    const lanes = all.filter((f) => f.transport === transport);
    if (lanes.length === 0) continue;
    const sum = (pick: (f: LaneFigures) => number) => String(lanes.reduce((total, f) => total + pick(f), 0));
    const peak = Math.max(...lanes.map((f) => f.rssPeakMb ?? 0));
    rows.push([
      `TOTAL ${transport}`,
      sum((f) => f.inputs),
      sum((f) => f.messages),
      sum((f) => f.crashes),
      sum((f) => f.hangs),
      sum((f) => f.violations),
      mb(peak || undefined),
      '',
      '',
      '',
    ]);
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ');
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const problems = all.filter((f) => f.examples.length > 0 || f.note);
  for (const f of problems) {
    out.push(
      '',
      `${f.name}${f.seed === undefined ? '' : ` (FUZZ_SEED=${f.seed})`}${f.note ? ` — ${f.note}` : ''}:`,
    );
    for (const example of f.examples) out.push(`  ${example}`);
    if (f.kinds) for (const [kind, count] of Object.entries(f.kinds)) out.push(`  ×${count}  ${kind}`);
  }
  return out.join('\n');
}

export function writeResultsFile(all: LaneFigures[]): void {
  writeFileSync(RESULTS_FILE, JSON.stringify({ generatedAt: new Date().toISOString(), lanes: all }, null, 2));
}
