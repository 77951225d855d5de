import {
  applyChange,
  type StoredTask,
  type TaskChange,
  type TaskPage,
  type TaskStore,
  TaskWatchers,
} from '@gantry/core';
import { isTerminalStatus } from '@gantry/protocol';
import { Redis } from 'ioredis';
import { ChannelHub } from './channel-hub';
import type { RedisConnection } from './options';
import { ANSWER_TASK, CREATE_TASK, LIST_TASKS, RENEW_TASKS, TAKE_ANSWER, UPDATE_TASK } from './task-scripts';

/** Options of {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /**
   * An ioredis client, which the store uses but never closes; or a `redis://` / `rediss://`
   * URL, for which it opens a client of its own and closes it in `close()`.
   */
  redis: RedisConnection | string;
  /**
   * The connection change notices are received on (SUBSCRIBE makes a connection unusable for
   * anything else). Default: a duplicate of `redis`, closed with the store.
   */
  subscriber?: RedisConnection;
  /** Prefix of every key and channel. Default `gantry:`. No `{` or `}`. */
  prefix?: string;
}

type Script = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

const SCRIPTS = {
  gantryTaskCreate: [4, CREATE_TASK],
  gantryTaskUpdate: [3, UPDATE_TASK],
  gantryTaskAnswer: [3, ANSWER_TASK],
  gantryTaskTake: [3, TAKE_ANSWER],
  gantryTaskRenew: [0, RENEW_TASKS],
  gantryTaskList: [1, LIST_TASKS],
} as const;

/** The fields of a task the hash keeps outside `body`. */
type Body = Omit<
  StoredTask,
  'status' | 'leaseExpiresAt' | 'lastUpdatedAt' | 'inputRequests' | 'inputResponses'
>;

/** A compare-and-set retried more often than this is a bug, not contention. */
const MAX_CAS_TRIES = 50;

/**
 * Tasks every node of a deployment shares, in Redis (`TaskStore` of `@gantry/core`): a task
 * stored on one node is read, answered and cancelled on any other, and a terminal task never
 * changes again, whichever node writes. Each operation is one Lua script (a change is a
 * compare-and-set on the task's version); every change is published, so `watch` sees changes
 * made anywhere.
 *
 * Layout under `<prefix>{tasks}:`: `t:<id>` the task (a hash), `q:<id>` / `a:<id>` its
 * outstanding input requests and their answers, `act:<owner>` the owner's unfinished task ids,
 * `own:<owner>` all the owner's task ids in creation order, `seq` the order's counter; the
 * channel `<prefix>tasks:changed` carries the id of each changed task. All expire with the task.
 */
export class RedisTaskStore implements TaskStore {
  private readonly redis: RedisConnection;
  private readonly subscriber: RedisConnection;
  private readonly ownsClient: boolean;
  private readonly ownsSubscriber: boolean;
  private readonly base: string;
  private readonly channel: string;
  private readonly scripts: Record<keyof typeof SCRIPTS, Script>;
  private readonly hub: ChannelHub;
  private readonly watchers = new TaskWatchers();
  private subscribed?: Promise<unknown>;
  private readonly onChange = (taskId: string): void => this.notify(taskId);

