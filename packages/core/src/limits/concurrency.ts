/** A slot of a {@link Semaphore}: call `release()` exactly once. */
export interface Slot {
  release(): void;
}

/** Thrown by `acquire` when the queue is full. */
export class QueueFullError extends Error {}

interface Waiter {
  readonly grant: (slot: Slot) => void;
  readonly cleanup: () => void;
}

/** At most `max` holders; a bounded first-in-first-out queue of waiters. */
export class Semaphore {
  private running = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    readonly max: number,
    readonly queue: number,
  ) {}

  /** A slot now, or once one frees; rejects with `QueueFullError` or the signal's reason. */
  acquire(signal: AbortSignal): Promise<Slot> | Slot {
    if (this.running < this.max) {
      this.running++;
      return this.slot();
    }
    if (this.waiters.length >= this.queue) throw new QueueFullError();
    if (signal.aborted) throw signal.reason;
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        grant: resolve,
        cleanup: () => signal.removeEventListener('abort', onAbort),
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Calls waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  private slot(): Slot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiters.shift();
        if (next) {
          next.cleanup();
          // The slot passes straight to the next waiter: `running` stays the same.
          next.grant(this.slot());
        } else {
          this.running--;
        }
      },
    };
  }
}
