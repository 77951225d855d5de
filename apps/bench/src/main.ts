// `npm run bench`: tools/call of an echo tool, each server a child process, over stdio
// (Gantry with DTO and with JSON Schema arguments against the official SDK and a raw floor,
// driven by the same pipe driver; the Gantry servers also spoken to in the stateless era),
// over Streamable HTTP (Gantry's Fastify plugin against the official SDK v1 and v2 and a raw
// Fastify floor, driven by the same HTTP client; then the stateless era against SDK v2's
// createMcpHandler and the floor, with Gantry's session era beside them) and over WebSocket
// (Gantry's listener against a bare `ws` floor, with Gantry's HTTP server beside them at the
// same numbers of requests in flight). See README.md.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { type ClusterSchedule, measureCluster } from './cluster-driver';
import { missingInfra, startRedis } from './cluster-infra';
import { type ClusterReport, computeClusterRatios, renderClusterReport } from './cluster-report';
import { pinnableCpu } from './cpu-affinity';
import { measureColdStarts, measurePipelined, measureSequential, rotate, type ServerSpec } from './driver';
import {
  CONCURRENCIES,
  type HttpServerSpec,
  measureHttpThroughput,
  measureSessionMemory,
} from './http-driver';
import {
  computeHttpRatios,
  computeHttpTargets,
  HTTP_METRICS,
  HTTP_SERVER_LABELS,
  type HttpMetricKey,
  type HttpResults,
  type HttpServerResults,
  renderHttpReport,
} from './http-report';
import {
  computeHttpStatelessRatios,
  computeHttpStatelessTargets,
  HTTP_STATELESS_METRICS,
  HTTP_STATELESS_SERVER_LABELS,
  type HttpStatelessMetricKey,
  type HttpStatelessResults,
  type HttpStatelessServerResults,
  renderHttpStatelessReport,
} from './http-stateless-report';
import { startLoadWindow } from './machine-load';
import { type OtelResults, renderOtelReport, runOtel } from './otel-bench';
import {
  type BenchResults,
  computeRatios,
  computeStatelessRatios,
  METRICS,
  type MetricKey,
  renderReport,
  type ServerResults,
} from './report';
import type { MeasuredServer, Metric } from './report-tables';
import type { Era } from './server-process';
import { median } from './stats';
import { renderTasksReport, runTasks, type TasksResults } from './tasks-bench';
import { measureWsThroughput, type WsMode, type WsServerSpec } from './ws-driver';
import {
  computeWsRatios,
  computeWsTargets,
  renderWsReport,
  WS_METRICS,
  WS_SERVER_LABELS,
  type WsMetricKey,
  type WsResults,
  type WsServerResults,
} from './ws-report';

/** The stdio servers; a `-stateless` name is the same script spoken to in the stateless era. */
const SERVER_NAMES = [
  'gantry',
  'gantry-schema',
  'gantry-stateless',
  'gantry-schema-stateless',
  'sdk',
  'floor',
  'floor-stateless',
] as const;
type ServerName = (typeof SERVER_NAMES)[number];

/**
 * The stdio servers each `--era` runs: the session era's four, and for the stateless era the
 * Gantry variants and the floor in both eras (the ratio is stateless ÷ session era).
 */
const STDIO_BY_ERA: Record<'session' | 'stateless', readonly ServerName[]> = {
  session: ['gantry', 'gantry-schema', 'sdk', 'floor'],
  stateless: [
    'gantry',
    'gantry-schema',
    'gantry-stateless',
    'gantry-schema-stateless',
    'floor',
    'floor-stateless',
  ],
};

const HTTP_SERVER_NAMES = ['gantry', 'sdk', 'sdk-v2', 'floor'] as const;
type HttpServerName = (typeof HTTP_SERVER_NAMES)[number];

/**
 * The stateless-era HTTP servers: Gantry's HTTP server and SDK v2's createMcpHandler spoken to
 * in the stateless era, the floor sent the same requests, and Gantry's HTTP server in the
 * session era (the HTTP section's client) for comparison.
 */
const HTTP_STATELESS_SERVER_NAMES = ['gantry-stateless', 'sdk-v2-stateless', 'floor', 'gantry'] as const;
type HttpStatelessServerName = (typeof HTTP_STATELESS_SERVER_NAMES)[number];

