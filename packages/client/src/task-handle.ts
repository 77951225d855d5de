import {
  type CallToolResult,
  type InputResponses,
  isObject,
  isTerminalStatus,
  McpError,
  RequestCancelledError,
  type Result,
  TaskMethod,
  type TaskStatus,
} from '@gantry/protocol';

/** A task as the client reports it, whichever era the server speaks. */
export interface TaskInfo {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** How long the server keeps the task from its creation; null: no limit. */
  readonly ttlMs: number | null;
  /** How often the server asks to be polled. */
  readonly pollIntervalMs?: number;
}

/** What a task handle needs of its client. */
export interface TaskDriver {
  readonly era: 'session' | 'stateless';
  /** One request of the task's era (tasks/get, tasks/result, tasks/update, tasks/cancel). */
  request(method: string, params: Record<string, unknown>): Promise<Result>;
  /**
   * Stateless era: answers input requests with the client's handlers (as for `input_required`).
   */
  answer?(requests: Record<string, unknown>): Promise<InputResponses>;
  /** The shortest poll interval the client uses, whatever the server asks. */
  readonly minPollMs: number;
}

/** The task fields of a 2025-11-25 `Task` or a 2026-07-28 (`Detailed`)`Task`. */
export function taskInfoOf(wire: Record<string, unknown>): TaskInfo {
  const taskId = wire.taskId;
  const status = wire.status;
  if (typeof taskId !== 'string' || typeof status !== 'string') {
    throw new McpError(
      -32603,
      `The server answered a task without taskId and status: ${JSON.stringify(wire).slice(0, 200)}`,
    );
  }
  const ttl = wire.ttlMs !== undefined ? wire.ttlMs : wire.ttl;
  const poll = wire.pollIntervalMs !== undefined ? wire.pollIntervalMs : wire.pollInterval;
  const info: { -readonly [K in keyof TaskInfo]: TaskInfo[K] } = {
    taskId,
    status: status as TaskStatus,
    createdAt: String(wire.createdAt),
    lastUpdatedAt: String(wire.lastUpdatedAt ?? wire.createdAt),
    ttlMs: typeof ttl === 'number' ? ttl : null,
  };
  if (typeof poll === 'number') info.pollIntervalMs = poll;
  if (typeof wire.statusMessage === 'string') info.statusMessage = wire.statusMessage;
  return info;
}

type Outcome =
  | { readonly ok: true; readonly result: CallToolResult }
  | { readonly ok: false; readonly error: Error };

/**
 * A tool call running as a task on the server (MCP 2025-11-25 tasks, or the 2026-07-28
 * extension `io.modelcontextprotocol/tasks`). It polls at the server's interval, answers the
 * task's requests for input with the client's handlers, and ends with the call's result.
 *
 * @example
 * ```ts
 * const task = await client.callTool('export_notes', { format: 'json' }, { task: true });
 * for await (const update of task) console.log(update.status, update.statusMessage ?? '');
 * const result = await task.result();
 * ```
 */
export class TaskHandle implements AsyncIterable<TaskInfo> {
  private latest: TaskInfo | undefined;
  private outcome?: Promise<Outcome>;
  private readonly history: TaskInfo[] = [];
  private readonly wakers = new Set<() => void>();
  private finished = false;
  private readonly answered = new Set<string>();
  private stopPolling?: () => void;

  /** @internal Made by `Client.callTool(…, { task: true })`. */
  constructor(
    private readonly driver: TaskDriver | undefined,
    created: TaskInfo | undefined,
    /** The result, when the server answered the call at once (no task). */
    private readonly immediate?: CallToolResult,
  ) {
    this.latest = created;
    if (created) this.record(created);
  }

  /** The task's id; undefined when the server ran the call without a task. */
  get taskId(): string | undefined {
    return this.latest?.taskId;
  }

  /** The task as last seen (undefined without a task). */
  get task(): TaskInfo | undefined {
    return this.latest;
  }

  /** Asks the server for the task's state now (`tasks/get`). */
  async status(): Promise<TaskInfo | undefined> {
    if (!this.driver || !this.latest) return undefined;
    const wire = await this.driver.request(TaskMethod.Get, { taskId: this.latest.taskId });
    const info = taskInfoOf(wire);
    this.record(info);
    return info;
  }

  /**
   * The call's result once the task ends: the tool's `CallToolResult` (also one with
   * `isError`); rejects with the call's JSON-RPC error (`McpError`) when it failed with one, and
   * with `RequestCancelledError` when the task was cancelled.
   */
  async result(): Promise<CallToolResult> {
    const outcome = await this.run();
    if (outcome.ok) return outcome.result;
    throw outcome.error;
  }

  /** Cancels the task (`tasks/cancel`); `result()` then rejects. */
  async cancel(): Promise<void> {
    if (!this.driver || !this.latest || this.finished) return;
    await this.driver.request(TaskMethod.Cancel, { taskId: this.latest.taskId });
    this.stopPolling?.();
  }

