import type { JSONRPCMessage } from '@gantry/protocol';
import { APPEND_SCRIPT } from './append-script';
import {
  type RedisConnection,
  type RedisEventStoreOptions,
  type ResolvedRedisEventStoreOptions,
  resolveOptions,
} from './options';

/** The script command, under a name unlikely to meet another definition on a shared client. */
const APPEND = 'gantryEventStoreAppend';

type AppendCommand = (
  streamKey: string,
  metaKey: string,
  message: string,
  maxEvents: number,
  maxBytes: number,
  ttlMs: number,
  ...cluster: string[]
) => Promise<number>;

/** A stream entry as XRANGE returns it. */
export type Entry = [id: string, fields: string[]];

/** The message JSON of a stream entry ('' for a priming event). */
export function messageOf(fields: string[]): string {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === 'm') return fields[i + 1];
  return '';
}

/** The sequence number of an entry id `0-<seq>`. */
export function seqOf(entryId: string): number {
  return Number(entryId.slice(entryId.indexOf('-') + 1));
}

/**
 * An event store for the Streamable HTTP transport (MCP 2025-11-25, Basic › Transports ›
 * Streamable HTTP §Resumability and Redelivery) kept in Redis Streams, so that every node of a
 * deployment can replay a stream from an event id alone. It implements `EventStore` of
 * `@gantry/fastify` structurally.
 *
 * Each stream is a Redis stream `<prefix>{<streamId>}` with a meta hash `<prefix>{<streamId>}:meta`
 * (the hash tag keeps both in one Cluster slot). Event ids are `<streamId>.<seq>`. Appending,
 * trimming by count and by bytes, and refreshing the TTL happen in one Lua script.
 */
export class RedisEventStore {
  protected readonly options: ResolvedRedisEventStoreOptions;
  protected readonly append: AppendCommand;

  constructor(options: RedisEventStoreOptions) {
    this.options = resolveOptions(options);
    const redis = this.options.redis;
    redis.defineCommand(APPEND, { numberOfKeys: 2, lua: APPEND_SCRIPT });
    const command = (redis as unknown as Record<string, AppendCommand>)[APPEND];
    this.append = command.bind(redis);
  }

  /** The client the store uses. */
  get redis(): RedisConnection {
    return this.options.redis;
  }

  /** Stores an event and returns its id `<streamId>.<seq>`; `message` is null for a priming event. */
  async storeEvent(streamId: string, message: JSONRPCMessage | null): Promise<string> {
    const { maxEvents, maxBytes, ttlMs } = this.options;
    const data = message === null ? '' : JSON.stringify(message);
    const seq = await this.append(
      this.streamKey(streamId),
      this.metaKey(streamId),
      data,
      maxEvents,
      maxBytes,
      ttlMs,
    );
    return `${streamId}.${seq}`;
  }

  /**
   * Sends the events of `lastEventId`'s stream that followed it, in order, skipping priming
   * events, reading at most `replayBatchSize` entries at a time. Returns the stream id, or
   * undefined when the id is malformed, was never issued, expired, or was evicted with events
   * after it (the client would miss them). Events evicted while a replay runs are not sent.
   */
  async replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const dot = lastEventId.lastIndexOf('.');
    const seqText = lastEventId.slice(dot + 1);
    if (dot <= 0 || !/^\d{1,15}$/.test(seqText)) return undefined;
    const streamId = lastEventId.slice(0, dot);
    const seq = Number(seqText);
    const { redis, batchSize } = this.options;
    // Read the last sequence number first: events appended after it only add to the range below.
    const last = await redis.hget(this.metaKey(streamId), 'seq');
    if (last === null || seq < 1 || seq > Number(last)) return undefined;
    const key = this.streamKey(streamId);
    // From the id itself (inclusive): it, or the event right after it, must still be kept.
    let page = (await redis.xrange(key, `0-${seq}`, '+', 'COUNT', batchSize + 1)) as Entry[];
    const first = page[0];
    if (first === undefined ? seq !== Number(last) : seqOf(first[0]) > seq + 1) return undefined;
    if (first !== undefined && seqOf(first[0]) === seq) page = page.slice(1);
    else if (page.length > batchSize) page = page.slice(0, batchSize);
    while (page.length > 0) {
      for (const [entryId, fields] of page) {
        const data = messageOf(fields);
        if (data !== '') await send(`${streamId}.${seqOf(entryId)}`, JSON.parse(data) as JSONRPCMessage);
      }
      if (page.length < batchSize) break;
      const after = page[page.length - 1][0];
      page = (await redis.xrange(key, `(${after}`, '+', 'COUNT', batchSize)) as Entry[];
    }
    return streamId;
  }

  /**
   * Deletes a stream's keys. Never rejects: the transport does not await it, so a failure goes
   * to the `onError` option.
   */
  async dropStream(streamId: string): Promise<void> {
    try {
      await this.options.redis.del(this.streamKey(streamId), this.metaKey(streamId));
    } catch (error) {
      this.options.onError(error as Error);
    }
  }

  /** Closes the client when the store opened it from a URL; a client passed in is left open. */
  async close(): Promise<void> {
    const { redis, ownsClient } = this.options;
    if (!ownsClient || redis.status === 'end') return;
    const ended = new Promise<void>((resolve) => redis.once('end', resolve));
    await redis.quit();
    await ended;
  }

  protected streamKey(streamId: string): string {
    return `${this.options.prefix}{${streamId}}`;
  }

  protected metaKey(streamId: string): string {
    return `${this.options.prefix}{${streamId}}:meta`;
  }
}

/**
 * A Redis-backed event store for `gantryMcp({ eventStore })` of `@gantry/fastify`.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL);
 * await fastify.register(gantryMcp, { app, eventStore: redisEventStore({ redis }) });
 */
export function redisEventStore(options: RedisEventStoreOptions): RedisEventStore {
  return new RedisEventStore(options);
}
