import type { StoredTask } from './task-store';

/** A listener of one task's changes (`undefined`: the task is gone). */
export type TaskListener = (task: StoredTask | undefined) => void;

/** The listeners of `TaskStore.watch`, by task id: what every store keeps to tell them. */
export class TaskWatchers {
  private readonly byTask = new Map<string, Set<TaskListener>>();

  /** Adds `listener` for `taskId`; the returned function removes it. */
  add(taskId: string, listener: TaskListener): () => void {
    let set = this.byTask.get(taskId);
    if (!set) {
      set = new Set();
      this.byTask.set(taskId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byTask.get(taskId) === set) this.byTask.delete(taskId);
    };
  }

  /** True while anyone listens to `taskId`. */
  has(taskId: string): boolean {
    return this.byTask.has(taskId);
  }

  /** The ids someone listens to. */
  ids(): IterableIterator<string> {
    return this.byTask.keys();
  }

  /** Tells the listeners of `taskId` (a listener may remove itself meanwhile). */
  tell(taskId: string, task: StoredTask | undefined): void {
    const set = this.byTask.get(taskId);
    if (set) for (const listener of [...set]) listener(task);
  }

  clear(): void {
    this.byTask.clear();
  }
}