  /** Each state of the task as it changes (status or status message), until it is terminal. */
  async *updates(): AsyncGenerator<TaskInfo> {
    void this.run().catch(() => undefined);
    let index = 0;
    for (;;) {
      while (index < this.history.length) yield this.history[index++];
      if (this.finished) return;
      await new Promise<void>((resolve) => this.wakers.add(resolve));
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<TaskInfo> {
    return this.updates();
  }

  private run(): Promise<Outcome> {
    this.outcome ??= this.drive().then(
      (result): Outcome => ({ ok: true, result }),
      (error: Error): Outcome => ({ ok: false, error }),
    );
    return this.outcome.then((outcome) => {
      this.finish();
      return outcome;
    });
  }

  private async drive(): Promise<CallToolResult> {
    const driver = this.driver;
    if (!driver || !this.latest) return this.immediate as CallToolResult;
    const taskId = this.latest.taskId;
    let task = this.latest;
    for (;;) {
      if (driver.era === 'session' && (task.status === 'input_required' || isTerminalStatus(task.status))) {
        // MCP 2025-11-25 Tasks: tasks/result returns the outcome, and carries the task's requests for input.
        if (task.status === 'cancelled') throw cancelled(taskId);
        try {
          const result = (await driver.request(TaskMethod.Result, { taskId })) as CallToolResult;
          await this.status().catch(() => undefined);
          return withoutRelatedTask(result);
        } catch (error) {
          if (error instanceof McpError && /cancelled/.test(error.message)) throw cancelled(taskId);
          throw error;
        }
      }
      if (driver.era === 'stateless') {
        const detailed = await driver.request(TaskMethod.Get, { taskId });
        task = taskInfoOf(detailed);
        this.record(task);
        if (task.status === 'completed') return withoutEnvelope(detailed.result as CallToolResult);
        if (task.status === 'failed') {
          const error = isObject(detailed.error)
            ? detailed.error
            : { code: -32603, message: task.statusMessage ?? 'The task failed' };
          throw new McpError(Number(error.code), String(error.message), error.data);
        }
        if (task.status === 'cancelled') throw cancelled(taskId);
        if (task.status === 'input_required' && isObject(detailed.inputRequests)) {
          await this.answerNew(detailed.inputRequests as Record<string, unknown>, taskId);
          continue;
        }
      }
      await this.wait(Math.max(task.pollIntervalMs ?? 1000, driver.minPollMs));
      if (driver.era === 'session') task = (await this.status()) ?? task;
    }
  }

  /** Answers the input requests not answered before (keys are unique over a task's life). */
  private async answerNew(requests: Record<string, unknown>, taskId: string): Promise<void> {
    const fresh: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) if (!this.answered.has(key)) fresh[key] = request;
    if (Object.keys(fresh).length === 0) {
      await this.wait(Math.max(this.latest?.pollIntervalMs ?? 1000, this.driver?.minPollMs ?? 0));
      return;
    }
    for (const key of Object.keys(fresh)) this.answered.add(key);
    const inputResponses = await (this.driver?.answer?.(fresh) ?? Promise.resolve({}));
    await this.driver?.request(TaskMethod.Update, { taskId, inputResponses });
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.stopPolling = done;
    });
  }

  private record(info: TaskInfo): void {
    const last = this.history[this.history.length - 1];
    this.latest = info;
    if (last && last.status === info.status && last.statusMessage === info.statusMessage) return;
    this.history.push(info);
    this.wake();
  }

  private finish(): void {
    this.finished = true;
    this.wake();
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
    this.wakers.clear();
  }
}

function cancelled(taskId: string): RequestCancelledError {
  return new RequestCancelledError('tools/call', `task ${taskId} was cancelled`);
}

/** The tool result without the related-task `_meta` tasks/result adds. */
function withoutRelatedTask(result: CallToolResult): CallToolResult {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !('io.modelcontextprotocol/related-task' in meta)) return result;
  const { 'io.modelcontextprotocol/related-task': _, ...rest } = meta;
  const out: CallToolResult = { ...result };
  if (Object.keys(rest).length > 0) out._meta = rest;
  else delete out._meta;
  return out;
}

/** A stateless-era result in the session era's shape (no resultType, no serverInfo). */
function withoutEnvelope(result: CallToolResult): CallToolResult {
  const { resultType: _t, ...rest } = result as CallToolResult & { resultType?: unknown };
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (meta && 'io.modelcontextprotocol/serverInfo' in meta) {
    const { 'io.modelcontextprotocol/serverInfo': _i, ...others } = meta;
    if (Object.keys(others).length > 0) rest._meta = others;
    else delete rest._meta;
  }
  return rest as CallToolResult;
}