const WS_SERVER_NAMES = ['gantry', 'floor', 'gantry-http'] as const;
type WsServerName = (typeof WS_SERVER_NAMES)[number];

/** The servers with sessions, whose memory per session is measured. */
const SESSION_SERVERS: readonly string[] = ['gantry', 'sdk', 'sdk-v2'];

/** Packages a server needs beyond the workspace's own, checked before it is run. */
const SDK_V2_PACKAGES = [
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/fastify',
];
const OPTIONAL_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  'sdk-v2': SDK_V2_PACKAGES,
  'sdk-v2-stateless': SDK_V2_PACKAGES,
};

/** Durations and counts of one run; `--quick` is a smoke check, not a measurement. */
const NORMAL = { rounds: 3, warmupMs: 1000, durationMs: 3000, sliceMs: 250, inFlight: 64, coldSpawns: 10 };
const QUICK = { rounds: 1, warmupMs: 200, durationMs: 500, sliceMs: 100, inFlight: 64, coldSpawns: 3 };
type Settings = typeof NORMAL;

const HTTP_NORMAL = {
  rounds: 3,
  warmupMs: 1000,
  primeMs: 200,
  durationMs: 1500,
  sliceMs: 250,
  sessions: 1000,
  warmupSessions: 50,
};
const HTTP_QUICK = {
  rounds: 1,
  warmupMs: 200,
  primeMs: 50,
  durationMs: 300,
  sliceMs: 100,
  sessions: 200,
  warmupSessions: 20,
};
type HttpSettings = typeof HTTP_NORMAL;

/** The cluster section: about 40 s, or a smoke check with `--quick`. */
const CLUSTER_NORMAL: ClusterSchedule = {
  warmupMs: 1000,
  rounds: 3,
  durationMs: 3000,
  sliceMs: 250,
  concurrency: 16,
  countMs: 1000,
  notifications: 200,
  warmupNotifications: 20,
  sessions: 2000,
  warmupSessions: 100,
  replicaIdleMs: 200,
};
const CLUSTER_QUICK: ClusterSchedule = {
  ...CLUSTER_NORMAL,
  warmupMs: 200,
  rounds: 1,
  durationMs: 500,
  sliceMs: 100,
  countMs: 300,
  notifications: 50,
  warmupNotifications: 5,
  sessions: 200,
  warmupSessions: 20,
};

const USAGE = `usage: node apps/bench/dist/main.js [--quick] [--only-stdio | --only-http | --only-ws | --only-cluster | --only-otel | --only-tasks] [--era session|stateless|both] [--only <servers>] [--json] [--no-pin] [--cpu-prof]
  --quick       short durations and one round: a smoke check, not a measurement
  --only-stdio  only the stdio section
  --only-http   only the Streamable HTTP sections (session era and stateless era)
  --only-ws     only the WebSocket section
  --only-cluster only the cluster section (@gantry/redis: nodes with sessions in a real
                redis-server, one alone and three behind a real nginx; session era; needs
                redis-server and nginx, and is left out with a note when they are missing)
  --only-otel   only the observability section (not part of a full run): the Gantry echo
                server with OpenTelemetry off, API only and with an SDK, over HTTP at c=16
                and stdio pipelined (about 2 minutes; --era and --only do not apply)
  --only-tasks  only the tasks section (not part of a full run): a trivial tool as a task in
                both eras, with the tasks in memory and in a real redis-server, beside the same
                tool called normally; and tasks/get throughput (--era and --only do not apply)
  --era         session: only the session era (MCP 2025-11-25), as the benchmark was before the
                stateless era; stateless: only the stateless-era measurements (2026-07-28: stdio
                gantry-stateless and gantry-schema-stateless beside gantry, gantry-schema and floor,
                and the stateless HTTP section); both (the default): everything
  --only        the servers to run, comma-separated; stdio has gantry, gantry-schema, sdk, floor
                (gantry takes a class-validator DTO, gantry-schema a plain JSON Schema) and
                gantry-stateless, gantry-schema-stateless (the same servers in the stateless era),
                HTTP has gantry, sdk, sdk-v2, floor, stateless HTTP has gantry-stateless,
                sdk-v2-stateless, floor, gantry (the session era, for comparison), WebSocket has
                gantry, floor, gantry-http (Gantry's HTTP server as the reference); each
                section runs those of its own it is given
  --json        print the results as JSON instead of tables (progress still goes to stderr)
  --no-pin      do not pin driver and server to one CPU (stdio sequential, HTTP and WebSocket at c=1)
  --cpu-prof    profile the HTTP servers (node --cpu-prof) into apps/bench/results/profiles/`;

