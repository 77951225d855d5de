import type { OnApplicationShutdown, OnModuleInit } from '@gantry/core';
import { type Cluster, Redis } from 'ioredis';
import type { Note, NoteStatus, NotesStore } from './notes.store';

/** Options of {@link RedisNotesStore}. */
export interface RedisNotesStoreOptions {
  /**
   * An ioredis client, which the store uses but never closes; or a `redis://` / `rediss://`
   * URL, for which the store opens a client of its own (connected in `onModuleInit`, closed on
   * shutdown).
   */
  redis: Redis | Cluster | string;
  /**
   * Prefix of every key. Default `notes:`. With Redis Cluster, put a hash tag in it (e.g.
   * `{notes}:`): each write touches a note's hash, the index and the counter together, and a
   * script's keys must share a slot.
   */
  prefix?: string;
}

/**
 * Adds a note after all others unless its id is taken. KEYS: the note's hash, the index (sorted
 * set of ids), the insertion counter. ARGV: the id, then the hash's field/value pairs. The score
 * is the counter, not the creation time: notes created in the same millisecond on two nodes
 * still get a strict order, the order their writes reached Redis.
 */
const INSERT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('ZADD', KEYS[2], seq, ARGV[1])
return 1
`;

/** Sets status and updatedAt of an existing note and returns its fields; nil (and no write) when it does not exist. KEYS: the hash. */
const SET_STATUS_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updatedAt', ARGV[2])
return redis.call('HGETALL', KEYS[1])
`;

/** Removes a note's hash and its index entry; 1 if the hash existed. KEYS: the hash, the index. ARGV: the id. */
const DELETE_SCRIPT = `
local removed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return removed
`;

// Command names unlikely to meet another definition on a shared client.
const INSERT = 'gantryNotesInsert';
const SET_STATUS = 'gantryNotesSetStatus';
const DELETE = 'gantryNotesDelete';

interface Commands {
  [INSERT](hash: string, index: string, seq: string, ...args: string[]): Promise<number>;
  [SET_STATUS](hash: string, status: string, updatedAt: string): Promise<string[] | null>;
  [DELETE](hash: string, index: string, id: string): Promise<number>;
}

/** `redis://host:port/db` without credentials, for banners and logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

/**
 * Notes kept in Redis, so that any number of server nodes share one store.
 *
 * Layout, under the prefix (default `notes:`): a hash `<prefix>note:<id>` per note with fields
 * id, title, body, tags (JSON array), status (absent until the note is moved), createdAt and
 * updatedAt; a sorted set `<prefix>index` of ids scored by insertion order; and the counter
 * `<prefix>seq` behind those scores. Every write is one Lua script, which Redis runs as a single
 * command: no node sees, or leaves behind, half a note or an index entry without its hash.
 */
export class RedisNotesStore implements NotesStore, OnModuleInit, OnApplicationShutdown {
  /** The client the store uses. */
  readonly redis: Redis | Cluster;
  readonly prefix: string;
  readonly location: string;
  private readonly ownsClient: boolean;
  private readonly commands: Commands;
  private connected = false;
  /** Why the first connection failed (ioredis only says "Connection is closed"). */
  private connectError?: Error;

  constructor(options: RedisNotesStoreOptions) {
    const prefix = options.prefix ?? 'notes:';
    if (typeof prefix !== 'string' || prefix === '') {
      throw new TypeError(
        `RedisNotesStore: prefix must be a non-empty string (got ${JSON.stringify(prefix)})`,
      );
    }
    this.prefix = prefix;
    if (typeof options.redis === 'string') {
      if (!/^rediss?:\/\//.test(options.redis)) {
        throw new TypeError(
          `RedisNotesStore: redis must be an ioredis client or a redis:// or rediss:// URL (got ${JSON.stringify(options.redis)})`,
        );
      }
      // Connected in onModuleInit, so that an unreachable Redis fails the start instead of
      // queueing every request until ioredis gives up: no retries until the first connection
      // is up, then reconnects after 0.1 s, 0.2 s, … up to 2 s apart.
      const client = new Redis(options.redis, {
        lazyConnect: true,
        retryStrategy: (attempt) => (this.connected ? Math.min(attempt * 100, 2000) : null),
      });
      client.once('ready', () => {
        this.connected = true;
      });
      client.on('error', (error: Error) => {
        if (this.connected) process.stderr.write(`gantry-notes: ${this.location}: ${error.message}\n`);
        else this.connectError = error;
      });
      this.redis = client;
      this.ownsClient = true;
      this.location = `Redis at ${redactedUrl(options.redis)}`;
    } else {
      this.redis = options.redis;
      this.ownsClient = false;
      this.location = `Redis (prefix ${prefix})`;
    }
    this.redis.defineCommand(INSERT, { numberOfKeys: 3, lua: INSERT_SCRIPT });
    this.redis.defineCommand(SET_STATUS, { numberOfKeys: 1, lua: SET_STATUS_SCRIPT });
    this.redis.defineCommand(DELETE, { numberOfKeys: 2, lua: DELETE_SCRIPT });
    this.commands = this.redis as unknown as Commands;
  }

