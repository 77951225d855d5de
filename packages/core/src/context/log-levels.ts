import type { LoggingLevel } from '@gantry/protocol';

/** RFC 5424 severities, least severe first (2025-11-25 logging). */
export const LOG_LEVELS: readonly LoggingLevel[] = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}