interface Flags {
  quick: boolean;
  json: boolean;
  pin: boolean;
  cpuProf: boolean;
  stdio: boolean;
  http: boolean;
  httpStateless: boolean;
  ws: boolean;
  cluster: boolean;
  otel: boolean;
  tasks: boolean;
  only: ServerName[];
  onlyHttp: HttpServerName[];
  onlyHttpStateless: HttpStatelessServerName[];
  onlyWs: WsServerName[];
}

const ERAS = ['session', 'stateless', 'both'] as const;

function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = {
    quick: false,
    json: false,
    pin: true,
    cpuProf: false,
    stdio: true,
    http: true,
    httpStateless: true,
    ws: true,
    cluster: true,
    otel: false,
    tasks: false,
    only: [...SERVER_NAMES],
    onlyHttp: [...HTTP_SERVER_NAMES],
    onlyHttpStateless: [...HTTP_STATELESS_SERVER_NAMES],
    onlyWs: [...WS_SERVER_NAMES],
  };
  let onlyStdio = false;
  let onlyHttp = false;
  let onlyWs = false;
  let onlyCluster = false;
  let onlyGiven = false;
  let era: (typeof ERAS)[number] = 'both';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') flags.quick = true;
    else if (arg === '--json') flags.json = true;
    else if (arg === '--no-pin') flags.pin = false;
    else if (arg === '--cpu-prof') flags.cpuProf = true;
    else if (arg === '--only-stdio') onlyStdio = true;
    else if (arg === '--only-http') onlyHttp = true;
    else if (arg === '--only-ws') onlyWs = true;
    else if (arg === '--only-cluster') onlyCluster = true;
    else if (arg === '--only-otel') flags.otel = true;
    else if (arg === '--only-tasks') flags.tasks = true;
    else if (arg === '--era' || arg.startsWith('--era=')) {
      const value = arg === '--era' ? argv[++i] : arg.slice('--era='.length);
      if (!(ERAS as readonly string[]).includes(value ?? '')) {
        throw new Error(`--era takes one of ${ERAS.join(', ')}; got '${value ?? ''}'\n${USAGE}`);
      }
      era = value as (typeof ERAS)[number];
    } else if (arg === '--only' || arg.startsWith('--only=')) {
      const list = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      [flags.only, flags.onlyHttp, flags.onlyHttpStateless, flags.onlyWs] = parseServerList(list ?? '');
      onlyGiven = true;
    } else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'\n${USAGE}`);
  }
  if ([onlyStdio, onlyHttp, onlyWs, onlyCluster, flags.otel, flags.tasks].filter(Boolean).length > 1) {
    throw new Error(
      `--only-stdio, --only-http, --only-ws, --only-cluster, --only-otel and --only-tasks exclude each other\n${USAGE}`,
    );
  }
  if (flags.otel || flags.tasks) {
    if (onlyGiven || era !== 'both')
      throw new Error(`--only-otel and --only-tasks take neither --only nor --era\n${USAGE}`);
    return { ...flags, stdio: false, http: false, httpStateless: false, ws: false, cluster: false };
  }
  const all = !onlyStdio && !onlyHttp && !onlyWs && !onlyCluster;
  const session = era !== 'stateless';
  const stateless = era !== 'session';
  const stdioEra = [...(session ? STDIO_BY_ERA.session : []), ...(stateless ? STDIO_BY_ERA.stateless : [])];
  flags.only = flags.only.filter((name) => stdioEra.includes(name));
  flags.stdio = (all || onlyStdio) && flags.only.length > 0;
  flags.http = (all || onlyHttp) && session && flags.onlyHttp.length > 0;
  flags.httpStateless = (all || onlyHttp) && stateless && flags.onlyHttpStateless.length > 0;
  flags.ws = (all || onlyWs) && session && flags.onlyWs.length > 0;
  // The cluster section has no servers to choose among: --only leaves it out unless it is all that was asked for.
  flags.cluster = (onlyCluster || (all && !onlyGiven)) && session;
  if (!flags.stdio && !flags.http && !flags.httpStateless && !flags.ws && !flags.cluster) {
    throw new Error(
      `nothing to run: the servers given to --only are not in the section and era chosen ` +
        `(WebSocket has no stateless-era measurements)\n${USAGE}`,
    );
  }
  return flags;
}

