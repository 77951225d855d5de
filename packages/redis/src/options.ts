import { type Cluster, Redis } from 'ioredis';

/** An ioredis client: standalone (or Sentinel) `Redis`, or `Cluster`. */
export type RedisConnection = Redis | Cluster;

/** Options of {@link redisEventStore}. */
export interface RedisEventStoreOptions {
  /**
   * An ioredis client (`new Redis(…)` or `new Cluster(…)`), which the store uses but never
   * closes; or a `redis://` / `rediss://` URL, for which the store opens a client of its own
   * and closes it in `close()`.
   */
  redis: RedisConnection | string;
  /** Prefix of every key the store writes. Default `gantry:events:`. No `{` or `}`. */
  prefix?: string;
  /** Events kept per stream; older ones are dropped. Default 1000. */
  maxEventsPerStream?: number;
  /** Bytes of events (their JSON size) kept per stream; the oldest are dropped first. Default 16 MiB. */
  maxBytesPerStream?: number;
  /** Lifetime of a stream after its last write, in milliseconds. Default 1 hour. */
  ttlMs?: number;
  /**
   * Called when a `dropStream()` fails: the transport does not await it, so its failure would
   * otherwise be lost. Default: a process warning.
   */
  onError?: (error: Error) => void;
  /** Events read per XRANGE while replaying: the most held in memory at once. Default 100. */
  replayBatchSize?: number;
}

/** Options after validation, with defaults applied. */
export interface ResolvedRedisEventStoreOptions {
  readonly redis: RedisConnection;
  readonly ownsClient: boolean;
  readonly prefix: string;
  readonly maxEvents: number;
  readonly maxBytes: number;
  readonly ttlMs: number;
  readonly batchSize: number;
  readonly onError: (error: Error) => void;
}

function fail(problem: string): never {
  throw new TypeError(`redisEventStore: ${problem}`);
}

function whole(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    fail(`${name} must be a whole number ≥ 1 (got ${String(value)})`);
  }
  return value;
}

function connection(redis: unknown): { redis: RedisConnection; ownsClient: boolean } {
  if (typeof redis === 'string') {
    if (!/^rediss?:\/\//.test(redis)) {
      fail(`redis must be an ioredis client or a redis:// or rediss:// URL (got ${JSON.stringify(redis)})`);
    }
    return { redis: new Redis(redis), ownsClient: true };
  }
  const client = redis as Partial<RedisConnection> | null;
  if (typeof client?.defineCommand !== 'function' || typeof client.xrange !== 'function') {
    fail('redis must be an ioredis client (new Redis(…) or new Cluster(…)) or a redis:// URL');
  }
  return { redis: client as RedisConnection, ownsClient: false };
}

/** Validates the options, naming the first bad one. */
export function resolveOptions(options: RedisEventStoreOptions): ResolvedRedisEventStoreOptions {
  if (typeof options !== 'object' || options === null)
    fail('options must be an object with a redis client or URL');
  const prefix = options.prefix ?? 'gantry:events:';
  if (typeof prefix !== 'string' || prefix === '' || /[{}]/.test(prefix)) {
    // The store puts the stream id in a hash tag ({…}) so a stream's keys share a Cluster slot.
    fail(`prefix must be a non-empty string without { or } (got ${JSON.stringify(prefix)})`);
  }
  const maxEvents = whole(options.maxEventsPerStream, 'maxEventsPerStream', 1000);
  const maxBytes = whole(options.maxBytesPerStream, 'maxBytesPerStream', 16 * 1024 * 1024);
  const ttlMs = whole(options.ttlMs, 'ttlMs', 60 * 60 * 1000);
  const batchSize = whole(options.replayBatchSize, 'replayBatchSize', 100);
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    fail('onError must be a function');
  }
  const onError =
    options.onError ?? ((error: Error) => process.emitWarning(error, { code: 'GANTRY_REDIS_DROP_FAILED' }));
  return { ...connection(options.redis), prefix, maxEvents, maxBytes, ttlMs, batchSize, onError };
}
