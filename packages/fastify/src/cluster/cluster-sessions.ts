import type { ClusterAccess, ClusterMessage, SessionRecord } from '@gantry/core';
import type { AuthInfo } from '@gantry/protocol';
import { type HttpSession, newId } from '../http-session';

/** Opens this node's replica of a session (`record` undefined: a new session). */
export type OpenReplica = (
  id: string,
  auth: AuthInfo | undefined,
  principal: string | undefined,
  replica: { record?: SessionRecord; save(record: SessionRecord): Promise<void> },
) => Promise<HttpSession>;

export interface ClusterSessionsOptions {
  /** Lifetime of a session after its last use (`sessions.idleTimeoutMs`). */
  readonly ttlMs: number;
  /** Sessions in the whole cluster (`sessions.max`). */
  readonly max: number;
  /** How long an idle replica stays in this node's memory; the session stays in the cluster. */
  readonly replicaIdleMs: number;
}

/** Thrown when the cluster's session store cannot be reached: the route answers 503. */
export class ClusterUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the session store is unreachable (${cause instanceof Error ? cause.message : String(cause)})`);
    this.name = 'ClusterUnavailableError';
  }
}

/**
 * The session-era sessions of an endpoint whose app has a cluster: each lives in the cluster's
 * session store, and this node keeps a replica of those it serves right now. Every request
 * that names a session refreshes it in the store (one round trip) and brings the replica up to
 * date, so any node answers any request of any session, with no sticky routing.
 */
export class ClusterSessions {
  private readonly replicas = new Map<string, HttpSession>();
  private readonly opening = new Map<string, Promise<HttpSession>>();
  private readonly unsubscribe: () => void;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly cluster: ClusterAccess,
    private readonly open: OpenReplica,
    private readonly options: ClusterSessionsOptions,
  ) {
    this.unsubscribe = cluster.onMessage((message) => this.receive(message));
  }

  /** The session `id` for `principal`, or undefined when it ended, expired or is someone else's. */
  async find(id: string, principal: string | undefined): Promise<HttpSession | undefined> {
    let record: SessionRecord | undefined;
    try {
      record = await this.cluster.link.sessions.touch(id, this.options.ttlMs);
    } catch (error) {
      throw new ClusterUnavailableError(error);
    }
    const local = this.replicas.get(id);
    if (!record) {
      // Ended on another node while its message was on the way, or expired.
      if (local) void local.close(true);
      return undefined;
    }
    if (record.principal !== principal) return undefined;
    if (local && !local.isClosed) {
      local.connection?.refresh?.(record);
      return local;
    }
    const pending = this.opening.get(id);
    if (pending) return pending;
    const opened = this.open(id, undefined, record.principal, {
      record,
      save: (changed) => this.save(changed),
    }).finally(() => this.opening.delete(id));
    this.opening.set(id, opened);
    const session = await opened;
    this.add(id, session);
    return session;
  }

  /**
   * A new session (before `initialize` is served). It enters the store when `initialize`
   * succeeds, or fails then if the cluster is at `max` sessions. Resolves undefined when the
   * cluster is at its limit already.
   */
  async create(auth: AuthInfo | undefined, principal: string | undefined): Promise<HttpSession | undefined> {
    let count: number;
    try {
      count = await this.cluster.link.sessions.count();
    } catch (error) {
      throw new ClusterUnavailableError(error);
    }
    if (count >= this.options.max) return undefined;
    const id = newId();
    let stored = false;
    const session = await this.open(id, auth, principal, {
      save: async (record) => {
        if (stored) return this.save(record);
        const created = await this.cluster.link.sessions.create(record, {
          max: this.options.max,
          ttlMs: this.options.ttlMs,
        });
        if (!created) {
          throw new Error(`the server is at its limit of ${this.options.max} sessions; try again later`);
        }
        stored = true;
      },
    });
    this.add(id, session);
    return session;
  }

  /** DELETE: ends the session on every node. */
  async end(session: HttpSession): Promise<void> {
    const id = session.id as string;
    try {
      await this.cluster.link.sessions.delete(id);
    } catch (error) {
      throw new ClusterUnavailableError(error);
    }
    await this.cluster.link.publish({ kind: 'session-ended', sessionId: id }).catch(() => undefined);
    await session.close();
  }

  /** Closes this node's replicas (the sessions live on in the cluster). */
  async closeAll(): Promise<void> {
    this.unsubscribe();
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await Promise.all([...this.replicas.values()].map((session) => session.close(true)));
  }

  private async save(record: SessionRecord): Promise<void> {
    if (!(await this.cluster.link.sessions.save(record, this.options.ttlMs))) {
      throw new Error('the session ended; send initialize to start a new one');
    }
  }

  private add(id: string, session: HttpSession): void {
    this.replicas.set(id, session);
    session.onClose(() => {
      if (this.replicas.get(id) === session) this.replicas.delete(id);
    });
    this.sweeper ??= this.startSweeper();
  }

  private receive(message: ClusterMessage): void {
    if (message.kind === 'session-ended') {
      void this.replicas.get(message.sessionId)?.close(true);
    } else if (message.kind === 'client-message') {
      const nodeId = message.nodeId;
      if (nodeId !== undefined && nodeId !== this.cluster.link.nodeId) return;
      this.replicas.get(message.sessionId)?.deliver(message.message);
    }
  }

  /**
   * Idle replicas leave this node's memory; busy ones (a GET stream held here, a request
   * running) keep their session alive in the store, and close when it ended elsewhere.
   */
  private startSweeper(): NodeJS.Timeout {
    const { replicaIdleMs, ttlMs } = this.options;
    const timer = setInterval(
      () => {
        const cutoff = Date.now() - replicaIdleMs;
        for (const [id, session] of this.replicas) {
          if (!session.busy) {
            if (session.lastSeen < cutoff) void session.close(true);
            continue;
          }
          this.cluster.link.sessions.touch(id, ttlMs).then(
            (record) => {
              if (!record) void session.close(true);
            },
            () => undefined,
          );
        }
      },
      Math.max(50, Math.min(replicaIdleMs / 2, ttlMs / 3, 30_000)),
    );
    timer.unref();
    return timer;
  }
}
