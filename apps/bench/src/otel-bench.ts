// The observability section (`--only-otel`): what OpenTelemetry costs a Gantry server. The
// same echo server runs three ways (servers/otel-mode.ts): `off` (telemetry.enabled false, no
// SDK: the instrumentation bypassed), `api` (no SDK, the default: only @opentelemetry/api's
// no-ops) and `sdk` (an SDK registered, every span sampled, exporters that drop). Each is
// measured over Streamable HTTP at 16 requests in flight and over stdio pipelined, the three
// taking turns in short slices as in the other sections, and compared with `off`.
import { join } from 'node:path';
import { measurePipelined, rotate } from './driver';
import { measureSlices } from './http-driver';
import { HttpMcpClient, HttpServerProcess, type HttpServerSpec } from './http-server-process';
import { startLoadWindow } from './machine-load';
import { formatNumber, table } from './report-tables';
import type { ServerSpec } from './server-process';
import { OTEL_MODE_ENV, OTEL_MODES, type OtelMode } from './servers/otel-mode';
import { median } from './stats';

export interface OtelSchedule {
  readonly rounds: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly sliceMs: number;
  /** stdio: requests outstanding at all times. */
  readonly inFlight: number;
}

type Measure = 'http16' | 'pipelined';

/** Per measure and mode: one value per round. */
export interface OtelResults {
  date: string;
  settings: OtelSchedule;
  otherLoad: (number | null)[];
  rounds: Record<Measure, Record<OtelMode, number[]>>;
  median: Record<Measure, Record<OtelMode, number>>;
  /** Per measure: `api` and `sdk` over `off`, of the medians and per round. */
  ratios: Record<Measure, Record<'api' | 'sdk', { ratio: number; rounds: number[] }>>;
}

/** At least this share of the baseline's throughput (issue 15). */
export const OTEL_TARGETS: Readonly<Record<'api' | 'sdk', number>> = { api: 0.98, sdk: 0.85 };

const HTTP_CONCURRENCY = 16;

function emptyByMode(): Record<OtelMode, number[]> {
  return { off: [], api: [], sdk: [] };
}

async function measureHttp16(specs: readonly HttpServerSpec[], schedule: OtelSchedule) {
  const servers: HttpServerProcess[] = [];
  const clients: HttpMcpClient[] = [];
  try {
    for (const spec of specs) {
      const server = await HttpServerProcess.start(spec);
      servers.push(server);
      const client = new HttpMcpClient(server, spec);
      clients.push(client);
      await client.initialize();
    }
    for (const client of clients) await client.slice(schedule.warmupMs, HTTP_CONCURRENCY);
    return await measureSlices(clients, servers, schedule, (client) =>
      client.slice(schedule.sliceMs, HTTP_CONCURRENCY),
    );
  } finally {
    for (const client of clients) client.close();
    await Promise.all(servers.map((server) => server.close()));
  }
}

/** Runs the section; `dist` is the directory of the compiled bench (servers/… below it). */
export async function runOtel(
  dist: string,
  schedule: OtelSchedule,
  progress: (line: string) => void,
): Promise<OtelResults> {
  const env = (mode: OtelMode) => ({ [OTEL_MODE_ENV]: mode });
  const httpSpecs: HttpServerSpec[] = OTEL_MODES.map((mode) => ({
    name: mode,
    script: join(dist, 'servers', 'http', 'gantry.js'),
    env: env(mode),
  }));
  const stdioSpecs: ServerSpec[] = OTEL_MODES.map((mode) => ({
    name: mode,
    script: join(dist, 'servers', 'gantry-echo.js'),
    env: env(mode),
  }));
  const rounds = { http16: emptyByMode(), pipelined: emptyByMode() };
  const otherLoad: (number | null)[] = [];
  for (let round = 0; round < schedule.rounds; round++) {
    progress(`observability round ${round + 1}/${schedule.rounds}`);
    const endLoadWindow = startLoadWindow();
    for (const [mode, result] of await measureHttp16(rotate(httpSpecs, round), schedule)) {
      rounds.http16[mode as OtelMode].push(result.requestsPerSecond);
      progress(`  ${mode.padEnd(4)} HTTP c=16   ${Math.round(result.requestsPerSecond)} req/s`);
    }
    for (const [mode, rate] of await measurePipelined(rotate(stdioSpecs, round), schedule)) {
      rounds.pipelined[mode as OtelMode].push(rate);
      progress(`  ${mode.padEnd(4)} stdio piped ${Math.round(rate)} msg/s`);
    }
    const load = endLoadWindow();
    otherLoad.push(load);
    if (load !== null)
      progress(`  other processes used ${(load * 100).toFixed(1)}% of the CPUs during the round`);
  }
  const medianOf = (byMode: Record<OtelMode, number[]>) =>
    Object.fromEntries(OTEL_MODES.map((mode) => [mode, median(byMode[mode])])) as Record<OtelMode, number>;
  const ratiosOf = (measure: Measure) => {
    const byMode = rounds[measure];
    const of = (mode: 'api' | 'sdk') => ({
      ratio: median(byMode[mode]) / median(byMode.off),
      rounds: byMode[mode].map((value, i) => value / byMode.off[i]),
    });
    return { api: of('api'), sdk: of('sdk') };
  };
  return {
    date: new Date().toISOString(),
    settings: schedule,
    otherLoad,
    rounds,
    median: { http16: medianOf(rounds.http16), pipelined: medianOf(rounds.pipelined) },
    ratios: { http16: ratiosOf('http16'), pipelined: ratiosOf('pipelined') },
  };
}

const MEASURE_LABELS: Record<Measure, string> = {
  http16: 'HTTP c=16 (req/s)',
  pipelined: 'stdio pipelined (msg/s)',
};

const MODE_LABELS: Record<OtelMode, string> = {
  off: 'off (telemetry.enabled false, no SDK)',
  api: 'API only (no SDK, the default)',
  sdk: 'SDK, dropping exporters',
};

export function renderOtelReport(results: OtelResults): string {
  const measures: Measure[] = ['http16', 'pipelined'];
  const rows = [['', ...measures.map((measure) => MEASURE_LABELS[measure])]];
  for (const mode of OTEL_MODES) {
    rows.push([
      MODE_LABELS[mode],
      ...measures.map((measure) => formatNumber(results.median[measure][mode], 0)),
    ]);
  }
  for (const mode of ['api', 'sdk'] as const) {
    rows.push([
      `${mode} ÷ off (target ≥ ${OTEL_TARGETS[mode]}×)`,
      ...measures.map((measure) => {
        const { ratio, rounds } = results.ratios[measure][mode];
        const verdict = ratio >= OTEL_TARGETS[mode] ? 'met' : 'MISSED';
        const range = `${formatNumber(Math.min(...rounds), 2)}–${formatNumber(Math.max(...rounds), 2)}`;
        return `${formatNumber(ratio, 3)} [${range}] ${verdict}`;
      }),
    ]);
  }
  return [
    'Observability: OpenTelemetry off, API only and SDK (Gantry echo server; medians of the rounds)',
    '',
    table(rows),
  ].join('\n');
}
