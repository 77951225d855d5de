import type { Result } from './jsonrpc';
import type { InputRequests } from './stateless';

/**
 * Task methods. The 2025-11-25 experimental tasks (Basic › Utilities › Tasks) use `get`,
 * `result`, `list`, `cancel` and `notifications/tasks/status`; the 2026-07-28 extension
 * `io.modelcontextprotocol/tasks` (SEP-2663) uses `get`, `update`, `cancel` and `notifications/tasks`.
 */
export const TaskMethod = {
  Get: 'tasks/get',
  Result: 'tasks/result',
  List: 'tasks/list',
  Cancel: 'tasks/cancel',
  Update: 'tasks/update',
  Status: 'notifications/tasks/status',
  Notification: 'notifications/tasks',
} as const;

/** The id of the tasks extension of MCP 2026-07-28 (SEP-2663). */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** `_meta` key tying a message to a task (MCP 2025-11-25, Tasks § Related task metadata). */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** `_meta` key of the text a host may show the model while a task runs (MCP 2025-11-25). */
export const MODEL_IMMEDIATE_RESPONSE_META = 'io.modelcontextprotocol/model-immediate-response';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** True for `completed`, `failed` and `cancelled`: the statuses a task never leaves. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Whether a tool may run as a task (`Tool.execution.taskSupport`, MCP 2025-11-25). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A task as MCP 2025-11-25 describes it (`tasks/get`, `CreateTaskResult.task`). */
export interface SessionTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds from creation the task is kept; null: no limit. */
  ttl: number | null;
  pollInterval?: number;
}

/** A task as the 2026-07-28 extension describes it (`CreateTaskResult`, flat, `resultType: "task"`). */
export interface ExtensionTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** `tasks/get` of the 2026-07-28 extension: the task and what its status carries. */
export interface DetailedTask extends ExtensionTask {
  inputRequests?: InputRequests;
  result?: Result;
  error?: { code: number; message: string; data?: unknown };
}
