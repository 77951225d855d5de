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
  gantrySessionTouch: TOUCH_SCRIPT,
  gantrySessionSave: SAVE_SCRIPT,
  gantrySessionDelete: DELETE_SCRIPT,
  gantrySessionSubscribers: SUBSCRIBERS_SCRIPT,
  gantrySessionIds: IDS_SCRIPT,
  gantrySessionCount: COUNT_SCRIPT,
} as const;

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

  async touch(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    const json = (await this.scripts.gantrySessionTouch(
      this.recordKey(id),
      this.live,
      this.uris,
      id,
      ttlMs,
    )) as string | null;
    return json === null ? undefined : (JSON.parse(json) as SessionRecord);
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
