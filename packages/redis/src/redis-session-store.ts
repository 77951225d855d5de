import type { ClusterSessionStore, SessionRecord } from '@gantry/core';
import type { RedisConnection } from './options';
import {
  COUNT_SCRIPT,
  CREATE_SCRIPT,
  DELETE_SCRIPT,
  IDS_SCRIPT,
  SAVE_SCRIPT,
  SUBSCRIBERS_SCRIPT,
  TOUCH_SCRIPT,
} from './session-scripts';

type Script = (
  record: string,
  live: string,
  uris: string,
  ...args: Array<string | number>
) => Promise<unknown>;

/** Script commands, under names unlikely to meet another definition on a shared client. */
const SCRIPTS = {
  gantrySessionCreate: CREATE_SCRIPT,
  gantrySessionSave: SAVE_SCRIPT,
  gantrySessionDelete: DELETE_SCRIPT,
  gantrySessionSubscribers: SUBSCRIBERS_SCRIPT,
  gantrySessionIds: IDS_SCRIPT,
  gantrySessionCount: COUNT_SCRIPT,
} as const;

type TouchMany = (numberOfKeys: number, ...keysAndArgs: Array<string | number>) => Promise<string[]>;

interface PendingTouch {
  readonly id: string;
  readonly resolve: (record: SessionRecord | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sessions shared by the nodes of a deployment, in Redis. Each method is one Lua script: one
 * round trip, atomic.
 *
 * Layout, under `<prefix>{sessions}:`: `s:<id>` the record's JSON (PX lifetime); `live` a sorted
 * set of session ids by expiry (epoch ms of the server's clock), for `count`, `ids` and the
 * `max` of `create`; `uris` the set of subscribed URIs and `sub:<uri>` the ids subscribed to
 * each. Every key shares the hash tag `{sessions}`, so the scripts work on Redis Cluster; the
 * price is that all session records live on one shard (they are small and few next to the
 * event streams, which are spread by stream id).
 */
export class RedisSessionStore implements ClusterSessionStore {
  private readonly base: string;
  private readonly live: string;
  private readonly uris: string;
  private readonly subPrefix: string;
  private readonly scripts: Record<keyof typeof SCRIPTS, Script>;
  private readonly touchMany: TouchMany;
  /** Touches waiting for the end of this turn of the event loop, by lifetime. */
  private pending = new Map<number, PendingTouch[]>();

  constructor(redis: RedisConnection, prefix: string) {
    this.base = `${prefix}{sessions}:`;
    this.live = `${this.base}live`;
    this.uris = `${this.base}uris`;
    this.subPrefix = `${this.base}sub:`;
    const scripts = {} as Record<keyof typeof SCRIPTS, Script>;
    for (const [name, lua] of Object.entries(SCRIPTS) as Array<[keyof typeof SCRIPTS, string]>) {
      redis.defineCommand(name, { numberOfKeys: 3, lua });
      scripts[name] = (redis as unknown as Record<string, Script>)[name].bind(redis);
    }
    this.scripts = scripts;
    redis.defineCommand('gantrySessionTouchMany', { lua: TOUCH_SCRIPT });
    this.touchMany = (redis as unknown as Record<string, TouchMany>).gantrySessionTouchMany.bind(redis);
  }

  async create(
    record: SessionRecord,
    limits: { readonly max: number; readonly ttlMs: number },
  ): Promise<boolean> {
    const stored = await this.scripts.gantrySessionCreate(
      this.recordKey(record.id),
      this.live,
      this.uris,
      this.subPrefix,
      record.id,
      JSON.stringify(record),
      limits.max,
      limits.ttlMs,
    );
    return stored === 1;
  }

  /**
   * The requests a node reads in one turn of its event loop are touched together: one script
   * call, one write to the socket, for all of them. Each request still costs at most one round
   * trip, and the write (with its loopback TCP processing) is the dearest part of it.
   */
  touch(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    return new Promise((resolve, reject) => {
      // The first touch of a turn schedules the flush of all of them.
      if (this.pending.size === 0) setImmediate(() => this.flushTouches());
      let batch = this.pending.get(ttlMs);
      if (!batch) {
        batch = [];
        this.pending.set(ttlMs, batch);
      }
      batch.push({ id, resolve, reject });
    });
  }

  private flushTouches(): void {
    const pending = this.pending;
    this.pending = new Map();
    for (const [ttlMs, batch] of pending) {
      const keys = batch.map((touch) => this.recordKey(touch.id));
      this.touchMany(keys.length + 1, this.live, ...keys, ttlMs, ...batch.map((touch) => touch.id)).then(
        (records) => {
          batch.forEach((touch, i) => {
            const json = records[i];
            // One unreadable record (written by something else) fails its own request only.
            try {
              touch.resolve(json ? (JSON.parse(json) as SessionRecord) : undefined);
            } catch (error) {
              touch.reject(error);
            }
          });
        },
        (error) => {
          for (const touch of batch) touch.reject(error);
        },
      );
    }
  }

  async save(record: SessionRecord, ttlMs: number): Promise<boolean> {
    const saved = await this.scripts.gantrySessionSave(
      this.recordKey(record.id),
      this.live,
      this.uris,
      this.subPrefix,
      record.id,
      JSON.stringify(record),
      ttlMs,
    );
    return saved === 1;
  }

  async delete(id: string): Promise<boolean> {
    return (
      (await this.scripts.gantrySessionDelete(
        this.recordKey(id),
        this.live,
        this.uris,
        this.subPrefix,
        id,
      )) === 1
    );
  }

  async subscribers(uri: string): Promise<string[]> {
    return (await this.scripts.gantrySessionSubscribers(
      this.recordKey(''),
      this.live,
      this.uris,
      this.subPrefix,
      uri,
    )) as string[];
  }

  async ids(): Promise<string[]> {
    return (await this.scripts.gantrySessionIds(this.recordKey(''), this.live, this.uris)) as string[];
  }

  async count(): Promise<number> {
    return (await this.scripts.gantrySessionCount(this.recordKey(''), this.live, this.uris)) as number;
  }

  private recordKey(id: string): string {
    return `${this.base}s:${id}`;
  }
}
