// The tasks extension (io.modelcontextprotocol/tasks, MCP 2026-07-28) over Streamable HTTP:
// tasks/get, tasks/update and tasks/cancel carry the task id in Mcp-Name, so a proxy can route
// by task; a missing or different Mcp-Name is refused with −32020 before anything runs. And a
// 2025-11-25 session is not closed as idle while one of its tasks runs.
import 'reflect-metadata';
import type { GantryApplication } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTaskApp, Gates } from '../../core/test/fixtures/task-app';
import { gantryMcp } from '../src';
import { b64, headersFor, injectStateless, rpc, without } from './stateless-support';
import { ACCEPT_BOTH, initSession } from './support';

const EXT = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: { form: {} }, extensions: { [EXT]: {} } };

let app: GantryApplication;
let fastify: FastifyInstance;
let gates: Gates;

beforeEach(async () => {
  gates = new Gates();
  app = await createTaskApp({ tasks: { pollIntervalMs: 20 }, shutdownGraceMs: 0 }, gates);
  fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app });
  await fastify.ready();
});

afterEach(async () => {
  await fastify.close();
  await app.close();
});

/** Starts `slow_sum` as a task and returns its id. */
async function startTask(): Promise<string> {
  const call = rpc(1, 'tools/call', { name: 'slow_sum', arguments: { a: 2, b: 3 } }, WITH_TASKS);
  const response = await injectStateless(fastify, call);
  expect(response.statusCode).toBe(200);
  const { result } = response.json();
  expect(result).toMatchObject({ resultType: 'task', status: 'working' });
  return result.taskId;
}

/** A tasks/* request of the extension, with the headers a conforming client sends for it. */
function taskRequest(id: number, method: string, params: Record<string, unknown>) {
  const body = rpc(id, method, params, WITH_TASKS);
  return { body, headers: headersFor(body, { 'mcp-name': String(params.taskId) }) };
}

describe('tasks over Streamable HTTP, 2026-07-28', () => {
  it('serves tasks/get, tasks/update and tasks/cancel whose Mcp-Name is the task id', async () => {
    const taskId = await startTask();
    const running = await gates.whenReached('sum-2-3');
    const get = taskRequest(2, 'tasks/get', { taskId });
    const got = await injectStateless(fastify, get.body, get.headers);
    expect(got.statusCode).toBe(200);
    expect(got.json().result).toMatchObject({ taskId, status: 'working', resultType: 'complete' });

    const encoded = taskRequest(3, 'tasks/get', { taskId });
    const viaBase64 = await injectStateless(
      fastify,
      encoded.body,
      headersFor(encoded.body, { 'mcp-name': b64(taskId) }),
    );
    expect(viaBase64.json().result.taskId).toBe(taskId);

    const update = taskRequest(4, 'tasks/update', { taskId, inputResponses: {} });
    const updated = await injectStateless(fastify, update.body, update.headers);
    expect(updated.statusCode).toBe(200);
    expect(updated.json().error).toBeUndefined();

    const cancel = taskRequest(5, 'tasks/cancel', { taskId });
    const cancelled = await injectStateless(fastify, cancel.body, cancel.headers);
    expect(cancelled.statusCode).toBe(200);
    expect(running.signal.aborted).toBe(true);
    const after = taskRequest(6, 'tasks/get', { taskId });
    expect((await injectStateless(fastify, after.body, after.headers)).json().result.status).toBe(
      'cancelled',
    );
  });

  it.each(['tasks/get', 'tasks/update', 'tasks/cancel'])(
    '%s without Mcp-Name, or naming another task, is refused with −32020 and changes nothing',
    async (method) => {
      const taskId = await startTask();
      const running = await gates.whenReached('sum-2-3');
      const params = method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
      const { body, headers } = taskRequest(7, method, params);

      const missing = await injectStateless(fastify, body, without(headers, 'mcp-name'));
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({
        id: 7,
        error: { code: -32020, message: `Header mismatch: the Mcp-Name header is required for ${method}` },
      });

      const other = await injectStateless(fastify, body, { ...headers, 'mcp-name': `${taskId}-other` });
      expect(other.statusCode).toBe(400);
      expect(other.json().error).toEqual({
        code: -32020,
        message: 'Header mismatch: Mcp-Name does not match params.taskId',
      });

      // Neither refused request reached the task: it is still running, and not aborted.
      expect(running.signal.aborted).toBe(false);
      const get = taskRequest(8, 'tasks/get', { taskId });
      expect((await injectStateless(fastify, get.body, get.headers)).json().result.status).toBe('working');
    },
  );
});

describe('tasks over Streamable HTTP, 2025-11-25', () => {
  /** One session-era POST; the JSON-RPC answer whether it came as JSON or as SSE. */
  async function post(session: string, body: Record<string, unknown>) {
    const response = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      payload: { jsonrpc: '2.0', ...body },
    });
    const data = response.body.split('\n').find((line) => line.startsWith('data: {'));
    return { status: response.statusCode, body: data ? JSON.parse(data.slice(6)) : response.json() };
  }

  it('keeps a session whose task still runs when idle sessions are closed, and closes it once the task ended', async () => {
    await fastify.close();
    fastify = Fastify({ logger: false });
    await fastify.register(gantryMcp, { app, sessions: { idleTimeoutMs: 100 } });
    await fastify.ready();
    const working = await initSession(fastify);
    const created = await post(working, {
      id: 1,
      method: 'tools/call',
      params: { name: 'slow_sum', arguments: { a: 6, b: 7 }, task: {} },
    });
    const { taskId } = created.body.result.task;
    await gates.whenReached('sum-6-7');

    // A session with nothing running shows when the idle sweep has run past the timeout.
    const [withTask] = app.server.sessions;
    const idle = await initSession(fastify);
    const [idleSession] = [...app.server.sessions].filter((session) => session !== withTask);
    expect(idle).not.toBe(working);
    await new Promise<void>((resolve) => idleSession.onClose(resolve));
    const during = await post(working, { id: 2, method: 'tasks/get', params: { taskId } });
    expect(during.status).toBe(200);
    expect(during.body.result.status).toBe('working');

    gates.open('sum-6-7');
    const result = await post(working, { id: 3, method: 'tasks/result', params: { taskId } });
    expect(result.body.result.content).toEqual([{ type: 'text', text: '13' }]);
    // Its task done, the session is idle like any other and goes.
    await new Promise<void>((resolve) => withTask.onClose(resolve));
    expect((await post(working, { id: 4, method: 'ping' })).status).toBe(404);
  });
});