/**
 * The stdio, HTTP, stateless HTTP and WebSocket servers among the names given, each in its
 * section's canonical order.
 */
function parseServerList(
  list: string,
): [ServerName[], HttpServerName[], HttpStatelessServerName[], WsServerName[]] {
  const names = list.split(',').filter((name) => name !== '');
  const known: readonly string[] = [
    ...SERVER_NAMES,
    ...HTTP_SERVER_NAMES,
    ...HTTP_STATELESS_SERVER_NAMES,
    ...WS_SERVER_NAMES,
  ];
  const unknown = names.filter((name) => !known.includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `--only takes a comma-separated list of ${[...new Set(known)].join(', ')}; got '${list}'`,
    );
  }
  // Keep the canonical order so tables always read gantry, gantry-schema, sdk, floor.
  return [
    SERVER_NAMES.filter((name) => names.includes(name)),
    HTTP_SERVER_NAMES.filter((name) => names.includes(name)),
    HTTP_STATELESS_SERVER_NAMES.filter((name) => names.includes(name)),
    WS_SERVER_NAMES.filter((name) => names.includes(name)),
  ];
}

const STATELESS_SUFFIX = '-stateless';

/** A `-stateless` name: the server of the name without it, spoken to in the stateless era. */
function eraOf(name: string): [base: string, era: Era] {
  return name.endsWith(STATELESS_SUFFIX)
    ? [name.slice(0, -STATELESS_SUFFIX.length), 'stateless']
    : [name, 'session'];
}

function serverSpec(name: ServerName): ServerSpec {
  const [base, era] = eraOf(name);
  const script = join(__dirname, 'servers', `${base}-echo.js`);
  if (!existsSync(script)) {
    throw new Error(
      `${relative(process.cwd(), script)} does not exist: did 'tsc -b' build it? ` +
        `(to run without it: --only ${SERVER_NAMES.filter((other) => eraOf(other)[0] !== base).join(',')})`,
    );
  }
  return { name, script, era };
}

function httpServerSpec(name: HttpServerName): HttpServerSpec {
  const script = join(__dirname, 'servers', 'http', `${name}.js`);
  if (!existsSync(script)) {
    throw new Error(`${relative(process.cwd(), script)} does not exist: did 'tsc -b' build it?`);
  }
  return { name, script };
}

/**
 * A stateless-era HTTP server: `gantry-stateless` is the HTTP section's Gantry server,
 * `sdk-v2-stateless` its own script (SDK v2's createMcpHandler), `floor` the HTTP floor sent the
 * stateless-era requests (it answers them as any other: no resultType), `gantry` the HTTP
 * section's Gantry server and client, session era.
 */
function httpStatelessServerSpec(name: HttpStatelessServerName): HttpServerSpec {
  const file = name === 'gantry-stateless' ? 'gantry' : name;
  const script = join(__dirname, 'servers', 'http', `${file}.js`);
  if (!existsSync(script)) {
    throw new Error(`${relative(process.cwd(), script)} does not exist: did 'tsc -b' build it?`);
  }
  if (name === 'gantry') return { name, script };
  return { name, script, era: 'stateless', expectComplete: name !== 'floor' };
}

function wsServerSpec(name: WsServerName): WsServerSpec {
  const [dir, file, transport] =
    name === 'gantry-http' ? ['http', 'gantry', 'http' as const] : ['ws', name, 'ws' as const];
  const script = join(__dirname, 'servers', dir, `${file}.js`);
  if (!existsSync(script)) {
    throw new Error(`${relative(process.cwd(), script)} does not exist: did 'tsc -b' build it?`);
  }
  return { name, script, transport };
}

/** The packages among `OPTIONAL_PACKAGES[name]` that cannot be resolved from here. */
function missingPackages(name: string): string[] {
  return (OPTIONAL_PACKAGES[name] ?? []).filter((pkg) => {
    try {
      require.resolve(pkg);
      return false;
    } catch {
      return true;
    }
  });
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * Runs `count` rounds of `measure`, each announced as `${title} round i/count` and watched for the
 * CPU other processes use, then sets each server's median of each metric over the rounds (null
 * where not measured). Returns the share of the CPUs other processes used, per round.
 */
