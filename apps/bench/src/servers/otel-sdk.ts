// The OpenTelemetry SDK the observability section measures: what `@opentelemetry/sdk-node`
// sets up (a NodeTracerProvider with the async-hooks context manager and the W3C propagator,
// a BatchSpanProcessor, a MeterProvider with a periodic reader), with exporters that drop what
// they get, so the cost measured is the instrumentation's and the SDK's, not a collector's.

import { metrics } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

const dropSpans: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => {},
};

const dropMetrics: PushMetricExporter = {
  export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
  forceFlush: async () => {},
  shutdown: async () => {},
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
};

/** Every span sampled and batched, metrics aggregated and collected every 10 s. */
export function registerDroppingSdk(): void {
  new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropSpans)] }).register();
  metrics.setGlobalMeterProvider(
    new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 10_000 })],
    }),
  );
}
