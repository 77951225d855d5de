import {
  InvalidParamsError,
  isTerminalStatus,
  MissingRequiredClientCapabilityError,
  type Result,
  TASKS_EXTENSION_ID,
  TaskMethod,
} from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import type { MethodHandler } from '../server/method-table';
import { TaskService } from './task-service';
import { detailedTask, sessionTask } from './task-wire';

/**
 * The task methods of MCP 2025-11-25 (Basic › Utilities › Tasks): `tasks/get`, `tasks/result`,
 * `tasks/list`, `tasks/cancel`. Tasks the session may not see answer as unknown (−32602).
 */
export function sessionTaskMethods(tasks: TaskService, pageSize: number): [string, MethodHandler][] {
  const get: MethodHandler = async (params, _inbound, session) =>
    ({ ...sessionTask(await tasks.require(params?.taskId, session)) }) as Result;

  const result: MethodHandler = async (params, inbound, session) => {
    const task = await tasks.require(params?.taskId, session);
    const final = await tasks.untilTerminal(task, { session, id: inbound.id }, inbound.signal, session);
    return TaskService.outcome(final);
  };

  const list: MethodHandler = async (params, _inbound, session) => {
    const page = await tasks.list(session, params?.cursor, pageSize);
    const out: Result = { tasks: page.tasks.map(sessionTask) };
    if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
    return out;
  };

  const cancel: MethodHandler = async (params, _inbound, session) => {
    const task = await tasks.require(params?.taskId, session);
    if (isTerminalStatus(task.status)) {
      throw new InvalidParamsError(
        `Invalid params: task ${task.taskId} is already ${task.status}; only an unfinished task can be cancelled`,
      );
    }
    const after = await tasks.cancel(task);
    if (after.status !== 'cancelled') {
      throw new InvalidParamsError(
        `Invalid params: task ${task.taskId} ${after.status} before it could be cancelled`,
      );
    }
    return { ...sessionTask(after) } as Result;
  };

  return [
    [TaskMethod.Get, get],
    [TaskMethod.Result, result],
    [TaskMethod.List, list],
    [TaskMethod.Cancel, cancel],
  ];
}

/** −32021 for a request that did not declare the tasks extension (MCP 2026-07-28 tasks extension). */
function requireExtension(session: ContextSession, method: string): void {
  if (session.clientCapabilities.extensions?.[TASKS_EXTENSION_ID] !== undefined) return;
  throw new MissingRequiredClientCapabilityError(
    `Missing required client capability: ${method} needs the ${TASKS_EXTENSION_ID} extension in this request's client capabilities`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}

/**
 * The methods of the 2026-07-28 tasks extension (SEP-2663): `tasks/get` (a `DetailedTask`),
 * `tasks/update` (answers to `inputRequests`) and `tasks/cancel` (cooperative). `tasks/result`
 * and `tasks/list` do not exist there (−32601).
 */
export function extensionTaskMethods(tasks: TaskService): [string, MethodHandler][] {
  const get: MethodHandler = async (params, _inbound, session) => {
    requireExtension(session, TaskMethod.Get);
    return { ...detailedTask(await tasks.require(params?.taskId, session)) } as Result;
  };
  const update: MethodHandler = async (params, _inbound, session) => {
    requireExtension(session, TaskMethod.Update);
    await tasks.answer(await tasks.require(params?.taskId, session), params?.inputResponses);
    return {};
  };
  const cancel: MethodHandler = async (params, _inbound, session) => {
    requireExtension(session, TaskMethod.Cancel);
    const task = await tasks.require(params?.taskId, session);
    if (!isTerminalStatus(task.status)) await tasks.cancel(task);
    return {};
  };
  return [
    [TaskMethod.Get, get],
    [TaskMethod.Update, update],
    [TaskMethod.Cancel, cancel],
  ];
}
