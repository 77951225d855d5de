// What the observability section (`--only-otel`) changes in a Gantry echo server, chosen by
// the GANTRY_BENCH_OTEL environment variable its parent sets:
//   off  `telemetry: { enabled: false }` and no SDK: the instrumentation bypassed (the baseline)
//   api  no SDK: only @opentelemetry/api, whose calls are no-ops (what every user gets by default)
//   sdk  an SDK registered as an operator would (./otel-sdk.ts), exporting to nowhere
// Unset, the server is as in every other section (the same as `api`).
import type { TelemetryOptions } from '@gantry/core';

export const OTEL_MODES = ['off', 'api', 'sdk'] as const;
export type OtelMode = (typeof OTEL_MODES)[number];

export const OTEL_MODE_ENV = 'GANTRY_BENCH_OTEL';

/** Registers the SDK when asked to, and returns the app's telemetry option. */
export async function benchTelemetry(): Promise<TelemetryOptions | undefined> {
  const mode = process.env[OTEL_MODE_ENV];
  if (mode === undefined || mode === '' || mode === 'api') return undefined;
  if (mode === 'off') return { enabled: false };
  if (mode === 'sdk') {
    // Loaded only here, so that no other server pays for the SDK's modules.
    const { registerDroppingSdk } = await import('./otel-sdk.js');
    registerDroppingSdk();
    return undefined;
  }
  throw new Error(`${OTEL_MODE_ENV} must be one of ${OTEL_MODES.join(', ')}; got '${mode}'`);
}
