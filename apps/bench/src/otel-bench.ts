// The observability section (`--only-otel`): what OpenTelemetry costs a Gantry server. The
// same echo server runs three ways (servers/otel-mode.ts): `off` (telemetry.enabled false, no
// SDK: the instrumentation bypassed), `api` (no SDK, the default: only @opentelemetry/api's
// no-ops) and `sdk` (an SDK registered, every span sampled, exporters that drop). Each is
// measured over Streamable HTTP at 16 requests in flight and over stdio pipelined, the three
// taking turns in short slices as in the other sections, and compared with `off`. Beside them
// the floors of those transports run without and with the least instrumentation semantic
// conventions ask (servers/otel-floor.ts) under the same SDK: what the SDK costs a request
// there is the SDK's own price, and Gantry's extra over it is Gantry's.
import { join } from 'node:path';
import { measurePipelined, rotate } from './driver';
import { measureSlices } from './http-driver';
import { HttpMcpClient, HttpServerProcess, type HttpServerSpec } from './http-server-process';
import { startLoadWindow } from './machine-load';
import { formatNumber, table, verdictOf } from './report-tables';
import type { ServerSpec } from './server-process';
import { OTEL_MODE_ENV, type OtelMode } from './servers/otel-mode';
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

/** The floors, without and with the SDK (servers/otel-floor.ts). */
type Variant = OtelMode | 'floor-off' | 'floor-sdk';

/** Each variant: which server runs (Gantry's or the floor) and in which OpenTelemetry mode. */
const VARIANT_RUNS: Readonly<Record<Variant, { readonly floor: boolean; readonly mode: OtelMode }>> = {
  off: { floor: false, mode: 'off' },
  api: { floor: false, mode: 'api' },
  sdk: { floor: false, mode: 'sdk' },
  'floor-off': { floor: true, mode: 'off' },
  'floor-sdk': { floor: true, mode: 'sdk' },
};
const VARIANTS = Object.keys(VARIANT_RUNS) as Variant[];

/** Per measure and variant: one value per round. */
export interface OtelResults {
  date: string;
  settings: OtelSchedule;
  otherLoad: (number | null)[];
  rounds: Record<Measure, Record<Variant, number[]>>;
  median: Record<Measure, Record<Variant, number>>;
  /**
   * Per measure and variant: µs of the server's own CPU per answer, one value per round (null
   * where /proc cannot be read), and their median. Throughput also carries the driver, which
   * shares the 2 CPUs with the server; this is what a request costs the server alone.
   */
  cpuUs: Record<Measure, Record<Variant, (number | null)[]>>;
  cpuMedian: Record<Measure, Record<Variant, number | null>>;
  /** Per measure: `api` and `sdk` over `off`, and `floor-sdk` over `floor-off`, of the medians and per round. */
  ratios: Record<Measure, Record<'api' | 'sdk' | 'floor', { ratio: number; rounds: number[] }>>;
  /**
   * Per measure: what the SDK adds to one request, in µs of the server's time (from the
   * medians: 1/sdk − 1/off), in Gantry and in the floor; Gantry's own share is the difference.
   */
  sdkCostUs: Record<Measure, { gantry: number; floor: number }>;
  /** The same from the server's CPU time (median CPU per answer with the SDK − without); null where unread. */
  sdkCpuCostUs: Record<Measure, { gantry: number | null; floor: number | null }>;
}

/** At least this share of the baseline's throughput (issue 15). */
export const OTEL_TARGETS: Readonly<Record<'api' | 'sdk', number>> = { api: 0.98, sdk: 0.85 };

const HTTP_CONCURRENCY = 16;

