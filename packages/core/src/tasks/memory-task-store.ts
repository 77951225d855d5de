import { isTerminalStatus } from '@gantry/protocol';
import type { StoredTask, TaskChange, TaskPage, TaskStore } from './task-store';
import { type TaskListener, TaskWatchers } from './task-watchers';

/** How often expired tasks are swept (they are also dropped when read). */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The default `TaskStore`: tasks live in this process until their ttl runs out. Everything is
 * synchronous underneath; the promises only keep the interface the shared stores have.
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  private readonly watchers = new TaskWatchers();
  private sweeper?: NodeJS.Timeout;

  /**
   * @param maxTasks Most tasks kept at once (default 10,000): when full, the oldest finished
   *   task makes room; with none finished, `create` resolves false.
   */
  constructor(
    private readonly maxTasks = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Number of tasks kept (expired ones included until swept). */
  get size(): number {
    return this.tasks.size;
  }

  create(task: StoredTask, limits: { readonly maxActivePerOwner: number }): Promise<boolean> {
    let active = 0;
    for (const existing of this.tasks.values()) {
      if (existing.owner === task.owner && !isTerminalStatus(existing.status) && !this.expired(existing))
        active++;
    }
    if (active >= limits.maxActivePerOwner) return Promise.resolve(false);
    if (this.tasks.size >= this.maxTasks && !this.makeRoom()) return Promise.resolve(false);
    this.tasks.set(task.taskId, task);
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
    return Promise.resolve(true);
  }

  get(taskId: string): Promise<StoredTask | undefined> {
    return Promise.resolve(this.live(taskId));
  }

  update(taskId: string, change: TaskChange, now: number): Promise<StoredTask | undefined> {
    const task = this.live(taskId);
    if (!task || isTerminalStatus(task.status)) return Promise.resolve(task);
    return Promise.resolve(this.put(applyChange(task, change, now)));
  }

  answer(taskId: string, responses: Record<string, unknown>, now: number): Promise<string[] | undefined> {
    const task = this.live(taskId);
    if (!task) return Promise.resolve(undefined);
    const outstanding = task.inputRequests ?? {};
    const kept = Object.keys(responses).filter((key) => Object.hasOwn(outstanding, key));
    if (kept.length === 0 || isTerminalStatus(task.status)) return Promise.resolve([]);
    const inputResponses = { ...task.inputResponses };
    for (const key of kept) inputResponses[key] = responses[key];
    this.put({ ...task, inputResponses, lastUpdatedAt: now });
    return Promise.resolve(kept);
  }

  takeAnswer(taskId: string, key: string, now: number): Promise<unknown> {
    const task = this.live(taskId);
    const responses = task?.inputResponses;
    // A terminal task never changes again: its answers stay untaken.
    if (!task || isTerminalStatus(task.status) || !responses || !Object.hasOwn(responses, key))
      return Promise.resolve(undefined);
    const { [key]: answer, ...restResponses } = responses;
    const { [key]: _, ...restRequests } = task.inputRequests ?? {};
    const stillWaiting = Object.keys(restRequests).length > 0;
    const next: StoredTask = {
      ...task,
      inputResponses: Object.keys(restResponses).length > 0 ? restResponses : undefined,
      inputRequests: stillWaiting ? restRequests : undefined,
      status: stillWaiting ? task.status : 'working',
      lastUpdatedAt: now,
    };
    this.put(next);
    return Promise.resolve(answer);
  }

  renew(taskIds: readonly string[], leaseExpiresAt: number): Promise<void> {
    for (const taskId of taskIds) {
      const task = this.live(taskId);
      // A lease is not a change anyone watches for.
      if (task && !isTerminalStatus(task.status)) this.tasks.set(taskId, { ...task, leaseExpiresAt });
    }
    return Promise.resolve();
  }

  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    const mine: StoredTask[] = [];
    for (const task of this.tasks.values()) if (task.owner === owner && !this.expired(task)) mine.push(task);
    // Stable: tasks created in the same millisecond keep their creation order.
    mine.sort((a, b) => a.createdAt - b.createdAt);
    let start = 0;
    if (cursor !== undefined) {
      start = mine.findIndex((task) => task.taskId === cursor) + 1;
      if (start === 0) return Promise.resolve(undefined);
    }
    const tasks = mine.slice(start, start + limit);
    const more = start + limit < mine.length;
    return Promise.resolve(more ? { tasks, nextCursor: tasks[tasks.length - 1]?.taskId } : { tasks });
  }

  watch(taskId: string, listener: TaskListener): () => void {
    return this.watchers.add(taskId, listener);
  }

  close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    return Promise.resolve();
  }

  private put(task: StoredTask): StoredTask {
    this.tasks.set(task.taskId, task);
    this.watchers.tell(task.taskId, task);
    return task;
  }

  private live(taskId: string): StoredTask | undefined {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    if (!this.expired(task)) return task;
    this.drop(taskId);
    return undefined;
  }

  private expired(task: StoredTask): boolean {
    return task.ttlMs !== null && this.clock() >= task.createdAt + task.ttlMs;
  }

  private drop(taskId: string): void {
    this.tasks.delete(taskId);
    this.watchers.tell(taskId, undefined);
  }

  /** Drops expired tasks, else the oldest finished one; false when every task still runs. */
  private makeRoom(): boolean {
    this.sweep();
    if (this.tasks.size < this.maxTasks) return true;
    // Map order is creation order: the first finished task is the oldest.
    for (const task of this.tasks.values()) {
      if (isTerminalStatus(task.status)) {
        this.drop(task.taskId);
        return true;
      }
    }
    return false;
  }

  private sweep(): void {
    for (const task of [...this.tasks.values()]) if (this.expired(task)) this.drop(task.taskId);
    if (this.tasks.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}

/** `task` after `change` (shared by the stores that keep JSON objects). */
export function applyChange(task: StoredTask, change: TaskChange, now: number): StoredTask {
  const next: Record<string, unknown> = { ...task, lastUpdatedAt: now };
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next as unknown as StoredTask;
}
