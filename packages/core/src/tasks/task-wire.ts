import type { DetailedTask, ExtensionTask, SessionTask } from '@gantry/protocol';
import type { StoredTask } from './task-store';

/** A task as MCP 2025-11-25 answers it (`tasks/get`, `tasks/list`, `CreateTaskResult.task`). */
export function sessionTask(task: StoredTask): SessionTask {
  const wire: SessionTask = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  return wire;
}

/** A task as the 2026-07-28 tasks extension answers it (`CreateTaskResult`, flat). */
export function extensionTask(task: StoredTask): ExtensionTask {
  const wire: ExtensionTask = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  return wire;
}

/**
 * `tasks/get` of the tasks extension: the variant of `DetailedTask` for the current status
 * (`inputRequests` while `input_required`, `result` once `completed`, `error` once `failed`).
 */
export function detailedTask(task: StoredTask): DetailedTask {
  const wire: DetailedTask = extensionTask(task);
  if (task.status === 'input_required' && task.inputRequests) wire.inputRequests = task.inputRequests;
  if (task.status === 'completed' && task.result) wire.result = task.result;
  if (task.status === 'failed') {
    wire.error = task.error ?? { code: -32603, message: task.statusMessage ?? 'The task failed' };
  }
  return wire;
}
