import {
  type ConnectionHost,
  connectionHostOf,
  HostOriginPolicy,
  isApiKeyAuth,
  resolveHealthPaths,
} from '@gantry/core';
import { checkAuthOptions } from './auth';
import { InMemoryEventStore } from './event-store';
import { resolveMetrics } from './metrics-endpoint';
import type { GantryMcpOptions, ResolvedOptions } from './options';
import { checkTransportRateLimit } from './transport-rate-limit';

const KEYS = new Set([
  'app',
  'path',
  'mode',
  'responseMode',
  'sessions',
  'eventStore',
  'sse',
  'bodyLimit',
  'allowedHosts',
  'allowedOrigins',
  'cors',
  'legacySse',
  'auth',
  'health',
  'metrics',
  'rateLimit',
]);

function fail(message: string): never {
  throw new TypeError(`gantryMcp: ${message}`);
}

function positive(value: unknown, name: string, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    fail(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function path(value: unknown, name: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.startsWith('/'))
    fail(`${name} must be a path starting with '/', got ${JSON.stringify(value)}`);
  return value;
}

function strings(value: unknown, name: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    fail(`${name} must be an array of strings`);
  return value;
}

function hostOf(app: unknown): ConnectionHost {
  try {
    return connectionHostOf(app);
  } catch (error) {
    return fail(
      `options.app must be a Gantry application, from \`await GantryFactory.create(AppModule, { name, version })\` (${(error as Error).message})`,
    );
  }
}

/**
 * Checks the plugin options when it is registered, and fills in defaults. `host` is given by
 * the `http()` listener, which serves the host it was handed; the plugin serves `options.app`'s.
 */
export function resolveOptions(
  options: GantryMcpOptions | Omit<GantryMcpOptions, 'app'>,
  host?: ConnectionHost,
  /** Whether `health: undefined` means on (the `http()` listener) or off (the plugin). */
  healthByDefault = false,
): ResolvedOptions {
  if (typeof options !== 'object' || options === null)
    fail('options must be an object with at least { app }');
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key) && !['prefix', 'logLevel', 'logSerializers'].includes(key)) {
      fail(`unknown option '${key}'; known options are ${[...KEYS].join(', ')}`);
    }
  }
  host ??= hostOf((options as { app?: unknown }).app);
  const mode = options.mode ?? 'stateful';
  if (mode !== 'stateful' && mode !== 'stateless')
    fail(`mode must be 'stateful' or 'stateless', got ${JSON.stringify(mode)}`);
  const responseMode = options.responseMode ?? 'auto';
  if (!['auto', 'json', 'sse'].includes(responseMode))
    fail(`responseMode must be 'auto', 'json' or 'sse', got ${JSON.stringify(responseMode)}`);
  const cors =
    options.cors === undefined || options.cors === false
      ? undefined
      : options.cors === true
        ? { origins: '*' as const, maxAgeSec: 600 }
        : {
            origins:
              options.cors.origins === '*'
                ? ('*' as const)
                : (strings(options.cors.origins, 'cors.origins') ?? '*'),
            maxAgeSec: positive(options.cors.maxAgeSec, 'cors.maxAgeSec', 600, true),
          };
  const legacy =
    options.legacySse === false
      ? undefined
      : {
          ssePath: path(
            typeof options.legacySse === 'object' ? options.legacySse.ssePath : undefined,
            'legacySse.ssePath',
            '/sse',
          ),
          messagesPath: path(
            typeof options.legacySse === 'object' ? options.legacySse.messagesPath : undefined,
            'legacySse.messagesPath',
            '/messages',
          ),
        };
  if (options.eventStore !== undefined && options.eventStore !== false) {
    const store = options.eventStore as unknown as Record<string, unknown>;
    if (typeof store.storeEvent !== 'function' || typeof store.replayEventsAfter !== 'function') {
      fail('eventStore must implement storeEvent() and replayEventsAfter() (or be false)');
    }
  }
  const allowedHosts = strings(options.allowedHosts, 'allowedHosts')?.map((h) => h.toLowerCase());
  const allowedOrigins = strings(options.allowedOrigins, 'allowedOrigins')?.map((o) => o.toLowerCase());
  return {
    host,
    path: path(options.path, 'path', '/mcp'),
    mode,
    responseMode,
    idleTimeoutMs: positive(options.sessions?.idleTimeoutMs, 'sessions.idleTimeoutMs', 30 * 60_000),
    maxSessions: positive(options.sessions?.max, 'sessions.max', 10_000),
    replicaIdleMs: positive(options.sessions?.replicaIdleMs, 'sessions.replicaIdleMs', 30_000),
    eventStore: options.eventStore === false ? undefined : (options.eventStore ?? new InMemoryEventStore()),
    retryMs: positive(options.sse?.retryMs, 'sse.retryMs', 1000, true),
    keepAliveMs: positive(options.sse?.keepAliveMs, 'sse.keepAliveMs', 25_000, true),
    maxQueuedBytes: positive(options.sse?.maxQueuedBytes, 'sse.maxQueuedBytes', 16 * 1024 * 1024),
    bodyLimit: positive(options.bodyLimit, 'bodyLimit', 4 * 1024 * 1024),
    hostOrigin: new HostOriginPolicy({
      allowedHosts,
      allowedOrigins,
      // Origins served CORS are meant to call; `origins: '*'` exempts no one from the check.
      extraOrigins: cors && cors.origins !== '*' ? cors.origins : undefined,
    }),
    cors,
    legacySse: legacy,
    auth:
      options.auth === undefined || isApiKeyAuth(options.auth) ? undefined : checkAuthOptions(options.auth),
    apiKeys: isApiKeyAuth(options.auth) ? options.auth : undefined,
    health: resolveHealthPaths('gantryMcp', options.health, healthByDefault),
    metrics: resolveMetrics(options.metrics, fail),
    rateLimit: options.rateLimit === undefined ? undefined : checkTransportRateLimit(options.rateLimit),
  };
}
