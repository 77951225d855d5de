import type {
  ClusterLink,
  ClusterMessage,
  ClusterReceiver,
  RateLimitBackend,
  RateLimitBackendOptions,
} from '@gantry/core';
import { type Cluster, Redis } from 'ioredis';
import { ChannelHub } from './channel-hub';
import { RedisClusterEventStore } from './cluster-event-store';
import {
  type RedisClusterOptions,
  type ResolvedClusterOptions,
  redactUrl,
  resolveClusterOptions,
} from './cluster-options';
import type { RedisConnection } from './options';
import { redisRateLimiter } from './redis-rate-limiter';
import { RedisSessionStore } from './redis-session-store';
import { RedisTaskStore } from './redis-task-store';

/** What travels on the bus: the message and who sent it (a node ignores its own). */
interface Envelope {
  readonly from: string;
  readonly message: ClusterMessage;
}

const ignore = (): void => undefined;

const KINDS = new Set(['list-changed', 'resource-updated', 'session-ended', 'client-message']);

/** Resolves once `client` is ready; rejects with the last connection error after `timeoutMs`, or once it gives up. */
function whenReady(client: RedisConnection, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined;
    const onError = (error: Error) => {
      lastError = error;
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onEnd = () => {
      cleanup();
      reject(lastError ?? new Error('the connection was closed'));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(lastError ?? new Error(`not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      client.off('error', onError);
      client.off('ready', onReady);
      client.off('end', onEnd);
    };
    client.on('error', onError);
    client.once('ready', onReady);
    client.once('end', onEnd);
    if (client.status === 'wait') client.connect().catch(() => undefined);
  });
}

/** Closes a client the link opened: QUIT when it can, else drop the connection. */
async function shut(client: RedisConnection): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    const ended = new Promise<void>((resolve) => client.once('end', resolve));
    try {
      await client.quit();
      await ended;
      return;
    } catch {
      // Fall through: the connection is going anyway.
    }
  }
  // Also cancels a pending reconnection (the status may then stay 'reconnecting', with no timer).
  client.disconnect();
}

/**
 * A cluster link on Redis (`ClusterLink` of `@gantry/core`): sessions in Lua-scripted keys,
 * streams in Redis Streams followed through pub/sub tail channels, node-to-node messages on one
 * pub/sub channel, and a liveness key per node renewed every heartbeat.
 */
export class RedisCluster implements ClusterLink {
  /** The name of this link's check in `GET /readyz`. */
  readonly backend = 'redis';
  readonly nodeId: string;
  readonly requestStateKey: string | Uint8Array | undefined;
  /** The command client: an application may keep its own data in the same Redis with it. */
  readonly redis: RedisConnection;
  readonly sessions: RedisSessionStore;
  readonly events: RedisClusterEventStore;
  /** Tasks every node shares (`@Tool({ task })`): created on one node, read and answered on any. */
  readonly tasks: RedisTaskStore;
  private readonly options: ResolvedClusterOptions;
  private readonly subscriber: RedisConnection;
  private readonly hub: ChannelHub;
  private readonly ownsCommandClient: boolean;
  private readonly busChannel: string;
  private receiver: ClusterReceiver | undefined;
  private reported = true;
  private heartbeat: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: RedisClusterOptions) {
    this.options = resolveClusterOptions(options);
    const { url, redis, prefix, nodeId, events, onError, heartbeatMs } = this.options;
    this.nodeId = nodeId;
    this.requestStateKey = this.options.requestStateKey;
    this.ownsCommandClient = redis === undefined;
    // A command fails at once while Redis is down (the HTTP layer answers 503) instead of
    // queueing; reconnection stays on, so the node recovers by itself.
    // disconnectTimeout: ioredis waits that long for a socket that already closed when a client
    // is closed while it waits to reconnect (a ref'd timer that would hold the process up).
    this.redis =
      redis ??
      new Redis(url as string, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        lazyConnect: true,
        disconnectTimeout: 100,
      });
    // The subscriber is always the link's own connection (a connection in subscriber mode takes no commands).
    this.subscriber = this.redis.isCluster
      ? (this.redis as Cluster).duplicate(undefined, { lazyConnect: true })
      : (this.redis as Redis).duplicate({ lazyConnect: true, disconnectTimeout: 100 });
    // Connection errors surface as availability changes and rejected commands; without a
    // listener ioredis would print each retry.
    if (this.ownsCommandClient) this.redis.on('error', ignore);
    this.subscriber.on('error', ignore);
    this.hub = new ChannelHub(this.subscriber);
    this.busChannel = `${prefix}bus`;
    this.sessions = new RedisSessionStore(this.redis, prefix);
    this.tasks = new RedisTaskStore(
      { redis: this.redis, prefix },
      { subscriber: this.subscriber, hub: this.hub },
    );
    this.events = new RedisClusterEventStore(
      { redis: this.redis, prefix: `${prefix}events:`, ...events, onError },
      {
        nodeId,
        channelPrefix: prefix,
        hub: this.hub,
        nodeKey: (id) => this.nodeKey(id),
        heartbeatMs,
      },
    );
  }

  /** True while the command client is connected and ready. */
  get available(): boolean {
    return this.redis.status === 'ready';
  }

  async start(receiver: ClusterReceiver): Promise<void> {
    if (this.closing) throw new Error('redisCluster: the link was closed');
    if (this.receiver) throw new Error('redisCluster: start() was called twice');
    this.receiver = receiver;
    const { connectTimeoutMs } = this.options;
    try {
      await Promise.all([
        whenReady(this.redis, connectTimeoutMs),
        whenReady(this.subscriber, connectTimeoutMs),
      ]);
      await this.hub.add(this.busChannel, (text) => this.onBus(text));
      await this.beat();
    } catch (error) {
      await this.close();
      throw new Error(`redisCluster: cannot reach Redis at ${this.where()}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.redis.on('ready', this.onReady);
    this.redis.on('close', this.onClose);
    this.subscriber.on('ready', this.onSubscriberReady);
    this.heartbeat = setInterval(() => {
      if (this.available) this.beat().catch((error: Error) => this.options.onError(error));
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  async publish(message: ClusterMessage): Promise<void> {
    const envelope: Envelope = { from: this.nodeId, message };
    await this.redis.publish(this.busChannel, JSON.stringify(envelope));
  }

  /** Rate limits counted in Redis, so they hold across the nodes (see `limits` of `GantryFactory.create`). */
  rateLimiter(options: RateLimitBackendOptions): RateLimitBackend {
    return redisRateLimiter(this.redis, this.options.prefix, options);
  }

  /** Stops the heartbeat, removes this node's liveness key and closes the clients the link opened. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private readonly onReady = (): void => {
    this.report(true);
    // The key may have expired during the outage: followers elsewhere must see this node alive.
    this.beat().catch((error: Error) => this.options.onError(error));
  };

  private readonly onClose = (): void => this.report(false);

  /** Back after an outage (ioredis resubscribed): followers read what they missed meanwhile. */
  private readonly onSubscriberReady = (): void => this.events.resumeFollowers();

  private async shutDown(): Promise<void> {
    clearInterval(this.heartbeat);
    this.redis.off('ready', this.onReady);
    this.redis.off('close', this.onClose);
    this.subscriber.off('ready', this.onSubscriberReady);
    this.receiver = undefined;
    this.events.stopFollowers();
    if (this.available) {
      try {
        await this.redis.del(this.nodeKey(this.nodeId));
      } catch (error) {
        this.options.onError(error as Error);
      }
    }
    await this.tasks.close();
    await shut(this.subscriber);
    if (this.ownsCommandClient) await shut(this.redis);
  }

  private beat(): Promise<unknown> {
    return this.redis.set(this.nodeKey(this.nodeId), '1', 'PX', this.options.nodeTimeoutMs);
  }

  private nodeKey(nodeId: string): string {
    return `${this.options.prefix}node:${nodeId}`;
  }

  private report(available: boolean): void {
    if (available === this.reported || !this.receiver) return;
    this.reported = available;
    this.receiver.availability(available);
  }

  private onBus(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
      if (typeof envelope?.from !== 'string' || !KINDS.has(envelope.message?.kind))
        throw new Error('not an envelope');
    } catch {
      this.options.onError(
        new Error(
          `redisCluster: a malformed message on ${this.busChannel} was ignored: ${text.slice(0, 200)}`,
        ),
      );
      return;
    }
    if (envelope.from !== this.nodeId) this.receiver?.receive(envelope.message);
  }

  /** Where Redis is, for messages: the URL without its password. */
  private where(): string {
    if (this.options.url) return redactUrl(this.options.url);
    const { host, port } = (this.redis as Redis).options ?? {};
    return host ? `${host}:${port ?? 6379}` : 'the given client';
  }
}

/**
 * A cluster link on Redis for `GantryFactory.create(…, { cluster })`: sessions, resumable and
 * followable streams, and node-to-node messages, shared by every node that uses the same Redis
 * and prefix.
 *
 * @example
 * const cluster = redisCluster({ url: process.env.REDIS_URL, requestStateKey: process.env.GANTRY_STATE_KEY });
 */
export function redisCluster(options: RedisClusterOptions): RedisCluster {
  return new RedisCluster(options);
}