async function measureRounds<K extends string>(
  title: string,
  count: number,
  measure: (round: number) => Promise<void>,
  perServer: ReadonlyMap<string, MeasuredServer<K>>,
  metrics: readonly Metric<K>[],
): Promise<(number | null)[]> {
  const otherLoad: (number | null)[] = [];
  for (let round = 0; round < count; round++) {
    progress(`${title} round ${round + 1}/${count}`);
    const endLoadWindow = startLoadWindow();
    await measure(round);
    const load = endLoadWindow();
    otherLoad.push(load);
    if (load !== null) {
      progress(`  other processes used ${(load * 100).toFixed(1)}% of the CPUs during the round`);
    }
  }
  for (const result of perServer.values()) {
    for (const metric of metrics) {
      const values = result.rounds[metric.key];
      result.median[metric.key] = values.length === 0 ? null : median(values);
    }
  }
  return otherLoad;
}

async function runRound(
  specs: readonly ServerSpec[],
  settings: Settings,
  sequentialCpu: number | null,
  results: Map<string, ServerResults>,
) {
  const rounds = (name: string) => results.get(name)!.rounds;
  const line = (name: string, text: string) => progress(`  ${name.padEnd(20)} ${text}`);

  for (const [name, { msgsPerSecond: rate }] of await measurePipelined(specs, settings)) {
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
  // Cold start is spawn → initialize answered: the stateless era has no handshake to time.
  const sessionSpecs = specs.filter((spec) => (spec.era ?? 'session') === 'session');
  for (const [name, samples] of await measureColdStarts(sessionSpecs, settings.coldSpawns)) {
    const ms = median(samples);
    rounds(name).coldStart.push(ms);
    line(name, `cold start  ${ms.toFixed(1)} ms (median of ${samples.length})`);
  }
}

function machineInfo() {
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
  };
}

async function runStdio(flags: Flags, sequentialCpu: number | null): Promise<BenchResults> {
  const settings = flags.quick ? QUICK : NORMAL;
  const specs = flags.only.map(serverSpec);
  const perServer = new Map<string, ServerResults>(
    specs.map((spec) => [spec.name, { rounds: emptyRounds(), median: {} as ServerResults['median'] }]),
  );

  const otherLoad = await measureRounds(
    'stdio',
    settings.rounds,
    async (round) => {
      await runRound(rotate(specs, round), settings, sequentialCpu, perServer);
    },
    perServer,
    METRICS,
  );

  return {
    date: new Date().toISOString(),
    machine: { ...machineInfo(), otherLoad },
    settings: { ...settings, quick: flags.quick, sequentialCpu },
    servers: Object.fromEntries(perServer),
  };
}

async function runHttpRound(
  specs: readonly HttpServerSpec[],
  settings: HttpSettings,
  latencyCpu: number | null,
  cpuProfDir: string | undefined,
  results: Map<string, HttpServerResults>,
) {
  const rounds = (name: string) => results.get(name)!.rounds;
  const line = (name: string, text: string) =>
    progress(`  ${(HTTP_SERVER_LABELS[name] ?? name).padEnd(8)} ${text}`);
  const throughput = await measureHttpThroughput(specs, settings, latencyCpu, cpuProfDir);
  for (const [name, byConcurrency] of throughput) {
    for (const [concurrency, result] of byConcurrency) {
      rounds(name)[`rps${concurrency}` as HttpMetricKey].push(result.requestsPerSecond);
      if (concurrency === 1) {
        rounds(name).p50.push(result.p50Us);
        rounds(name).p99.push(result.p99Us);
      }
      if (concurrency === 16 && result.serverCpuUs !== null) rounds(name).cpu16.push(result.serverCpuUs);
    }
    const rates = [...byConcurrency].map(([c, result]) => `c=${c} ${Math.round(result.requestsPerSecond)}`);
    const c1 = byConcurrency.get(1)!;
    const cpu = [...byConcurrency].map(([c, result]) => `c=${c} ${result.serverCpuUs?.toFixed(1) ?? '?'}`);
    line(
      name,
      `${rates.join(', ')} req/s; p50 ${c1.p50Us.toFixed(1)} µs, p99 ${c1.p99Us.toFixed(1)} µs at c=1; ` +
        `server CPU/req ${cpu.join(', ')} µs`,
    );
  }
  for (const spec of specs.filter((candidate) => SESSION_SERVERS.includes(candidate.name))) {
    const memory = await measureSessionMemory(spec, settings);
    rounds(spec.name).rssPerSession.push(memory.rssPerSession / 1024);
    rounds(spec.name).heapPerSession.push(memory.heapPerSession / 1024);
    line(
      spec.name,
      `per idle session: RSS ${(memory.rssPerSession / 1024).toFixed(1)} KiB, heap ${(memory.heapPerSession / 1024).toFixed(1)} KiB`,
    );
  }
}