function emptyByVariant<T>(): Record<Variant, T[]> {
  return Object.fromEntries(VARIANTS.map((variant) => [variant, []])) as unknown as Record<Variant, T[]>;
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
  const servers = join(dist, 'servers');
  const specsOf = (gantry: string, floor: string) =>
    VARIANTS.map((variant) => ({
      name: variant,
      script: join(servers, VARIANT_RUNS[variant].floor ? floor : gantry),
      env: { [OTEL_MODE_ENV]: VARIANT_RUNS[variant].mode },
    }));
  const httpSpecs: HttpServerSpec[] = specsOf(join('http', 'gantry.js'), join('http', 'floor.js'));
  const stdioSpecs: ServerSpec[] = specsOf('gantry-echo.js', 'floor-echo.js');
  const rounds = { http16: emptyByVariant<number>(), pipelined: emptyByVariant<number>() };
  const cpuUs = { http16: emptyByVariant<number | null>(), pipelined: emptyByVariant<number | null>() };
  const cpuText = (us: number | null) => (us === null ? '' : `, ${us.toFixed(1)} µs CPU each`);
  const otherLoad: (number | null)[] = [];
  for (let round = 0; round < schedule.rounds; round++) {
    progress(`observability round ${round + 1}/${schedule.rounds}`);
    const endLoadWindow = startLoadWindow();
    for (const [variant, result] of await measureHttp16(rotate(httpSpecs, round), schedule)) {
      rounds.http16[variant as Variant].push(result.requestsPerSecond);
      cpuUs.http16[variant as Variant].push(result.serverCpuUs);
      progress(
        `  ${variant.padEnd(9)} HTTP c=16   ${Math.round(result.requestsPerSecond)} req/s${cpuText(result.serverCpuUs)}`,
      );
    }
    for (const [variant, result] of await measurePipelined(rotate(stdioSpecs, round), schedule)) {
      rounds.pipelined[variant as Variant].push(result.msgsPerSecond);
      cpuUs.pipelined[variant as Variant].push(result.serverCpuUs);
      progress(
        `  ${variant.padEnd(9)} stdio piped ${Math.round(result.msgsPerSecond)} msg/s${cpuText(result.serverCpuUs)}`,
      );
    }
    const load = endLoadWindow();
    otherLoad.push(load);
    if (load !== null)
      progress(`  other processes used ${(load * 100).toFixed(1)}% of the CPUs during the round`);
  }
  const medianOf = (byVariant: Record<Variant, number[]>) =>
    Object.fromEntries(VARIANTS.map((variant) => [variant, median(byVariant[variant])])) as Record<
      Variant,
      number
    >;
  const ratiosOf = (measure: Measure) => {
    const byVariant = rounds[measure];
    const of = (variant: Variant, base: Variant) => ({
      ratio: median(byVariant[variant]) / median(byVariant[base]),
      rounds: byVariant[variant].map((value, i) => value / byVariant[base][i]),
    });
    return { api: of('api', 'off'), sdk: of('sdk', 'off'), floor: of('floor-sdk', 'floor-off') };
  };
  const medians = { http16: medianOf(rounds.http16), pipelined: medianOf(rounds.pipelined) };
  const costOf = (measure: Measure) => {
    const m = medians[measure];
    const added = (withSdk: number, without: number) => 1e6 / withSdk - 1e6 / without;
    return { gantry: added(m.sdk, m.off), floor: added(m['floor-sdk'], m['floor-off']) };
  };
  const cpuMedianOf = (byVariant: Record<Variant, (number | null)[]>) =>
    Object.fromEntries(
      VARIANTS.map((variant) => {
        const values = byVariant[variant];
        return [variant, values.includes(null) ? null : median(values as number[])];
      }),
    ) as Record<Variant, number | null>;
  const cpuMedian = { http16: cpuMedianOf(cpuUs.http16), pipelined: cpuMedianOf(cpuUs.pipelined) };
  const cpuCostOf = (measure: Measure) => {
    const m = cpuMedian[measure];
    const added = (withSdk: number | null, without: number | null) =>
      withSdk === null || without === null ? null : withSdk - without;
    return { gantry: added(m.sdk, m.off), floor: added(m['floor-sdk'], m['floor-off']) };
  };
  return {
    date: new Date().toISOString(),
    settings: schedule,
    otherLoad,
    rounds,
    median: medians,
    cpuUs,
    cpuMedian,
    ratios: { http16: ratiosOf('http16'), pipelined: ratiosOf('pipelined') },
    sdkCostUs: { http16: costOf('http16'), pipelined: costOf('pipelined') },
    sdkCpuCostUs: { http16: cpuCostOf('http16'), pipelined: cpuCostOf('pipelined') },
  };
}

