import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type InboundRequest,
  InternalError,
  InvalidParamsError,
  isObject,
  isTerminalStatus,
  JSONRPC_VERSION,
  type JSONRPCRequest,
  McpError,
  MethodNotFoundError,
  MissingRequiredClientCapabilityError,
  principalOf,
  RELATED_TASK_META,
  type RequestId,
  type RequestParams,
  type Result,
  TASKS_EXTENSION_ID,
  TaskMethod,
  versionAtLeast,
} from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import type { TaskEscalation } from '../context/mcp-context';
import { LimitErrorCode } from '../limits/limits-runtime';
import type { Logger } from '../logger';
import type { ToolDefinition } from '../registry/tool-definition';
import type { InflightWork } from '../server/inflight-work';
import type { ServerSession } from '../server/server-session';
import { MemoryTaskStore } from './memory-task-store';
import { resolveTaskSettings, type TaskSettings, type TasksOptions } from './task-options';
import { type SessionPeer, TaskRun, type TaskRunHost, taskSession } from './task-run';
import type { StoredTask, TaskChange, TaskError, TaskStore } from './task-store';
import { detailedTask, extensionTask, sessionTask } from './task-wire';

/** A `tasks/result` request waiting on a connection: the task's requests to the client go through it. */
interface ResultWaiter {
  readonly session: object;
  readonly id: RequestId;
}

/** What a task service is made with. */
export interface TaskServiceOptions {
  readonly options?: TasksOptions;
  /** The cluster's shared store, when there is one. */
  readonly clusterStore?: TaskStore;
  /** This node's id in the store's leases. */
  readonly nodeId?: string;
  readonly logger: Logger;
  /** The requests a draining application waits for: running tasks count among them. */
  readonly inflight: InflightWork;
}

/** Each unauthenticated session's key as a task owner (a cluster replica uses the session id). */
const sessionKeys = new WeakMap<object, string>();

/**
 * Runs `@Tool({ task })` methods as tasks, in both eras: MCP 2025-11-25 experimental tasks
 * (Basic › Utilities › Tasks) and the 2026-07-28 extension `io.modelcontextprotocol/tasks`
 * (SEP-2663). A task is stored before its `CreateTaskResult` is answered, runs on this node
 * under a lease it renews, and is read, answered and cancelled through the store from any node.
 */
export class TaskService implements TaskRunHost {
  readonly settings: TaskSettings;
  readonly store: TaskStore;
  private readonly ownsStore: boolean;
  private readonly nodeId: string;
  private readonly logger: Logger;
  private readonly inflight: InflightWork;
  private readonly runs = new Map<
    string,
    { readonly run: TaskRun; readonly session: ContextSession; readonly release?: () => void }
  >();
  private readonly resultWaiters = new Map<string, ResultWaiter[]>();
  private leaseTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(options: TaskServiceOptions) {
    this.settings = resolveTaskSettings(options.options);
    const store = options.options?.store ?? options.clusterStore;
    this.store = store ?? new MemoryTaskStore();
    this.ownsStore = store === undefined;
    this.nodeId = options.nodeId ?? 'local';
    this.logger = options.logger;
    this.inflight = options.inflight;
  }

  /** Number of tasks running on this node. */
  get running(): number {
    return this.runs.size;
  }