async function runHttp(flags: Flags, latencyCpu: number | null): Promise<HttpResults> {
  const settings = flags.quick ? HTTP_QUICK : HTTP_NORMAL;
  const notInstalled: Record<string, string> = {};
  const names = flags.onlyHttp.filter((name) => {
    const missing = missingPackages(name);
    if (missing.length === 0) return true;
    notInstalled[name] = `npm install ${missing.join(' ')} (in apps/bench)`;
    progress(`note: ${HTTP_SERVER_LABELS[name]} left out, not installed: ${missing.join(', ')}`);
    return false;
  });
  const specs = names.map(httpServerSpec);
  let cpuProfDir: string | undefined;
  if (flags.cpuProf) {
    cpuProfDir = resolve(__dirname, '..', 'results', 'profiles');
    mkdirSync(cpuProfDir, { recursive: true });
    progress(`CPU profiles of the HTTP servers go to ${relative(process.cwd(), cpuProfDir)}`);
  }
  const perServer = new Map<string, HttpServerResults>(
    specs.map((spec) => [
      spec.name,
      { rounds: emptyHttpRounds(), median: {} as HttpServerResults['median'] },
    ]),
  );

  const otherLoad = await measureRounds(
    'HTTP',
    settings.rounds,
    async (round) => {
      if (specs.length > 0)
        await runHttpRound(rotate(specs, round), settings, latencyCpu, cpuProfDir, perServer);
    },
    perServer,
    HTTP_METRICS,
  );

  return {
    date: new Date().toISOString(),
    machine: { ...machineInfo(), otherLoad },
    settings: { ...settings, concurrencies: CONCURRENCIES, quick: flags.quick, latencyCpu },
    servers: Object.fromEntries(perServer),
    notInstalled,
  };
}

async function runHttpStateless(flags: Flags, latencyCpu: number | null): Promise<HttpStatelessResults> {
  const settings = flags.quick ? HTTP_QUICK : HTTP_NORMAL;
  const notInstalled: Record<string, string> = {};
  const names = flags.onlyHttpStateless.filter((name) => {
    const missing = missingPackages(name);
    if (missing.length === 0) return true;
    notInstalled[name] = `npm install ${missing.join(' ')} (in apps/bench)`;
    progress(`note: ${HTTP_STATELESS_SERVER_LABELS[name]} left out, not installed: ${missing.join(', ')}`);
    return false;
  });
  const specs = names.map(httpStatelessServerSpec);
  let cpuProfDir: string | undefined;
  if (flags.cpuProf) {
    cpuProfDir = resolve(__dirname, '..', 'results', 'profiles');
    mkdirSync(cpuProfDir, { recursive: true });
  }
  const perServer = new Map<string, HttpStatelessServerResults>(
    specs.map((spec) => [
      spec.name,
      {
        rounds: Object.fromEntries(
          HTTP_STATELESS_METRICS.map((metric) => [metric.key, [] as number[]]),
        ) as Record<HttpStatelessMetricKey, number[]>,
        median: {} as HttpStatelessServerResults['median'],
      },
    ]),
  );

  const otherLoad = await measureRounds(
    'HTTP stateless era',
    settings.rounds,
    async (round) => {
      if (specs.length > 0) {
        const throughput = await measureHttpThroughput(
          rotate(specs, round),
          settings,
          latencyCpu,
          cpuProfDir,
        );
        for (const [name, byConcurrency] of throughput) {
          const rounds = perServer.get(name)!.rounds;
          for (const [concurrency, result] of byConcurrency) {
            rounds[`rps${concurrency}` as HttpStatelessMetricKey].push(result.requestsPerSecond);
            if (concurrency === 1) {
              rounds.p50.push(result.p50Us);
              rounds.p99.push(result.p99Us);
            }
            if (concurrency === 16 && result.serverCpuUs !== null) rounds.cpu16.push(result.serverCpuUs);
          }
          const rates = [...byConcurrency].map(
            ([c, result]) => `c=${c} ${Math.round(result.requestsPerSecond)}`,
          );
          const c1 = byConcurrency.get(1)!;
          const cpu = [...byConcurrency].map(
            ([c, result]) => `c=${c} ${result.serverCpuUs?.toFixed(1) ?? '?'}`,
          );
          progress(
            `  ${(HTTP_STATELESS_SERVER_LABELS[name] ?? name).padEnd(18)} ${rates.join(', ')} req/s; ` +
              `p50 ${c1.p50Us.toFixed(1)} µs, p99 ${c1.p99Us.toFixed(1)} µs at c=1; server CPU/req ${cpu.join(', ')} µs`,
          );
        }
      }
    },
    perServer,
    HTTP_STATELESS_METRICS,
  );

  return {
    date: new Date().toISOString(),
    machine: { ...machineInfo(), otherLoad },
    settings: {
      rounds: settings.rounds,
      warmupMs: settings.warmupMs,
      primeMs: settings.primeMs,
      durationMs: settings.durationMs,
      sliceMs: settings.sliceMs,
      concurrencies: CONCURRENCIES,
      quick: flags.quick,
      latencyCpu,
    },
    servers: Object.fromEntries(perServer),
    notInstalled,
  };
}

