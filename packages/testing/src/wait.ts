/** Options of `Changes.until` and `eventually`. */
export interface WaitOptions {
  /** How long to wait before rejecting. Default 10 000 ms: long enough for a loaded CI machine, short of a test runner's own timeout. */
  timeoutMs?: number;
  /** What is awaited, for the error message. */
  what?: string;
}

/**
 * A condition over state that callbacks change: the callbacks call `changed()` after each
 * change, and `until(check)` resolves as soon as `check()` holds — re-checked at every change,
 * never on a timer. Use it where a test collects notifications or output and awaits a state of
 * them (a count, a substring).
 *
 * @example
 * ```ts
 * const logs: unknown[] = [];
 * const changes = new Changes();
 * client.setNotificationHandler('notifications/message', (n) => {
 *   logs.push(n.params);
 *   changes.changed();
 * });
 * await client.callTool('log_all');
 * await changes.until(() => logs.length >= 4, { what: 'four log messages' });
 * ```
 */
export class Changes {
  private readonly waiters = new Set<() => void>();

  /** Re-checks every pending `until`. */
  changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Resolves once `check()` is true; rejects after `timeoutMs` naming `what`. */
  until(check: () => boolean, options: WaitOptions = {}): Promise<void> {
    if (check()) return Promise.resolve();
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'the condition'}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}

/**
 * Polls `check` (every `intervalMs`, default 10) until it is true or resolves to true; rejects
 * after `timeoutMs`. Only for conditions nothing announces — state in another process read
 * through a request, a socket's `readyState`: when a callback or event marks the change, await
 * that (or use `Changes`) instead.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  options: WaitOptions & { intervalMs?: number } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'the condition'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}