  /** Connects the store's own client; a Redis that cannot be reached fails the start with its URL. */
  async onModuleInit(): Promise<void> {
    if (!this.ownsClient || this.redis.status !== 'wait') return;
    try {
      await this.redis.connect();
    } catch (error) {
      const reason = this.connectError ?? (error as Error);
      throw new Error(`notes store: cannot reach ${this.location}: ${reason.message}`, { cause: reason });
    }
  }

  /** Closes the client if the store opened it. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.ownsClient || this.redis.status === 'end') return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  /** The key of a note's hash. */
  noteKey(id: string): string {
    return `${this.prefix}note:${id}`;
  }

  /** The key of the sorted set listing the ids in insertion order. */
  get indexKey(): string {
    return `${this.prefix}index`;
  }

  private get seqKey(): string {
    return `${this.prefix}seq`;
  }

  async insert(note: Note): Promise<boolean> {
    const fields = ['id', note.id, 'title', note.title, 'body', note.body, 'tags', JSON.stringify(note.tags)];
    if (note.status !== undefined) fields.push('status', note.status);
    fields.push('createdAt', note.createdAt, 'updatedAt', note.updatedAt);
    const inserted = await this.commands[INSERT](
      this.noteKey(note.id),
      this.indexKey,
      this.seqKey,
      note.id,
      ...fields,
    );
    return inserted === 1;
  }

  async get(id: string): Promise<Note | undefined> {
    return this.parse(await this.redis.hgetall(this.noteKey(id)));
  }

  async all(): Promise<Note[]> {
    const ids = await this.redis.zrange(this.indexKey, 0, '-1');
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.noteKey(id));
    const replies = (await pipeline.exec()) ?? [];
    const notes: Note[] = [];
    for (const [error, fields] of replies) {
      if (error) throw error;
      // A note deleted between ZRANGE and HGETALL has an empty hash: it is gone, leave it out.
      const note = this.parse(fields as Record<string, string>);
      if (note) notes.push(note);
    }
    return notes;
  }

  async setStatus(id: string, status: NoteStatus, updatedAt: string): Promise<Note | undefined> {
    const reply = await this.commands[SET_STATUS](this.noteKey(id), status, updatedAt);
    if (!reply) return undefined;
    const fields: Record<string, string> = {};
    for (let i = 0; i < reply.length; i += 2) fields[reply[i]] = reply[i + 1];
    return this.parse(fields);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.commands[DELETE](this.noteKey(id), this.indexKey, id)) === 1;
  }

  /** A note from its hash's fields; undefined for an empty (missing) hash. */
  private parse(fields: Record<string, string>): Note | undefined {
    if (fields.id === undefined) return undefined;
    let tags: unknown;
    try {
      tags = JSON.parse(fields.tags ?? '[]');
    } catch {
      tags = undefined;
    }
    if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
      throw new Error(`notes store: note ${fields.id} in ${this.location} has malformed tags`);
    }
    return {
      id: fields.id,
      title: fields.title ?? '',
      body: fields.body ?? '',
      tags,
      ...(fields.status === undefined ? {} : { status: fields.status as NoteStatus }),
      createdAt: fields.createdAt ?? '',
      updatedAt: fields.updatedAt ?? '',
    };
  }
}