const WS_MODE_METRIC: Record<WsMode, WsMetricKey> = { c1: 'rps1', c16: 'rps16', c64: 'rps64' };

async function runWs(
  flags: Flags,
  latencyCpu: number | null,
  stdio: BenchResults | null,
): Promise<WsResults> {
  const settings = flags.quick ? HTTP_QUICK : HTTP_NORMAL;
  const specs = flags.onlyWs.map(wsServerSpec);
  const perServer = new Map<string, WsServerResults>(
    specs.map((spec) => [
      spec.name,
      {
        rounds: Object.fromEntries(WS_METRICS.map((metric) => [metric.key, [] as number[]])) as Record<
          WsMetricKey,
          number[]
        >,
        median: {} as WsServerResults['median'],
      },
    ]),
  );
  const otherLoad = await measureRounds(
    'WebSocket',
    settings.rounds,
    async (round) => {
      const results = await measureWsThroughput(rotate(specs, round), settings, latencyCpu);
      for (const [name, byMode] of results) {
        const rounds = perServer.get(name)!.rounds;
        for (const [mode, result] of byMode) {
          rounds[WS_MODE_METRIC[mode]].push(result.requestsPerSecond);
          if (mode === 'c1') {
            rounds.p50.push(result.p50Us);
            rounds.p99.push(result.p99Us);
          }
          if (mode === 'c16' && result.serverCpuUs !== null) rounds.cpu16.push(result.serverCpuUs);
          if (mode === 'c64' && result.serverCpuUs !== null) rounds.cpu64.push(result.serverCpuUs);
        }
        const rates = [...byMode].map(([mode, result]) => `${mode} ${Math.round(result.requestsPerSecond)}`);
        const c1 = byMode.get('c1')!;
        const cpu = [...byMode].map(([mode, result]) => `${mode} ${result.serverCpuUs?.toFixed(1) ?? '?'}`);
        progress(
          `  ${(WS_SERVER_LABELS[name] ?? name).padEnd(11)} ${rates.join(', ')} req/s; ` +
            `p50 ${c1.p50Us.toFixed(1)} µs, p99 ${c1.p99Us.toFixed(1)} µs at c=1; server CPU/req ${cpu.join(', ')} µs`,
        );
      }
    },
    perServer,
    WS_METRICS,
  );
  const schema = stdio?.servers['gantry-schema'];
  const pipelined = schema?.median.pipelined ?? null;
  const sequential = schema?.median.sequential ?? null;
  return {
    date: new Date().toISOString(),
    machine: { ...machineInfo(), otherLoad },
    settings: {
      rounds: settings.rounds,
      warmupMs: settings.warmupMs,
      primeMs: settings.primeMs,
      durationMs: settings.durationMs,
      sliceMs: settings.sliceMs,
      quick: flags.quick,
      latencyCpu,
    },
    servers: Object.fromEntries(perServer),
    stdio: pipelined !== null && sequential !== null ? { pipelined, sequential } : null,
  };
}

