// OpenTelemetry for the notes server, configured from the environment variables the OpenTelemetry
// specification defines (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
// and https://opentelemetry.io/docs/specs/otel/protocol/exporter/). Gantry itself only calls
// @opentelemetry/api; this file is the "bring your own SDK" half, done for the example app.
import type { MetricsExporter } from '@gantry/fastify';
import type * as OtlpMetricsPackage from '@opentelemetry/exporter-metrics-otlp-http';
import type * as PrometheusPackage from '@opentelemetry/exporter-prometheus';
import type * as OtlpTracePackage from '@opentelemetry/exporter-trace-otlp-http';
import type * as MetricsSdk from '@opentelemetry/sdk-metrics';
import type * as NodeSdkPackage from '@opentelemetry/sdk-node';

/** What `main.ts` does with the telemetry of this process. */
export interface Telemetry {
  /** Whether the SDK runs (`OTEL_EXPORTER_OTLP_ENDPOINT` was set). */
  readonly sdk: boolean;
  /** The `metrics` option of `http()`: off, Gantry's own provider, or the SDK's Prometheus reader. */
  readonly metrics: false | true | { exporter: MetricsExporter };
  /** Flushes what is buffered and stops the SDK; safe to call more than once. */
  shutdown(): Promise<void>;
}

const DEFAULT_SERVICE_NAME = 'gantry-notes';
/** The specification's defaults for the periodic metric reader. */
const DEFAULT_EXPORT_INTERVAL_MS = 60_000;
const DEFAULT_EXPORT_TIMEOUT_MS = 30_000;

/** A positive whole number of milliseconds from `name`, or `fallback` when it is unset. */
function millis(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive number of milliseconds, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Starts `@opentelemetry/sdk-node` when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: traces and metrics
 * go over OTLP/HTTP to `<endpoint>/v1/traces` and `<endpoint>/v1/metrics` (the exporters read the
 * endpoint, headers and per-signal overrides from the environment themselves). The service name
 * is `OTEL_SERVICE_NAME`, default `gantry-notes`; `OTEL_BSP_SCHEDULE_DELAY` and
 * `OTEL_METRIC_EXPORT_INTERVAL` set how often spans and metrics are sent.
 *
 * Call it before the app is created, so that Gantry's instruments see the SDK's providers. The
 * SDK packages are required here, lazily: a process without the variable never loads them.
 *
 * `metrics` (`--metrics`): serve `GET /metrics`. With the SDK, a Prometheus exporter becomes one
 * more of its metric readers, so the same instruments reach both OTLP and Prometheus; without it,
 * `http({ metrics: true })` registers a meter provider of its own.
 */
export function startTelemetry(env: NodeJS.ProcessEnv, options: { metrics: boolean }): Telemetry {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || endpoint === '') {
    return { sdk: false, metrics: options.metrics, shutdown: async () => {} };
  }
  let protocol: string | undefined;
  try {
    protocol = new URL(endpoint).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new Error(
      `OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL such as http://collector:4318, got ${JSON.stringify(endpoint)}`,
    );
  }
  const exportIntervalMillis = millis(env, 'OTEL_METRIC_EXPORT_INTERVAL', DEFAULT_EXPORT_INTERVAL_MS);
  // The reader refuses a timeout longer than its interval.
  const exportTimeoutMillis = Math.min(
    millis(env, 'OTEL_METRIC_EXPORT_TIMEOUT', DEFAULT_EXPORT_TIMEOUT_MS),
    exportIntervalMillis,
  );

  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof NodeSdkPackage;
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpTracePackage;
  const { OTLPMetricExporter } =
    require('@opentelemetry/exporter-metrics-otlp-http') as typeof OtlpMetricsPackage;
  const { PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics') as typeof MetricsSdk;

  const readers: MetricsSdk.IMetricReader[] = [
    new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter(),
      exportIntervalMillis,
      exportTimeoutMillis,
    }),
  ];
  let prometheus: PrometheusPackage.PrometheusExporter | undefined;
  if (options.metrics) {
    const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus') as typeof PrometheusPackage;
    // Fastify serves the endpoint (`http({ metrics: { exporter } })`), not the exporter's own server.
    prometheus = new PrometheusExporter({ preventServerStart: true });
    readers.push(prometheus);
  }
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME,
    // OTLP/HTTP with JSON bodies; the batch span processor reads OTEL_BSP_* itself.
    traceExporter: new OTLPTraceExporter(),
    metricReaders: readers,
  });
  sdk.start();
  let stopped: Promise<void> | undefined;
  return {
    sdk: true,
    metrics: prometheus ? { exporter: prometheus } : false,
    shutdown: () => {
      stopped ??= sdk.shutdown().catch((error: unknown) => {
        process.stderr.write(`gantry-notes: OpenTelemetry shutdown failed: ${String(error)}\n`);
      });
      return stopped;
    },
  };
}
