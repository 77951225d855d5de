// `npm run bench`: stdio tools/call of an echo tool, Gantry (DTO and JSON Schema arguments)
// against the official SDK and a raw floor, each server a child process driven by the same
// pipe driver. See README.md.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pinnableCpu } from './cpu-affinity';
import { measureColdStarts, measurePipelined, measureSequential, rotate, type ServerSpec } from './driver';
import { startLoadWindow } from './machine-load';
import {
  type BenchResults,
  computeRatios,
  METRICS,
  type MetricKey,
  renderReport,
  type ServerResults,
} from './report';
import { median } from './stats';

const SERVER_NAMES = ['gantry', 'gantry-schema', 'sdk', 'floor'] as const;
type ServerName = (typeof SERVER_NAMES)[number];

/** Durations and counts of one run; `--quick` is a smoke check, not a measurement. */
const NORMAL = { rounds: 3, warmupMs: 1000, durationMs: 3000, sliceMs: 250, inFlight: 64, coldSpawns: 10 };
const QUICK = { rounds: 1, warmupMs: 200, durationMs: 500, sliceMs: 100, inFlight: 64, coldSpawns: 3 };
type Settings = typeof NORMAL;

const USAGE = `usage: node apps/bench/dist/main.js [--quick] [--only gantry,gantry-schema,sdk,floor] [--json] [--no-pin]
  --quick   short durations and one round: a smoke check, not a measurement
  --only    the servers to run, comma-separated (default: all four; gantry takes a class-validator
            DTO, gantry-schema a plain JSON Schema)
  --json    print the results as JSON instead of tables (progress still goes to stderr)
  --no-pin  do not pin driver and server to one CPU for the sequential measurement`;

interface Flags {
  quick: boolean;
  json: boolean;
  pin: boolean;
  only: ServerName[];
}

function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = { quick: false, json: false, pin: true, only: [...SERVER_NAMES] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') flags.quick = true;
    else if (arg === '--json') flags.json = true;
    else if (arg === '--no-pin') flags.pin = false;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const list = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      flags.only = parseServerList(list ?? '');
    } else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'\n${USAGE}`);
  }
  return flags;
}

function parseServerList(list: string): ServerName[] {
  const names = list.split(',').filter((name) => name !== '');
  const unknown = names.filter((name) => !(SERVER_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes a comma-separated list of ${SERVER_NAMES.join(', ')}; got '${list}'`);
  }
  // Keep the canonical order so tables always read gantry, gantry-schema, sdk, floor.
  return SERVER_NAMES.filter((name) => names.includes(name));
}

function serverSpec(name: ServerName): ServerSpec {
  const script = join(__dirname, 'servers', `${name}-echo.js`);
  if (!existsSync(script)) {
    throw new Error(
      `${relative(process.cwd(), script)} does not exist: did 'tsc -b' build it? ` +
        `(to run without it: --only ${SERVER_NAMES.filter((other) => other !== name).join(',')})`,
    );
  }
  return { name, script };
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

async function runRound(
  specs: readonly ServerSpec[],
  settings: Settings,
  sequentialCpu: number | null,
  results: Map<string, ServerResults>,
) {
  const rounds = (name: string) => results.get(name)!.rounds;
  const line = (name: string, text: string) => progress(`  ${name.padEnd(13)} ${text}`);

  for (const [name, rate] of await measurePipelined(specs, settings)) {
    rounds(name).pipelined.push(rate);
    line(name, `pipelined   ${Math.round(rate)} msg/s`);
  }
  for (const [name, result] of await measureSequential(specs, settings, sequentialCpu)) {
    rounds(name).sequential.push(result.msgsPerSecond);
    rounds(name).p50.push(result.p50Us);
    rounds(name).p99.push(result.p99Us);
    line(
      name,
      `sequential  ${Math.round(result.msgsPerSecond)} msg/s, p50 ${result.p50Us.toFixed(1)} µs, p99 ${result.p99Us.toFixed(1)} µs`,
    );
  }
  for (const [name, samples] of await measureColdStarts(specs, settings.coldSpawns)) {
    const ms = median(samples);
    rounds(name).coldStart.push(ms);
    line(name, `cold start  ${ms.toFixed(1)} ms (median of ${samples.length})`);
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const settings = flags.quick ? QUICK : NORMAL;
  const specs = flags.only.map(serverSpec);
  const sequentialCpu = flags.pin ? pinnableCpu() : null;
  if (flags.pin && sequentialCpu === null)
    progress('note: cannot pin to a CPU here (needs Linux and taskset)');
  const perServer = new Map<string, ServerResults>(
    specs.map((spec) => [spec.name, { rounds: emptyRounds(), median: {} as Record<MetricKey, number> }]),
  );

  const otherLoad: (number | null)[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    progress(`round ${round + 1}/${settings.rounds}`);
    const endLoadWindow = startLoadWindow();
    await runRound(rotate(specs, round), settings, sequentialCpu, perServer);
    const load = endLoadWindow();
    otherLoad.push(load);
    if (load !== null) {
      progress(`  other processes used ${(load * 100).toFixed(1)}% of the CPUs during the round`);
    }
  }
  for (const result of perServer.values()) {
    for (const metric of METRICS) result.median[metric.key] = median(result.rounds[metric.key]);
  }

  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      otherLoad,
    },
    settings: { ...settings, quick: flags.quick, sequentialCpu },
    servers: Object.fromEntries(perServer),
  };
  const file = resolve(__dirname, '..', 'results', 'latest.json');
  mkdirSync(resolve(file, '..'), { recursive: true });
  const json = JSON.stringify({ ...results, ratios: computeRatios(results) }, null, 2);
  writeFileSync(file, `${json}\n`);

  if (flags.json) console.log(json);
  else console.log(renderReport(results));
  progress(`results written to ${relative(process.cwd(), file)}`);
}

function emptyRounds(): Record<MetricKey, number[]> {
  return Object.fromEntries(METRICS.map((metric) => [metric.key, [] as number[]])) as Record<
    MetricKey,
    number[]
  >;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
