import { setTimeout as delay } from 'node:timers/promises';
import { lock } from 'proper-lockfile';

/** How a {@link FileLock} waits and when it calls a lock abandoned. */
export interface FileLockOptions {
  /**
   * A lock whose holder has not refreshed it for this long is taken over: its holder was
   * killed (`kill -9`, power loss) or is stuck. The holder refreshes it every `staleMs / 2`.
   * Default 10 000 ms; at least 2 000 (proper-lockfile's floor).
   */
  staleMs?: number;
  /**
   * How long {@link FileLock.run} waits for a lock held by another process before failing.
   * Default 30 000 ms: longer than `staleMs`, so a dead holder's lock is always taken over first.
   */
  timeoutMs?: number;
}

/** The lock could not be had within `timeoutMs`. */
export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

/** Passed to the function run under the lock. */
export interface HeldLock {
  /** Throws when the lock was lost while held (its refresh failed, or another process took it over). */
  assertHeld(): void;
}

/**
 * A lock shared by every process that opens the same path: a `<path>.lock` directory made and
 * refreshed by proper-lockfile (mkdir is atomic on local and network file systems). Callers in
 * one process are queued here, so they never compete with each other for it.
 */
export class FileLock {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly staleMs: number;
  private readonly timeoutMs: number;

  constructor(
    /** The path the lock guards; the lock itself is the directory `<path>.lock`. */
    readonly path: string,
    options: FileLockOptions = {},
  ) {
    this.staleMs = Math.max(options.staleMs ?? 10_000, 2_000);
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Runs `task` while this process holds the lock, after every task queued before it. */
  run<R>(task: (held: HeldLock) => Promise<R>): Promise<R> {
    const next = this.queue.then(() => this.runLocked(task));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runLocked<R>(task: (held: HeldLock) => Promise<R>): Promise<R> {
    let lost: Error | undefined;
    const release = await this.acquire((error) => {
      lost = error;
    });
    const held: HeldLock = {
      assertHeld() {
        if (lost) throw new Error(`lost the lock while holding it: ${lost.message}`);
      },
    };
    try {
      return await task(held);
    } finally {
      // A lost lock is no longer ours to remove; proper-lockfile answers ERELEASED then.
      await release().catch(() => undefined);
    }
  }

  /** Polls with growing, jittered pauses: another process's lock gives no event to wait for. */
  private async acquire(onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await lock(this.path, {
          realpath: false, // the guarded file may not exist yet
          stale: this.staleMs,
          retries: 0,
          // proper-lockfile's default throws from a timer, which would end the process.
          onCompromised,
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
        if (Date.now() >= deadline) {
          throw new LockTimeoutError(
            `another process has held the lock for more than ${this.timeoutMs / 1000} s`,
          );
        }
        const ceiling = Math.min(5 * 2 ** attempt, 100);
        await delay(ceiling / 2 + Math.random() * (ceiling / 2));
      }
    }
  }
}
