/**
 * The requests this node is running (both eras, every transport), counted so that a draining
 * application can wait for them: one counter and, only while someone waits, one promise.
 */
export class InflightWork {
  private count = 0;
  private idle?: { promise: Promise<void>; resolve: () => void };

  /** How many requests are running. */
  get size(): number {
    return this.count;
  }

  /**
   * Counts `outcome` while it runs, and calls `release` (when given) once it settled: at once for
   * a plain value (nothing to wait for), which is returned as it is; a promise is returned as one
   * that settles the same way once it is no longer counted.
   */
  track<T>(outcome: T | Promise<T>, release?: () => void): T | Promise<T> {
    if (outcome === null || typeof (outcome as Promise<T>)?.then !== 'function') {
      release?.();
      return outcome;
    }
    this.count++;
    return (outcome as Promise<T>).then(
      (value) => {
        this.done(release);
        return value;
      },
      (error: unknown) => {
        this.done(release);
        throw error;
      },
    );
  }

  /** Resolves when no request runs (at once when none does). */
  settled(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    if (!this.idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }

  private done(release: (() => void) | undefined): void {
    release?.();
    this.count--;
    if (this.count === 0 && this.idle) {
      const { resolve } = this.idle;
      this.idle = undefined;
      resolve();
    }
  }
}
