import type { TaskStore } from './task-store';

/** The app's `tasks` option: where tasks live and the limits they run under. */
export interface TasksOptions {
  /**
   * Where tasks are kept. Default: the cluster's shared store when `@gantry/redis` is
   * configured, else this process's memory.
   */
  store?: TaskStore;
  /** How long a finished task is kept when the client asks for no ttl (ms from creation). Default 1 hour. */
  defaultTtlMs?: number;
  /** The longest ttl granted; a client asking for more gets this. Default 24 hours. */
  maxTtlMs?: number;
  /** How often clients are told to poll (`pollInterval` / `pollIntervalMs`). Default 1000 ms. */
  pollIntervalMs?: number;
  /** Unfinished tasks one principal (or unauthenticated session) may have at once. Default 32. */
  maxActivePerPrincipal?: number;
  /** The largest result a task keeps, as JSON bytes; a larger one fails the task. Default 1 MiB. */
  maxResultBytes?: number;
  /**
   * How long a node's claim on a running task lasts without renewal. A task whose node stopped
   * turns `failed` once its lease runs out. Default 30 s (renewed every third of it).
   */
  leaseMs?: number;
}

/** `TasksOptions` with every default applied and checked. */
export interface TaskSettings {
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly maxActivePerPrincipal: number;
  readonly maxResultBytes: number;
  readonly leaseMs: number;
}

const DEFAULTS: TaskSettings = {
  defaultTtlMs: 3_600_000,
  maxTtlMs: 86_400_000,
  pollIntervalMs: 1000,
  maxActivePerPrincipal: 32,
  maxResultBytes: 1024 * 1024,
  leaseMs: 30_000,
};

/** Applies the defaults; a value that is not a positive integer is refused with its name. */
export function resolveTaskSettings(options: TasksOptions | undefined): TaskSettings {
  const settings: Record<string, number> = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof TaskSettings)[]) {
    const value = options?.[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`tasks.${key} must be a positive integer, got ${String(value)}`);
    }
    settings[key] = value;
  }
  if (settings.defaultTtlMs > settings.maxTtlMs) {
    throw new RangeError(
      `tasks.defaultTtlMs (${settings.defaultTtlMs}) must not exceed tasks.maxTtlMs (${settings.maxTtlMs})`,
    );
  }
  return settings as unknown as TaskSettings;
}
