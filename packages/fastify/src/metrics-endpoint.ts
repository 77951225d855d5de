import type { Logger } from '@gantry/core';
import { metrics } from '@opentelemetry/api';
import type * as PrometheusPackage from '@opentelemetry/exporter-prometheus';
import type * as MetricsSdk from '@opentelemetry/sdk-metrics';
import type { FastifyInstance } from 'fastify';

/**
 * Where `/metrics` reads from: an OpenTelemetry metric reader, in practice a `PrometheusExporter`
 * from `@opentelemetry/exporter-prometheus` (any reader's `collect()` will do). Typed by shape so
 * that `@gantry/fastify`'s types do not need the optional package installed.
 */
export interface MetricsExporter {
  collect(): Promise<{ resourceMetrics: unknown; errors: unknown[] }>;
}

/** The `metrics` option in its object form. */
export interface MetricsOptions {
  /** Path of the exposition endpoint, under the plugin's prefix. Default `/metrics`. */
  path?: string;
  /**
   * The reader to serve, already added to your `MeterProvider` (or to `NodeSDK`'s
   * `metricReaders`). Without it Gantry creates a `PrometheusExporter` and registers a
   * `MeterProvider` reading into it as the global one; it must be given when a global meter
   * provider is registered already (for instance by `@opentelemetry/sdk-node`).
   */
  exporter?: MetricsExporter;
}

/** The `metrics` option with defaults applied. */
export interface ResolvedMetrics {
  readonly path: string;
  readonly exporter: MetricsExporter | undefined;
}

/** Prometheus text exposition format 0.0.4, what every Prometheus scraper accepts. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const PACKAGES = '@opentelemetry/exporter-prometheus and @opentelemetry/sdk-metrics';

interface Libraries {
  prometheus: typeof PrometheusPackage;
  sdk: typeof MetricsSdk;
}

/** The optional peer packages, loaded when `metrics` is on, so an app without it never needs them. */
function libraries(): Libraries {
  try {
    return {
      prometheus: require('@opentelemetry/exporter-prometheus') as typeof PrometheusPackage,
      sdk: require('@opentelemetry/sdk-metrics') as typeof MetricsSdk,
    };
  } catch (error) {
    throw new Error(
      `gantryMcp: the metrics option needs ${PACKAGES}; install them with ` +
        `\`npm install @opentelemetry/exporter-prometheus @opentelemetry/sdk-metrics\` (${(error as Error).message})`,
    );
  }
}

/**
 * The exporter and provider Gantry registered itself, shared by every endpoint of this process
 * (two apps with `metrics: true` serve the same global provider) and released with the last one.
 */
let owned: { exporter: MetricsExporter; provider: MetricsSdk.MeterProvider; users: number } | undefined;

function acquireOwnExporter(sdk: typeof MetricsSdk, prometheus: typeof PrometheusPackage): MetricsExporter {
  if (owned && metrics.getMeterProvider() === owned.provider) {
    owned.users++;
    return owned.exporter;
  }
  // Never starts the exporter's own HTTP server: Fastify serves the endpoint.
  const exporter = new prometheus.PrometheusExporter({ preventServerStart: true });
  const provider = new sdk.MeterProvider({ readers: [exporter] });
  if (!metrics.setGlobalMeterProvider(provider)) {
    void provider.shutdown();
    throw new TypeError(
      'gantryMcp: metrics: a global OpenTelemetry meter provider is registered already (by ' +
        '@opentelemetry/sdk-node, or your own MeterProvider), and Gantry does not replace it. Create ' +
        "`new PrometheusExporter({ preventServerStart: true })` from '@opentelemetry/exporter-prometheus', " +
        'add it to that provider as a reader (NodeSDK: `metricReaders: [..., exporter]`), and pass ' +
        '`metrics: { exporter }`.',
    );
  }
  owned = { exporter, provider, users: 1 };
  return exporter;
}

async function releaseOwnExporter(exporter: MetricsExporter): Promise<void> {
  if (!owned || owned.exporter !== exporter || --owned.users > 0) return;
  const { provider } = owned;
  owned = undefined;
  if (metrics.getMeterProvider() === provider) metrics.disable();
  await provider.shutdown();
}

/**
 * Serves `GET <path>` with the Prometheus text exposition of every OpenTelemetry metric of the
 * process: Gantry's own (`mcp.server.operation.duration`, sessions, streams) and the app's.
 *
 * Why OpenTelemetry's Prometheus exporter and not `prom-client`: Gantry records its metrics once,
 * through the OpenTelemetry metrics API. The exporter is one more reader of those same instruments,
 * so a deployment can push OTLP to a collector, be scraped by Prometheus, or both, with no second
 * set of counters kept in step with the first (which `prom-client` would need).
 *
 * The route sits inside the plugin's encapsulated context: the Host/Origin checks apply (a page
 * in a browser cannot read a local server's metrics through DNS rebinding), MCP authentication does
 * not (Prometheus scrapes without the MCP bearer token). Bind it where only the scraper can reach
 * it, or guard it with your own Fastify hook.
 */
export function registerMetricsEndpoint(
  fastify: FastifyInstance,
  options: ResolvedMetrics,
  logger: Logger,
): void {
  const { prometheus, sdk } = libraries();
  const exporter = options.exporter ?? acquireOwnExporter(sdk, prometheus);
  // The exporter's own defaults (no prefix, no timestamps, target_info and scope labels).
  const serializer = new prometheus.PrometheusSerializer();
  fastify.get(options.path, async (_request, reply) => {
    const { resourceMetrics, errors } = await exporter.collect();
    if (errors.length > 0)
      logger.warn(`metrics: ${errors.length} collection error(s): ${errors.map(String).join('; ')}`);
    reply.header('content-type', EXPOSITION_CONTENT_TYPE);
    return serializer.serialize(resourceMetrics as MetricsSdk.ResourceMetrics);
  });
  if (options.exporter === undefined) fastify.addHook('onClose', async () => releaseOwnExporter(exporter));
}

/** Checks the `metrics` option; undefined when it is off. */
export function resolveMetrics(
  value: unknown,
  fail: (message: string) => never,
): ResolvedMetrics | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { path: '/metrics', exporter: undefined };
  if (typeof value !== 'object' || value === null)
    fail(`metrics must be true, false or { path?, exporter? }, got ${JSON.stringify(value)}`);
  const { path = '/metrics', exporter, ...rest } = value as MetricsOptions;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) fail(`metrics: unknown option '${unknown[0]}'; known options are path, exporter`);
  if (typeof path !== 'string' || !path.startsWith('/'))
    fail(`metrics.path must be a path starting with '/', got ${JSON.stringify(path)}`);
  if (exporter !== undefined && typeof (exporter as { collect?: unknown }).collect !== 'function')
    fail('metrics.exporter must be a metric reader with collect(), such as a PrometheusExporter');
  return { path, exporter };
}