async function runCluster(flags: Flags): Promise<ClusterReport | null> {
  const missing = missingInfra();
  if (missing.length > 0) {
    progress(`note: the cluster section is left out, not installed: ${missing.join('; ')}`);
    return null;
  }
  const settings = flags.quick ? CLUSTER_QUICK : CLUSTER_NORMAL;
  progress('cluster (redis-server, nginx, Gantry nodes)');
  const results = await measureCluster(settings, progress);
  return {
    date: new Date().toISOString(),
    machine: machineInfo(),
    settings: { ...settings, quick: flags.quick },
    results,
  };
}

/** The tasks section, with a redis-server of its own when one is installed. */
async function runTasksSection(flags: Flags): Promise<TasksResults> {
  const schedule = flags.quick
    ? { rounds: 1, trips: 50, sliceMs: 300 }
    : { rounds: 5, trips: 400, sliceMs: 2000 };
  const redisMissing = missingInfra().filter((line) => line.includes('redis'));
  if (redisMissing.length > 0)
    return runTasks(__dirname, schedule, { reason: redisMissing.join('; ') }, progress);
  const redis = await startRedis();
  try {
    return await runTasks(__dirname, schedule, { url: `redis://127.0.0.1:${redis.port}` }, progress);
  } finally {
    await redis.stop();
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const pinCpu = flags.pin ? pinnableCpu() : null;
  if (flags.pin && pinCpu === null) progress('note: cannot pin to a CPU here (needs Linux and taskset)');

  const stdio = flags.stdio ? await runStdio(flags, pinCpu) : null;
  const http = flags.http ? await runHttp(flags, pinCpu) : null;
  const httpStateless = flags.httpStateless ? await runHttpStateless(flags, pinCpu) : null;
  const ws = flags.ws ? await runWs(flags, pinCpu, stdio) : null;
  const cluster = flags.cluster ? await runCluster(flags) : null;
  const otel: OtelResults | null = flags.otel
    ? await runOtel(__dirname, flags.quick ? QUICK : NORMAL, progress)
    : null;
  const tasks: TasksResults | null = flags.tasks ? await runTasksSection(flags) : null;

  const file = resolve(__dirname, '..', 'results', 'latest.json');
  mkdirSync(resolve(file, '..'), { recursive: true });
  const json = JSON.stringify(
    {
      stdio: stdio && {
        ...stdio,
        ratios: computeRatios(stdio),
        statelessRatios: computeStatelessRatios(stdio),
      },
      http: http && { ...http, ratios: computeHttpRatios(http), targets: computeHttpTargets(http) },
      httpStateless: httpStateless && {
        ...httpStateless,
        ratios: computeHttpStatelessRatios(httpStateless),
        targets: computeHttpStatelessTargets(httpStateless),
      },
      ws: ws && { ...ws, ratios: computeWsRatios(ws), targets: computeWsTargets(ws) },
      cluster: cluster && { ...cluster, ratios: computeClusterRatios(cluster) },
      otel: otel && { ...otel, machine: machineInfo() },
      tasks: tasks && { ...tasks, machine: machineInfo() },
    },
    null,
    2,
  );
  writeFileSync(file, `${json}\n`);

  if (flags.json) console.log(json);
  else {
    const sections = [];
    if (stdio) sections.push(renderReport(stdio));
    if (http) sections.push(renderHttpReport(http));
    if (httpStateless) sections.push(renderHttpStatelessReport(httpStateless));
    if (ws) sections.push(renderWsReport(ws));
    if (cluster) sections.push(renderClusterReport(cluster));
    if (otel) sections.push(renderOtelReport(otel));
    if (tasks) sections.push(renderTasksReport(tasks));
    console.log(sections.join(`\n\n${'─'.repeat(100)}\n\n`));
  }
  progress(`results written to ${relative(process.cwd(), file)}`);
}

function emptyRounds(): Record<MetricKey, number[]> {
  return Object.fromEntries(METRICS.map((metric) => [metric.key, [] as number[]])) as Record<
    MetricKey,
    number[]
  >;
}

function emptyHttpRounds(): Record<HttpMetricKey, number[]> {
  return Object.fromEntries(HTTP_METRICS.map((metric) => [metric.key, [] as number[]])) as Record<
    HttpMetricKey,
    number[]
  >;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
