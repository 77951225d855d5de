import type { MeterProvider, TracerProvider } from '@opentelemetry/api';

/**
 * OpenTelemetry settings of an application (`GantryFactory.create(…, { telemetry })`). Gantry
 * depends only on `@opentelemetry/api`: without an SDK registered every span and measurement is
 * a no-op, and nothing is set up here. With one (`@opentelemetry/sdk-node`), each MCP request
 * gets a SERVER span and a `mcp.server.operation.duration` measurement.
 */
export interface TelemetryOptions {
  /**
   * false: no spans and no measurements from this app, even with an SDK registered (the SDK
   * still serves the rest of the process); default true.
   */
  enabled?: boolean;
  /**
   * Spans for guards, argument validation and interceptors inside each handler's span; default
   * false (they cost a span each per request).
   */
  detailedSpans?: boolean;
  /** The provider of Gantry's tracer; default the global one (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /**
   * The provider of Gantry's meter; default the global one (`metrics.getMeterProvider()`),
   * looked up again on use, so a provider registered after the app was created is picked up.
   */
  meterProvider?: MeterProvider;
  /**
   * Put the resource URI in the span name of `resources/read` and `resources/(un)subscribe`
   * (`resources/read notes://1`); default false, as the conventions advise: URIs make span names of
   * unbounded cardinality. The URI is always in the `mcp.resource.uri` attribute.
   */
  resourceUriInSpanName?: boolean;
}