  /**
   * `tools/call` of a tool that can run as a task: starts the task and answers its
   * `CreateTaskResult`, or returns undefined when this call runs as an ordinary one.
   */
  call(
    tool: ToolDefinition,
    params: RequestParams | undefined,
    args: Record<string, unknown> | undefined,
    inbound: InboundRequest,
    session: ContextSession,
  ): Promise<Result> | undefined {
    const support = tool.task;
    if (session.era === 'stateless') {
      if (support === undefined) return undefined;
      const declared = session.clientCapabilities.extensions?.[TASKS_EXTENSION_ID] !== undefined;
      if (!declared) {
        if (support === 'optional') return undefined;
        // MCP 2026-07-28 tasks extension § Negotiation: the server cannot serve it without a task.
        throw new MissingRequiredClientCapabilityError(
          `Missing required client capability: tool '${tool.name}' runs only as a task; declare the ${TASKS_EXTENSION_ID} extension in this request's client capabilities`,
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
        );
      }
      // Input gathered by input_required rounds before the task exists is gathered synchronously:
      // a deferred tool becomes a task when its handler says so (ctx.runAsTask()).
      if (tool.deferTask) return this.deferred(tool, args, inbound, session);
      if (params?.requestState !== undefined || params?.inputResponses !== undefined) return undefined;
      return this.start(tool, args, inbound, session, undefined).then(
        (task) => ({ resultType: 'task', ...extensionTask(task) }) as Result,
      );
    }
    const requested = params?.task;
    const hasTasks = versionAtLeast(session.behaviourVersion, '2025-11-25');
    if (requested === undefined || !hasTasks) {
      if (support !== 'required') return undefined;
      // MCP 2025-11-25 Tasks § Tool-level negotiation: a required tool called without a task.
      throw new MethodNotFoundError(
        hasTasks
          ? `Tool '${tool.name}' runs only as a task (execution.taskSupport "required"): call it with "task": {} in the params`
          : `Tool '${tool.name}' runs only as a task, which needs protocol version 2025-11-25 or later (this session uses ${session.protocolVersion})`,
        { name: tool.name },
      );
    }
    if (!isObject(requested)) {
      throw new InvalidParamsError('Invalid params: "task" must be an object such as { "ttl": 60000 }');
    }
    if (support === undefined) {
      throw new MethodNotFoundError(
        `Tool '${tool.name}' does not run as a task (execution.taskSupport "forbidden"); call it without "task"`,
        { name: tool.name },
      );
    }
    const ttl = requested.ttl;
    if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0)) {
      throw new InvalidParamsError('Invalid params: task.ttl must be a non-negative number of milliseconds');
    }
    return this.start(tool, args, inbound, session, ttl ?? undefined).then((task) => ({
      task: sessionTask(task),
    }));
  }

  /** Who may see tasks created by `session` (see `StoredTask.owner`). */
  ownerOf(session: ContextSession): string {
    const principal = principalOf(session.auth);
    if (principal !== undefined) return `principal:${principal}`;
    if (session.era === 'stateless') return 'anyone';
    const replicaId = (session as Partial<ServerSession>).replica?.id;
    if (replicaId !== undefined) return `session:${replicaId}`;
    let key = sessionKeys.get(session);
    if (key === undefined) {
      key = randomUUID();
      sessionKeys.set(session, key);
    }
    return `session:${key}`;
  }

  /**
   * The task `taskId` as `session` may see it: undefined when it does not exist, expired, or
   * belongs to another owner (answered the same, so ids of others' tasks reveal nothing). A
   * task whose node stopped renewing its lease is failed here, on whichever node reads it.
   */
  async read(taskId: unknown, session: ContextSession): Promise<StoredTask | undefined> {
    if (typeof taskId !== 'string' || taskId === '') {
      throw new InvalidParamsError('Invalid params: "taskId" must be a non-empty string');
    }
    const task = await this.store.get(taskId);
    if (!task) return undefined;
    if (task.owner !== 'anyone' && task.owner !== this.ownerOf(session)) return undefined;
    if (isTerminalStatus(task.status) || task.leaseExpiresAt > Date.now() || this.runs.has(taskId))
      return task;
    const message = `Task ${taskId} was lost: the node running it (${task.node}) stopped before it finished`;
    return (
      (await this.change(taskId, {
        status: 'failed',
        statusMessage: message,
        error: { code: -32603, message },
      })) ?? task
    );
  }

  /** Like `read`, but an unknown task is the spec's −32602. */
  async require(taskId: unknown, session: ContextSession): Promise<StoredTask> {
    const task = await this.read(taskId, session);
    if (!task) {
      throw new InvalidParamsError(
        `Invalid params: no task ${JSON.stringify(taskId)} (unknown, expired or not yours)`,
      );
    }
    return task;
  }

  /**
   * Cancels a task for `session`: it turns `cancelled` before this resolves, and the node
   * running it aborts the handler's `ctx.signal`. Resolves the task afterwards.
   */
  async cancel(task: StoredTask): Promise<StoredTask> {
    const after = await this.change(task.taskId, {
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
    });
    return after ?? task;
  }

  /** Records `tasks/update` answers (unknown keys ignored). */
  async answer(task: StoredTask, responses: unknown): Promise<void> {
    if (!isObject(responses)) {
      throw new InvalidParamsError(
        'Invalid params: tasks/update needs "inputResponses", an object keyed by input request',
      );
    }
    await this.store.answer(task.taskId, responses as Record<string, unknown>, Date.now());
  }

  /** One page of `session`'s tasks (`tasks/list`). */
  async list(session: ContextSession, cursor: unknown, pageSize: number) {
    if (cursor !== undefined && typeof cursor !== 'string') {
      throw new InvalidParamsError('Invalid params: "cursor" must be a string');
    }
    const page = await this.store.list(this.ownerOf(session), cursor, pageSize);
    if (!page) throw new InvalidParamsError(`Invalid params: unknown cursor ${JSON.stringify(cursor)}`);
    return page;
  }

  /**
   * Waits until the task is terminal (`tasks/result`). Meanwhile the waiting request carries
   * the task's requests to the client (MCP 2025-11-25 Tasks § Input required).
   */
  async untilTerminal(task: StoredTask, waiter: ResultWaiter, signal: AbortSignal, session: ContextSession) {
    if (isTerminalStatus(task.status)) return task;
    const list = this.resultWaiters.get(task.taskId) ?? [];
    list.push(waiter);
    this.resultWaiters.set(task.taskId, list);
    try {
      return await new Promise<StoredTask>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const done = (result: StoredTask | Error) => {
          stop();
          clearInterval(timer);
          signal.removeEventListener('abort', onAbort);
          if (result instanceof Error) reject(result);
          else resolve(result);
        };
        const carried = new Set<string>();
        const check = (stored: StoredTask | undefined) => {
          if (!stored) done(new InvalidParamsError(`Invalid params: task ${task.taskId} expired`));
          else if (isTerminalStatus(stored.status)) done(stored);
          else if (stored.era === 'session' && stored.inputRequests) this.carry(stored, waiter, carried);
        };
        const onAbort = () => done(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        const stop = this.store.watch(task.taskId, check);
        signal.addEventListener('abort', onAbort, { once: true });
        // Also re-read now and then: a change notice may be lost, and a dead node's lease runs out unseen.
        const reread = () => this.read(task.taskId, session).then(check, (error: Error) => done(error));
        timer = setInterval(reread, Math.max(this.settings.pollIntervalMs, 250));
        timer.unref();
        reread();
      });
    } finally {
      const remaining = (this.resultWaiters.get(task.taskId) ?? []).filter((w) => w !== waiter);
      if (remaining.length > 0) this.resultWaiters.set(task.taskId, remaining);
      else this.resultWaiters.delete(task.taskId);
    }
  }

  /**
   * Sends the requests a session-era task parked in the store (see `TaskRun`) on the stream of
   * the waiting `tasks/result`, each once per waiter, with the id the running node awaits the
   * answer under; the answer reaches that node however the client posts it.
   */
  private carry(task: StoredTask, waiter: ResultWaiter, carried: Set<string>): void {
    const peer = (waiter.session as Partial<ServerSession>).peer;
    if (!peer) return;
    for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
      if (carried.has(key)) continue;
      carried.add(key);
      const message = {
        jsonrpc: JSONRPC_VERSION,
        id: JSON.parse(key) as RequestId,
        ...request,
      } as JSONRPCRequest;
      peer
        .forward(message, waiter.id)
        .catch((error: Error) =>
          this.logger.warn(`A request of task ${task.taskId} could not be sent to its client:`, error),
        );
    }
  }

  /**
   * `subscriptions/listen` with `notifications.taskIds` (the 2026-07-28 tasks extension): each id
   * `call` may see is followed, and every change of it is sent as `notifications/tasks` params.
   */
  async follow(
    taskIds: readonly string[],
    call: ContextSession,
    send: (params: Record<string, unknown>) => void,
  ): Promise<{ readonly accepted: string[]; stop(): void }> {
    const accepted: string[] = [];
    const stops: (() => void)[] = [];
    for (const taskId of new Set(taskIds)) {
      const task = await this.read(taskId, call);
      if (!task) continue;
      accepted.push(taskId);
      stops.push(
        this.store.watch(taskId, (changed) => {
          if (changed) send({ ...detailedTask(changed) });
        }),
      );
    }
    return {
      accepted,
      stop: () => {
        for (const stop of stops) stop();
      },
    };
  }

  /** What `tasks/result` answers for a terminal task: the call's own result or error. */
  static outcome(task: StoredTask): Result {
    const related = { [RELATED_TASK_META]: { taskId: task.taskId } };
    if (task.result) return { ...task.result, _meta: { ...task.result._meta, ...related } };
    const error = task.error ?? {
      code: -32603,
      message:
        task.status === 'cancelled'
          ? `Task ${task.taskId} was cancelled`
          : (task.statusMessage ?? 'The task failed'),
    };
    throw new McpError(error.code, error.message, error.data);
  }

  /** Stops every task of this node (failed: the server shut down) and what the service holds. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.leaseTimer);
    this.leaseTimer = undefined;
    const message = 'The server shut down before the task finished';
    await Promise.all(
      [...this.runs.values()].map(async ({ run, release }) => {
        try {
          await this.change(run.taskId, {
            status: 'failed',
            statusMessage: message,
            error: { code: -32603, message },
          });
        } catch (error) {
          this.logger.warn(`Task ${run.taskId} could not be marked failed at shutdown:`, error);
        }
        run.abort(message);
        run.finish();
        release?.();
      }),
    );
    this.runs.clear();
    if (this.ownsStore) await this.store.close();
  }

  // TaskRunHost

  change(taskId: string, change: TaskChange): Promise<StoredTask | undefined> {
    return this.store.update(taskId, change, Date.now());
  }

  takeAnswer(taskId: string, key: string): Promise<unknown> {
    return this.store.takeAnswer(taskId, key, Date.now());
  }

  watch(taskId: string, listener: (task: StoredTask | undefined) => void): () => void {
    return this.store.watch(taskId, listener);
  }

  statusChanged(task: StoredTask): void {
    const session = this.runs.get(task.taskId)?.session as Partial<ServerSession> | undefined;
    // MCP 2025-11-25 Tasks § Task status notification (optional for receivers; we send it).
    session?.notify?.(TaskMethod.Status, { ...sessionTask(task) }).catch(() => undefined);
  }

  private async start(
    tool: ToolDefinition,
    args: Record<string, unknown> | undefined,
    inbound: InboundRequest,
    session: ContextSession,
    ttl: number | undefined,
  ): Promise<StoredTask> {
    const task = await this.create(tool, session, ttl);
    const run = this.track(task, inbound, session);
    const callSession = run.callSession;
    this.finishWith(
      run.run,
      Promise.resolve().then(() => tool.handler.run(args, run.run.inbound, callSession)),
    );
    return task;
  }

  /**
   * `@Tool({ task, deferTask })` in 2026-07-28: the call runs as an ordinary one (its input is
   * gathered by `input_required` rounds) until the handler calls `ctx.runAsTask()`; the request
   * is then answered with the task, and the handler goes on inside it.
   */
  private deferred(
    tool: ToolDefinition,
    args: Record<string, unknown> | undefined,
    inbound: InboundRequest,
    session: ContextSession,
  ): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      let escalated: TaskRun | undefined;
      // The request's own call (one per stateless request): McpContext.runAsTask() finds it there.
      (session as { escalate?: TaskEscalation }).escalate = async () => {
        const task = await this.create(tool, session, undefined);
        const tracked = this.track(task, inbound, session);
        escalated = tracked.run;
        resolve({ resultType: 'task', ...extensionTask(task) } as Result);
        return { inbound: tracked.run.inbound, session: tracked.callSession };
      };
      const handled = Promise.resolve().then(() => tool.handler.run(args, inbound, session));
      handled.then(
        (result) => {
          if (escalated) this.finishWith(escalated, Promise.resolve(result));
          else resolve(result);
        },
        (error: unknown) => {
          if (escalated) this.finishWith(escalated, Promise.reject(error));
          else reject(error);
        },
      );
    });
  }

  /** Stores a new task for `session`'s caller; the owner's limit is checked in the same step. */
  private async create(
    tool: ToolDefinition,
    session: ContextSession,
    ttl: number | undefined,
  ): Promise<StoredTask> {
    if (this.closed)
      throw new InternalError('Internal error: the server is shutting down and starts no new tasks');
    const { defaultTtlMs, maxTtlMs, pollIntervalMs, maxActivePerPrincipal, leaseMs } = this.settings;
    const now = Date.now();
    const task: StoredTask = {
      taskId: randomUUID(),
      owner: this.ownerOf(session),
      era: session.era === 'stateless' ? 'stateless' : 'session',
      tool: tool.name,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      // The receiver may grant less than asked (MCP 2025-11-25 Tasks § ttl).
      ttlMs: Math.min(Math.max(Math.round(ttl ?? defaultTtlMs), 1), maxTtlMs),
      pollIntervalMs,
      node: this.nodeId,
      leaseExpiresAt: now + leaseMs,
    };
    if (!(await this.store.create(task, { maxActivePerOwner: maxActivePerPrincipal }))) {
      throw new McpError(
        LimitErrorCode.TooManyInflight,
        `Too many tasks: this caller already has ${maxActivePerPrincipal} unfinished tasks (tasks.maxActivePerPrincipal), or the task store is full of unfinished tasks; wait for one to finish or cancel one`,
        { limit: maxActivePerPrincipal },
      );
    }
    return task;
  }

  /** Starts following a stored task on this node: its run (signal, channel) and its lease. */
  private track(
    task: StoredTask,
    inbound: InboundRequest,
    session: ContextSession,
  ): { readonly run: TaskRun; readonly callSession: ContextSession } {
    const serverSession = session.era === 'stateless' ? undefined : (session as ServerSession);
    const peer: SessionPeer | undefined = serverSession && {
      channel: serverSession.peer,
      viaStore: serverSession.routesByRequest,
      side: () => this.resultWaiters.get(task.taskId)?.find((w) => w.session === serverSession)?.id,
    };
    const run = new TaskRun(this, task, inbound.request, peer);
    // A session-era task keeps its session from being closed as idle while it runs here.
    this.runs.set(task.taskId, { run, session, release: serverSession?.hold() });
    const callSession = serverSession ?? taskSession(session, run);
    this.leaseTimer ??= setInterval(() => this.renew(), Math.max(Math.floor(this.settings.leaseMs / 3), 1));
    this.leaseTimer.unref();
    return { run, callSession };
  }

  /** Stores the outcome of `handled` once it settles; a draining application waits for it. */
  private finishWith(run: TaskRun, handled: Promise<CallToolResult>): void {
    const outcome = handled.then(
      (result) => this.settle(run, result, undefined),
      (error: unknown) => this.settle(run, undefined, error),
    );
    void this.inflight.track(outcome);
  }

  /** Stores how the handler ended: each era maps results and errors to its own terminal states. */
  private async settle(run: TaskRun, result: CallToolResult | undefined, error: unknown): Promise<void> {
    const { taskId, task } = run;
    let change: TaskChange | undefined;
    if (error !== undefined || result === undefined) {
      if (!run.inbound.cancelled) {
        const wire: TaskError =
          error instanceof McpError
            ? {
                code: error.code,
                message: error.message,
                ...(error.data === undefined ? {} : { data: error.data }),
              }
            : {
                code: -32603,
                message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
              };
        change = { status: 'failed', statusMessage: wire.message, error: wire };
      }
    } else {
      const stored: Result = task.era === 'stateless' ? { ...result, resultType: 'complete' } : result;
      const bytes = Buffer.byteLength(JSON.stringify(stored));
      if (bytes > this.settings.maxResultBytes) {
        const message = `The result of tool '${task.tool}' is ${bytes} bytes, more than tasks.maxResultBytes (${this.settings.maxResultBytes})`;
        change = { status: 'failed', statusMessage: message, error: { code: -32603, message } };
      } else if (task.era === 'session' && result.isError === true) {
        // MCP 2025-11-25: a tool result with isError makes the task failed; the 2026 extension keeps it completed.
        change = { status: 'failed', statusMessage: firstText(result), result: stored };
      } else {
        change = { status: 'completed', result: stored };
      }
    }
    try {
      if (change) await this.change(taskId, change);
    } catch (failure) {
      this.logger.error(
        `Task ${taskId} (tool '${task.tool}') ended, but its outcome could not be stored:`,
        failure,
      );
    } finally {
      run.finish();
      this.runs.get(taskId)?.release?.();
      this.runs.delete(taskId);
      if (this.runs.size === 0) {
        clearInterval(this.leaseTimer);
        this.leaseTimer = undefined;
      }
    }
  }

  /** Extends the lease of every task running here. */
  private renew(): void {
    const ids = [...this.runs.keys()];
    if (ids.length === 0) return;
    this.store
      .renew(ids, Date.now() + this.settings.leaseMs)
      .catch((error) =>
        this.logger.warn(`The leases of ${ids.length} running task(s) could not be renewed:`, error),
      );
  }
}

/** The first text block of a result, for a failed task's status message. */
function firstText(result: CallToolResult): string | undefined {
  const block = result.content?.find((c) => c.type === 'text') as { text?: string } | undefined;
  return block?.text?.slice(0, 500);
}