  /**
   * @param shared The cluster link's subscriber and its channel hub, when the store is part of
   *   a `redisCluster` (internal).
   */
  constructor(
    options: RedisTaskStoreOptions,
    shared?: { readonly subscriber: RedisConnection; readonly hub: ChannelHub },
  ) {
    const prefix = options.prefix ?? 'gantry:';
    if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
      throw new TypeError(
        `RedisTaskStore: prefix must be a string without { or } (got ${JSON.stringify(prefix)})`,
      );
    }
    if (typeof options.redis === 'string') {
      if (!/^rediss?:\/\//.test(options.redis)) {
        throw new TypeError(
          `RedisTaskStore: redis must be an ioredis client or a redis:// URL (got ${JSON.stringify(options.redis)})`,
        );
      }
      this.redis = new Redis(options.redis, { lazyConnect: false });
      this.ownsClient = true;
    } else {
      this.redis = options.redis;
      this.ownsClient = false;
    }
    this.ownsSubscriber = shared === undefined && options.subscriber === undefined;
    this.subscriber = shared?.subscriber ?? options.subscriber ?? (this.redis as Redis).duplicate();
    this.hub = shared?.hub ?? new ChannelHub(this.subscriber);
    this.base = `${prefix}{tasks}:`;
    this.channel = `${prefix}tasks:changed`;
    const scripts = {} as Record<keyof typeof SCRIPTS, Script>;
    for (const [name, [numberOfKeys, lua]] of Object.entries(SCRIPTS) as Array<
      [keyof typeof SCRIPTS, readonly [number, string]]
    >) {
      this.redis.defineCommand(name, { numberOfKeys, lua });
      scripts[name] = (this.redis as unknown as Record<string, Script>)[name].bind(this.redis);
    }
    this.scripts = scripts;
    // After a reconnection, notices sent meanwhile are lost: every watched task is read again.
    this.subscriber.on('ready', () => {
      if (this.subscribed) for (const taskId of this.watchers.ids()) this.notify(taskId);
    });
  }

  async create(task: StoredTask, limits: { readonly maxActivePerOwner: number }): Promise<boolean> {
    const { status, leaseExpiresAt, lastUpdatedAt, inputRequests: _q, inputResponses: _a, ...body } = task;
    const expires = task.ttlMs === null ? '' : String(task.createdAt + task.ttlMs);
    const stored = await this.scripts.gantryTaskCreate(
      this.key('t', task.taskId),
      this.key('act', task.owner),
      this.key('own', task.owner),
      `${this.base}seq`,
      task.taskId,
      limits.maxActivePerOwner,
      status,
      leaseExpiresAt,
      lastUpdatedAt,
      expires,
      JSON.stringify(body),
      `${this.base}t:`,
    );
    return stored === 1;
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    return (await this.read(taskId))?.task;
  }

  async update(taskId: string, change: TaskChange, now: number): Promise<StoredTask | undefined> {
    for (let tries = 0; tries < MAX_CAS_TRIES; tries++) {
      const current = await this.read(taskId);
      if (!current) return undefined;
      if (isTerminalStatus(current.task.status)) return current.task;
      const next = applyChange(current.task, change, now);
      const { status, leaseExpiresAt: _l, lastUpdatedAt, inputRequests, inputResponses: _a, ...body } = next;
      const requests: string[] = [];
      if (change.inputRequests !== undefined) {
        for (const [key, request] of Object.entries(inputRequests ?? {}))
          requests.push(key, JSON.stringify(request));
      }
      const outcome = await this.scripts.gantryTaskUpdate(
        this.key('t', taskId),
        this.key('q', taskId),
        this.key('act', current.task.owner),
        current.version,
        status,
        lastUpdatedAt,
        JSON.stringify(body),
        change.inputRequests === undefined ? 'keep' : 'set',
        this.channel,
        taskId,
        ...requests,
      );
      if (outcome === 'ok') return next;
      if (outcome === 'gone') return undefined;
      // 'terminal' or 'conflict': read again (a terminal task is then returned as it is).
    }
    throw new Error(
      `RedisTaskStore: task ${taskId} changed ${MAX_CAS_TRIES} times while one change was applied`,
    );
  }

  async answer(
    taskId: string,
    responses: Record<string, unknown>,
    now: number,
  ): Promise<string[] | undefined> {
    const pairs: string[] = [];
    for (const [key, value] of Object.entries(responses)) pairs.push(key, JSON.stringify(value));
    const kept = (await this.scripts.gantryTaskAnswer(
      this.key('t', taskId),
      this.key('q', taskId),
      this.key('a', taskId),
      now,
      this.channel,
      taskId,
      ...pairs,
    )) as string[] | null;
    return kept ?? undefined;
  }

  async takeAnswer(taskId: string, key: string, now: number): Promise<unknown> {
    const answer = (await this.scripts.gantryTaskTake(
      this.key('t', taskId),
      this.key('q', taskId),
      this.key('a', taskId),
      key,
      now,
      this.channel,
      taskId,
    )) as string | null;
    return answer === null ? undefined : JSON.parse(answer);
  }

  async renew(taskIds: readonly string[], leaseExpiresAt: number): Promise<void> {
    if (taskIds.length === 0) return;
    await this.scripts.gantryTaskRenew(leaseExpiresAt, ...taskIds.map((id) => this.key('t', id)));
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    const ids = (await this.scripts.gantryTaskList(
      this.key('own', owner),
      `${this.base}t:`,
      cursor ?? '',
      limit,
    )) as string[] | null;
    if (!ids) return undefined;
    const page = ids.slice(0, limit);
    const tasks = (await Promise.all(page.map((id) => this.get(id)))).filter(
      (task): task is StoredTask => task !== undefined,
    );
    return ids.length > limit ? { tasks, nextCursor: page[page.length - 1] } : { tasks };
  }

  watch(taskId: string, listener: (task: StoredTask | undefined) => void): () => void {
    this.subscribed ??= this.hub.add(this.channel, this.onChange).catch((error: unknown) => {
      this.subscribed = undefined;
      throw error;
    });
    this.subscribed.catch(() => undefined);
    return this.watchers.add(taskId, listener);
  }

  /** Resolves once change notices are being received (the first `watch` subscribes). */
  async ready(): Promise<void> {
    this.subscribed ??= this.hub.add(this.channel, this.onChange);
    await this.subscribed;
  }

  async close(): Promise<void> {
    this.watchers.clear();
    if (this.subscribed) this.hub.remove(this.channel, this.onChange);
    this.subscribed = undefined;
    if (this.ownsSubscriber) await quit(this.subscriber);
    if (this.ownsClient) await quit(this.redis);
  }

  private key(kind: 't' | 'q' | 'a' | 'act' | 'own', id: string): string {
    return `${this.base}${kind}:${id}`;
  }

  /** The task and its version, in one round trip; undefined when gone. */
  private async read(taskId: string): Promise<{ task: StoredTask; version: string } | undefined> {
    const replies = (await this.redis
      .multi()
      .hgetall(this.key('t', taskId))
      .hgetall(this.key('q', taskId))
      .hgetall(this.key('a', taskId))
      .exec()) as Array<[Error | null, Record<string, string>]> | null;
    if (!replies) return undefined;
    for (const [error] of replies) if (error) throw error;
    const [hash, requests, answers] = replies.map(([, value]) => value);
    if (!hash?.body) return undefined;
    const body = JSON.parse(hash.body) as Body;
    const task: Record<string, unknown> = {
      ...body,
      status: hash.status,
      leaseExpiresAt: Number(hash.lease),
      lastUpdatedAt: Number(hash.upd),
    };
    if (Object.keys(requests).length > 0) task.inputRequests = parseValues(requests);
    if (Object.keys(answers).length > 0) task.inputResponses = parseValues(answers);
    return { task: task as unknown as StoredTask, version: hash.ver };
  }

  private notify(taskId: string): void {
    if (!this.watchers.has(taskId)) return;
    this.get(taskId).then(
      (task) => this.watchers.tell(taskId, task),
      () => undefined,
    );
  }
}

function parseValues(hash: Record<string, string>): Record<string, any> {
  return Object.fromEntries(Object.entries(hash).map(([key, json]) => [key, JSON.parse(json)]));
}

async function quit(client: RedisConnection): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
