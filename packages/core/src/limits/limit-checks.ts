import { decoratorError } from '../decorators/decorator-error';
import type { RateLimitOptions } from './limit-types';

/** Largest delay setTimeout honours (about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

export function checkTimeout(ms: unknown, where: string): void {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw decoratorError(
      `${where}: the timeout must be a number of milliseconds in (0, ${MAX_TIMEOUT_MS}], got ${String(ms)}`,
    );
  }
}

export function checkRateLimitOptions(options: RateLimitOptions, where: string): void {
  if (!options || typeof options !== 'object') throw decoratorError(`${where} needs { points, duration }`);
  const { points, duration, by, name } = options;
  if (!Number.isInteger(points) || points < 1)
    throw decoratorError(`${where}: points must be an integer ≥ 1, got ${String(points)}`);
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0)
    throw decoratorError(`${where}: duration must be a positive number of seconds, got ${String(duration)}`);
  if (by !== undefined && typeof by !== 'function' && by !== 'principal' && by !== 'session' && by !== 'ip')
    throw decoratorError(
      `${where}: by must be 'principal', 'session', 'ip' or a function, got ${String(by)}`,
    );
  if (name !== undefined && (typeof name !== 'string' || name.length === 0))
    throw decoratorError(`${where}: name must be a non-empty string`);
}
