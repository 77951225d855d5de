import type { GantryServerOptions } from './server-options';

/** How a draining application waits: `drainDelayMs`, then `shutdownGraceMs` (checked). */
export interface DrainTimes {
  readonly graceMs: number;
  readonly delayMs: number;
}

/** Default `shutdownGraceMs`: what a Kubernetes pod gets before SIGKILL (30 s) leaves room for. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

function milliseconds(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  // setTimeout's range: longer would fire at once.
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 2_147_483_647) {
    throw new RangeError(
      `${name} must be a number of milliseconds from 0 to 2147483647, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Checks `shutdownGraceMs` and `drainDelayMs` of `GantryFactory.create`, filling in defaults. */
export function resolveDrainTimes(options: GantryServerOptions): DrainTimes {
  return {
    graceMs: milliseconds(options.shutdownGraceMs, 'shutdownGraceMs', DEFAULT_SHUTDOWN_GRACE_MS),
    delayMs: milliseconds(options.drainDelayMs, 'drainDelayMs', 0),
  };
}
