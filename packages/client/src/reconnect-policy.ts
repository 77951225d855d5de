/** When and how often an HTTP transport reconnects a server-sent event stream. */
export interface ReconnectOptions {
  /** Delay before the first reconnection when the server sent no `retry`; default 1 000 ms. */
  initialDelayMs: number;
  /** Cap of the doubling delay between failed attempts; default 30 000 ms. */
  maxDelayMs: number;
  /** Consecutive failed attempts tolerated before giving up; default 3. */
  maxRetries: number;
}

/** Defaults of {@link ReconnectOptions}. */
export const DEFAULT_RECONNECT_OPTIONS: Readonly<ReconnectOptions> = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetries: 3,
});

/** Fills in defaults and checks the values; a bad value is a programmer error and throws at once. */
export function resolveReconnectOptions(
  owner: string,
  options: Partial<ReconnectOptions> = {},
): ReconnectOptions {
  const resolved = { ...DEFAULT_RECONNECT_OPTIONS, ...options };
  for (const key of ['initialDelayMs', 'maxDelayMs', 'maxRetries'] as const) {
    const value = resolved[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`${owner}: reconnect.${key} must be a finite number ≥ 0 (got ${String(value)})`);
    }
  }
  if (!Number.isInteger(resolved.maxRetries)) {
    throw new TypeError(`${owner}: reconnect.maxRetries must be an integer (got ${resolved.maxRetries})`);
  }
  return resolved;
}

/**
 * The wait before the next attempt. After a clean end (`failures` 0) it is the server's
 * `retry` — 2025-11-25 transports: the client "MUST respect the retry field, waiting the
 * given number of milliseconds before attempting to reconnect" — or `initialDelayMs`. After
 * failures it doubles from `initialDelayMs` up to `maxDelayMs`, and is never shorter than `retry`.
 */
export function reconnectDelay(
  options: ReconnectOptions,
  retryMs: number | undefined,
  failures: number,
): number {
  if (failures <= 0) return retryMs ?? options.initialDelayMs;
  const backoff = Math.min(options.initialDelayMs * 2 ** (failures - 1), options.maxDelayMs);
  return Math.max(retryMs ?? 0, backoff);
}
