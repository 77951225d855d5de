import type { InputRequests, Result, TaskStatus } from '@gantry/protocol';

/** The JSON-RPC error a failed task ended with. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * One task as a `TaskStore` keeps it: plain JSON, so any node of a deployment can read it.
 * Times are epoch milliseconds; the wire forms (ISO 8601) are made when answering.
 */
export interface StoredTask {
  readonly taskId: string;
  /**
   * Who may see the task: `principal:<namespaced principal>` when the transport authenticated
   * the caller, `session:<id>` for an unauthenticated session-era session, `anyone` for an
   * unauthenticated stateless-era request (then the unguessable id is the only key).
   */
  readonly owner: string;
  /** The era of the request that created it: each answers it in its own shape. */
  readonly era: 'session' | 'stateless';
  /** The tool it runs. */
  readonly tool: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long after `createdAt` the task is kept; null: until the store is cleared. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  /** The node running it, and until when its lease holds (renewed while it runs). */
  readonly node: string;
  readonly leaseExpiresAt: number;
  /** What the call answered: set with `completed` (and `failed` for an `isError` result of 2025-11-25). */
  readonly result?: Result;
  /** The JSON-RPC error the call answered: set with `failed`. */
  readonly error?: TaskError;
  /** The input requests the handler waits for (`input_required`), by key. */
  readonly inputRequests?: InputRequests;
  /** Answers given with `tasks/update` that the running node has not taken yet, by key. */
  readonly inputResponses?: Record<string, unknown>;
}

/** What `TaskStore.update` may change. Absent fields stay; `null` removes an optional one. */
export interface TaskChange {
  readonly status?: TaskStatus;
  readonly statusMessage?: string | null;
  readonly result?: Result;
  readonly error?: TaskError;
  readonly inputRequests?: InputRequests | null;
  readonly node?: string;
  readonly leaseExpiresAt?: number;
}

/** One page of `TaskStore.list`. */
export interface TaskPage {
  readonly tasks: readonly StoredTask[];
  readonly nextCursor?: string;
}

/**
 * Where tasks live. The in-memory store is the default; `@gantry/redis` provides one every node
 * of a deployment shares. Every operation is atomic on one task: a terminal task never changes
 * again, whichever node writes.
 */
export interface TaskStore {
  /**
   * Stores a new task, unless its owner has `maxActivePerOwner` unfinished tasks already (then
   * resolves false). Resolves once a `get` on any node would find it.
   */
  create(task: StoredTask, limits: { readonly maxActivePerOwner: number }): Promise<boolean>;
  /** The task, or undefined when it never existed or its ttl ran out. */
  get(taskId: string): Promise<StoredTask | undefined>;
  /**
   * Applies `change` unless the task is terminal or gone; sets `lastUpdatedAt` to `now`.
   * Resolves the task as it is afterwards (unchanged when it was terminal), or undefined when gone.
   */
  update(taskId: string, change: TaskChange, now: number): Promise<StoredTask | undefined>;
  /**
   * Records `tasks/update` answers: only keys among the task's outstanding `inputRequests` are
   * kept, the rest ignored. Resolves the keys kept, or undefined when the task is gone.
   */
  answer(taskId: string, responses: Record<string, unknown>, now: number): Promise<string[] | undefined>;
  /**
   * Takes the answer to input request `key` (removing the request and the answer); when no
   * request stays outstanding the task is `working` again. Undefined when there is no answer yet.
   */
  takeAnswer(taskId: string, key: string, now: number): Promise<unknown>;
  /** Extends the lease of unfinished tasks `taskIds` (held by this node) to `leaseExpiresAt`. */
  renew(taskIds: readonly string[], leaseExpiresAt: number): Promise<void>;
  /**
   * The tasks of `owner`, oldest first, `limit` per page after `cursor` (the `nextCursor` of the
   * page before). Undefined when the cursor names no task of the owner.
   */
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined>;
  /**
   * Calls `listener` after each change of task `taskId`, made on any node, with the task as it
   * is then (undefined once it is gone). Returns the function that stops listening.
   */
  watch(taskId: string, listener: (task: StoredTask | undefined) => void): () => void;
  /** Releases what the store holds (timers, connections it opened). */
  close(): Promise<void>;
}
