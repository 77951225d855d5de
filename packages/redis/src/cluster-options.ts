import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** Options of {@link redisCluster}. */
export interface RedisClusterOptions {
  /** A `redis://` or `rediss://` URL: the link opens its clients and closes them in `close()`. */
  url?: string;
  /**
   * An ioredis client the application owns (`new Redis(…)` or `new Cluster(…)`), used for
   * commands and never closed by the link; the link subscribes on a `duplicate()` of it (which it
   * does close). Give `url` or `redis`, not both.
   */
  redis?: Redis | Cluster;
  /** Prefix of every key and channel. Default `gantry:`. No `{` or `}`. */
  prefix?: string;
  /**
   * This node's id, unique in the deployment (it prefixes the ids of requests the node sends:
   * `n:<node>:<seq>`). Letters, digits, `_` and `-`. Default: 8 random base64url characters.
   */
  nodeId?: string;
  /** The `requestState` key every node shares (see `stateless.requestStateKey` of core). */
  requestStateKey?: string | Uint8Array;
  /** How often the node renews its liveness key, in milliseconds. Default 1000. */
  heartbeatMs?: number;
  /** When a node's liveness key expires without renewal, in milliseconds. Default 3 × `heartbeatMs`. */
  nodeTimeoutMs?: number;
  /** How long `start()` waits for Redis, in milliseconds. Default 5000. */
  connectTimeoutMs?: number;
  /** Bounds of the event store's streams (see `redisEventStore`). */
  events?: {
    readonly maxEventsPerStream?: number;
    readonly maxBytesPerStream?: number;
    readonly ttlMs?: number;
  };
  /** Receives problems nobody awaits (malformed bus messages, a failed heartbeat). Default: a process warning. */
  onError?: (error: Error) => void;
}

/** Options after validation, with defaults applied. */
export interface ResolvedClusterOptions {
  readonly url: string | undefined;
  readonly redis: Redis | Cluster | undefined;
  readonly prefix: string;
  readonly nodeId: string;
  readonly requestStateKey: string | Uint8Array | undefined;
  readonly heartbeatMs: number;
  readonly nodeTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly events: NonNullable<RedisClusterOptions['events']>;
  readonly onError: (error: Error) => void;
}

function fail(problem: string): never {
  throw new TypeError(`redisCluster: ${problem}`);
}

function whole(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    fail(`${name} must be a whole number ≥ 1 (got ${String(value)})`);
  }
  return value;
}

/** Validates the options of `redisCluster`, naming the first bad one. */
export function resolveClusterOptions(options: RedisClusterOptions): ResolvedClusterOptions {
  if (typeof options !== 'object' || options === null) fail('options must be an object with url or redis');
  const { url, redis } = options;
  if (url !== undefined && redis !== undefined) fail('give url or redis, not both');
  if (url === undefined && redis === undefined)
    fail('url (redis:// or rediss://) or redis (an ioredis client) is required');
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\/./.test(url))) {
    fail(`url must be a redis:// or rediss:// URL (got ${JSON.stringify(url)})`);
  }
  if (redis !== undefined) {
    const client = redis as Partial<Redis> | null;
    if (typeof client?.defineCommand !== 'function' || typeof client.duplicate !== 'function') {
      fail('redis must be an ioredis client (new Redis(…) or new Cluster(…))');
    }
  }
  const prefix = options.prefix ?? 'gantry:';
  if (typeof prefix !== 'string' || prefix === '' || /[{}]/.test(prefix)) {
    // Keys put hash tags ({…}) after the prefix, so a braced prefix would change the slots.
    fail(`prefix must be a non-empty string without { or } (got ${JSON.stringify(prefix)})`);
  }
  const nodeId = options.nodeId ?? randomBytes(6).toString('base64url');
  if (typeof nodeId !== 'string' || !/^[A-Za-z0-9_-]+$/.test(nodeId)) {
    // It becomes part of request ids `n:<node>:<seq>` and of key names.
    fail(`nodeId must be letters, digits, _ or - (got ${JSON.stringify(nodeId)})`);
  }
  const key = options.requestStateKey;
  if (key !== undefined && !((typeof key === 'string' || key instanceof Uint8Array) && key.length > 0)) {
    fail('requestStateKey must be a non-empty string or Uint8Array');
  }
  const heartbeatMs = whole(options.heartbeatMs, 'heartbeatMs', 1000);
  const nodeTimeoutMs = whole(options.nodeTimeoutMs, 'nodeTimeoutMs', 3 * heartbeatMs);
  if (nodeTimeoutMs <= heartbeatMs) {
    fail(`nodeTimeoutMs must be more than heartbeatMs (got ${nodeTimeoutMs} ≤ ${heartbeatMs})`);
  }
  const connectTimeoutMs = whole(options.connectTimeoutMs, 'connectTimeoutMs', 5000);
  const events = options.events ?? {};
  if (typeof events !== 'object' || events === null) fail('events must be an object');
  for (const name of ['maxEventsPerStream', 'maxBytesPerStream', 'ttlMs'] as const) {
    whole(events[name], `events.${name}`, 1);
  }
  if (options.onError !== undefined && typeof options.onError !== 'function')
    fail('onError must be a function');
  const onError =
    options.onError ??
    // A message, not the Error: emitWarning rejects Errors of another realm (a test VM, say).
    ((error: Error) => process.emitWarning(error.message, { code: 'GANTRY_REDIS_CLUSTER' }));
  return {
    url,
    redis,
    prefix,
    nodeId,
    requestStateKey: key,
    heartbeatMs,
    nodeTimeoutMs,
    connectTimeoutMs,
    events,
    onError,
  };
}

/** A URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
