/** One readiness check: whether it passes, and why not (a fixed sentence, never a secret). */
export interface ReadinessCheck {
  readonly ok: boolean;
  readonly error?: string;
}

/**
 * Whether the application should get new work, with every check by name: `bootstrapped`,
 * the cluster backend when there is one (named by `ClusterLink.backend`, e.g. `redis`), and
 * `draining`. `ready` is true when every check passes.
 */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, ReadinessCheck>>;
}

/** Where a transport serves the probes: `GET <healthPath>` (alive) and `GET <readyPath>` (ready). */
export interface HealthPaths {
  readonly healthPath: string;
  readonly readyPath: string;
}

/** The `health` option of a listener: on/off, or where the probes live. */
export type HealthOption = boolean | { healthPath?: string; readyPath?: string };

/** The `Retry-After` (seconds) of a 503 for readiness or drain: another node answers at once. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * Resolves a `health` option: undefined when off. `owner` names the option in errors
 * (e.g. `gantryMcp`), `enabledByDefault` is what `undefined` means.
 */
export function resolveHealthPaths(
  owner: string,
  option: HealthOption | undefined,
  enabledByDefault: boolean,
): HealthPaths | undefined {
  if (option === undefined ? !enabledByDefault : option === false) return undefined;
  if (option !== true && option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new TypeError(
      `${owner}: health must be true, false or { healthPath?, readyPath? }, got ${JSON.stringify(option)}`,
    );
  }
  const given = typeof option === 'object' ? option : {};
  for (const key of Object.keys(given)) {
    if (key !== 'healthPath' && key !== 'readyPath')
      throw new TypeError(
        `${owner}: unknown health option '${key}'; known options are healthPath, readyPath`,
      );
  }
  const path = (value: unknown, name: string, fallback: string): string => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !value.startsWith('/') || /[?#\s]/.test(value))
      throw new TypeError(
        `${owner}: health.${name} must be a path starting with '/' (no query), got ${JSON.stringify(value)}`,
      );
    return value;
  };
  const paths = {
    healthPath: path(given.healthPath, 'healthPath', '/healthz'),
    readyPath: path(given.readyPath, 'readyPath', '/readyz'),
  };
  if (paths.healthPath === paths.readyPath)
    throw new TypeError(
      `${owner}: health.healthPath and health.readyPath must differ (both ${paths.healthPath})`,
    );
  return paths;
}

/** An HTTP answer to a probe, for any HTTP stack. */
export interface ProbeAnswer {
  readonly status: 200 | 503;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const PROBE_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/**
 * The answer to `GET /healthz` (`'alive'`: the process serves HTTP, always 200
 * `{"status":"ok"}`) or `GET /readyz` (`'ready'`: 200 `{"status":"ready","checks":…}`, or 503
 * `{"status":"unavailable",…}` with `Retry-After` when a check fails). Nothing but fixed
 * sentences is reported: no addresses, URLs or credentials.
 */
export function probeAnswer(host: { readiness(): Readiness }, probe: 'alive' | 'ready'): ProbeAnswer {
  if (probe === 'alive') return { status: 200, headers: PROBE_HEADERS, body: '{"status":"ok"}' };
  const readiness = host.readiness();
  const body = JSON.stringify({
    status: readiness.ready ? 'ready' : 'unavailable',
    checks: readiness.checks,
  });
  if (readiness.ready) return { status: 200, headers: PROBE_HEADERS, body };
  return { status: 503, headers: { ...PROBE_HEADERS, 'retry-after': String(RETRY_AFTER_SECONDS) }, body };
}