const MEASURE_LABELS: Record<Measure, string> = {
  http16: 'HTTP c=16 (req/s)',
  pipelined: 'stdio pipelined (msg/s)',
};

const VARIANT_LABELS: Record<Variant, string> = {
  off: 'off (telemetry.enabled false, no SDK)',
  api: 'API only (no SDK, the default)',
  sdk: 'SDK, dropping exporters',
  'floor-off': 'floor, no SDK',
  'floor-sdk': 'floor, least instrumentation, same SDK',
};

export function renderOtelReport(results: OtelResults): string {
  const measures: Measure[] = ['http16', 'pipelined'];
  const rows = [['', ...measures.map((measure) => MEASURE_LABELS[measure])]];
  for (const variant of VARIANTS) {
    rows.push([
      VARIANT_LABELS[variant],
      ...measures.map((measure) => formatNumber(results.median[measure][variant], 0)),
    ]);
  }
  const ratioCell = (measure: Measure, which: 'api' | 'sdk' | 'floor') => {
    const { ratio, rounds } = results.ratios[measure][which];
    return `${formatNumber(ratio, 3)} [${formatNumber(Math.min(...rounds), 2)}–${formatNumber(Math.max(...rounds), 2)}]`;
  };
  for (const mode of ['api', 'sdk'] as const) {
    rows.push([
      `${mode} ÷ off (target ≥ ${OTEL_TARGETS[mode]}×)`,
      ...measures.map((measure) => {
        const { ratio, rounds } = results.ratios[measure][mode];
        const verdict = verdictOf((value) => value >= OTEL_TARGETS[mode], ratio, rounds);
        return `${ratioCell(measure, mode)} ${verdict === 'missed' ? 'MISSED' : verdict}`;
      }),
    ]);
  }
  rows.push(['floor with SDK ÷ floor', ...measures.map((measure) => ratioCell(measure, 'floor'))]);
  rows.push([
    'µs the SDK adds per request: Gantry / floor',
    ...measures.map((measure) => {
      const { gantry, floor } = results.sdkCostUs[measure];
      return `${formatNumber(gantry, 1)} / ${formatNumber(floor, 1)}`;
    }),
  ]);
  const us = (value: number | null) => (value === null ? '–' : formatNumber(value, 1));
  const cpuRow = (label: string, variants: readonly Variant[]) => [
    label,
    ...measures.map((measure) =>
      variants.map((variant) => us(results.cpuMedian[measure][variant])).join(' · '),
    ),
  ];
  rows.push(cpuRow('server CPU µs per answer: off · api · sdk', ['off', 'api', 'sdk']));
  rows.push(cpuRow('server CPU µs per answer: floor · with SDK', ['floor-off', 'floor-sdk']));
  rows.push([
    'server CPU µs the SDK adds: Gantry / floor',
    ...measures.map((measure) => {
      const { gantry, floor } = results.sdkCpuCostUs[measure];
      return `${us(gantry)} / ${us(floor)}`;
    }),
  ]);
  return [
    'Observability: OpenTelemetry off, API only and SDK (Gantry echo server; medians of the rounds)',
    '',
    table(rows),
    '',
    'Ratios of medians with the lowest–highest ratio of a single round in brackets; met/MISSED when',
    'they all agree, unclear when the rounds disagree. Throughput includes the driver, which shares',
    'the machine with the server; the CPU rows are the server process alone.',
  ].join('\n');
}
