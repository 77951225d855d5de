import type { HttpSession } from './http-session';

/** Live sessions by id, with an idle sweep. */
export class SessionStore {
  private readonly sessions = new Map<string, HttpSession>();
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly idleTimeoutMs: number) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  add(id: string, session: HttpSession): void {
    this.sessions.set(id, session);
    session.onClose(() => {
      if (this.sessions.get(id) === session) this.sessions.delete(id);
    });
    this.sweeper ??= this.startSweeper();
  }

  async closeAll(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }

  private startSweeper(): NodeJS.Timeout {
    const timer = setInterval(
      () => {
        const cutoff = Date.now() - this.idleTimeoutMs;
        for (const session of this.sessions.values()) {
          if (session.lastSeen < cutoff && !session.busy) void session.close();
        }
      },
      Math.max(50, Math.min(this.idleTimeoutMs / 2, 60_000)),
    );
    timer.unref();
    return timer;
  }
}
