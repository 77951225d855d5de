// Tasks on the wire, both eras, through the real stdio transport: MCP 2025-11-25 experimental
// tasks (tools/call with "task", tasks/get, tasks/result, tasks/list, tasks/cancel,
// notifications/tasks/status) and the 2026-07-28 extension io.modelcontextprotocol/tasks
// (resultType "task", tasks/get → DetailedTask, tasks/update, tasks/cancel).
import 'reflect-metadata';
import type { GantryApplication } from '@gantry/core';
import type { AuthInfo } from '@gantry/protocol';
import { createTaskApp, Gates } from './fixtures/task-app';
import { openWire, type Wire } from './support/wire';

const RELATED = 'io.modelcontextprotocol/related-task';
const EXT = 'io.modelcontextprotocol/tasks';
const V = '2026-07-28';

let app: GantryApplication | undefined;
let gates: Gates;
const wires: Wire[] = [];

async function start(options = {}): Promise<GantryApplication> {
  gates = new Gates();
  app = await createTaskApp({ tasks: { pollIntervalMs: 50 }, shutdownGraceMs: 0, ...options }, gates);
  return app;
}

async function connect(auth?: AuthInfo): Promise<Wire> {
  if (!app) await start();
  const wire = await openWire(app as GantryApplication, auth ? { auth } : {});
  wires.push(wire);
  return wire;
}

afterEach(async () => {
  for (const wire of wires.splice(0)) await wire.close().catch(() => undefined);
  await app?.close();
  app = undefined;
});

let nextId = 1;

/** Sends a request and resolves with its response (other messages stay unread). */
function call(wire: Wire, method: string, params: Record<string, unknown> = {}): Promise<any> {
  const id = nextId++;
  wire.send({ jsonrpc: '2.0', id, method, params });
  return wire.nextMatching((m) => m.id === id && !('method' in m));
}

/** Stateless-era `_meta`, with or without the tasks extension. */
function meta(extension = true, auth?: string): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientCapabilities': {
      elicitation: { form: {} },
      ...(extension ? { extensions: { [EXT]: {} } } : {}),
    },
    'io.modelcontextprotocol/clientInfo': { name: auth ?? 'wire', version: '1' },
  };
}

function statelessCall(wire: Wire, method: string, params: Record<string, unknown> = {}, extension = true) {
  return call(wire, method, { ...params, _meta: meta(extension) });
}

/** Polls `tasks/get` (stateless era) until `done` holds for the task. */
async function pollUntil(wire: Wire, taskId: string, done: (task: any) => boolean): Promise<any> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const response = await statelessCall(wire, 'tasks/get', { taskId });
    if (response.error) throw new Error(JSON.stringify(response.error));
    if (done(response.result)) return response.result;
    if (Date.now() > deadline) throw new Error(`task ${taskId} stayed ${JSON.stringify(response.result)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('2025-11-25 tasks', () => {
  it('advertises the capability and each tool’s taskSupport', async () => {
    const wire = await connect();
    const init = await wire.initialize({ protocolVersion: '2025-11-25' });
    expect(init.result.capabilities.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const tools = (await call(wire, 'tools/list')).result.tools;
    const support = Object.fromEntries(tools.map((t: any) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({ slow_sum: 'optional', only_task: 'required', plain: undefined });
  });

  it('creates a task, reports progress tied to it, and answers tasks/result with the call’s result', async () => {
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const created = await call(wire, 'tools/call', {
      name: 'slow_sum',
      arguments: { a: 1, b: 2 },
      task: { ttl: 60_000 },
      _meta: { progressToken: 'p1' },
    });
    const task = created.result.task;
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 50 });
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    expect(created.result.content).toBeUndefined();

    const progress = await wire.nextMatching((m) => m.method === 'notifications/progress');
    expect(progress.params).toMatchObject({ progressToken: 'p1', progress: 1, total: 2 });
    expect(progress.params._meta[RELATED]).toEqual({ taskId: task.taskId });

    expect((await call(wire, 'tasks/get', { taskId: task.taskId })).result).toMatchObject({
      taskId: task.taskId,
      status: 'working',
    });
    const result = call(wire, 'tasks/result', { taskId: task.taskId });
    gates.open('sum-1-2');
    const answered = await result;
    expect(answered.result.content).toEqual([{ type: 'text', text: '3' }]);
    expect(answered.result._meta[RELATED]).toEqual({ taskId: task.taskId });
    const status = await wire.nextMatching(
      (m) => m.method === 'notifications/tasks/status' && m.params.status === 'completed',
    );
    expect(status.params.taskId).toBe(task.taskId);
    expect((await call(wire, 'tasks/get', { taskId: task.taskId })).result.status).toBe('completed');
  });

  it('refuses a required tool without a task and a task for a tool that has none (−32601)', async () => {
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const required = await call(wire, 'tools/call', { name: 'only_task' });
    expect(required.error.code).toBe(-32601);
    expect(required.error.message).toMatch(/only as a task/);
    const forbidden = await call(wire, 'tools/call', { name: 'plain', task: {} });
    expect(forbidden.error.code).toBe(-32601);
    const badTask = await call(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 1, b: 1 }, task: 5 });
    expect(badTask.error.code).toBe(-32602);
    // Without "task" an optional tool is an ordinary call.
    gates.open('sum-2-2');
    const ordinary = await call(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 2, b: 2 } });
    expect(ordinary.result.content).toEqual([{ type: 'text', text: '4' }]);
  });

  it('sends a task’s elicitations through the waiting tasks/result, tagged with the task', async () => {
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } });
    const { taskId } = (await call(wire, 'tools/call', { name: 'confirm_then_name', task: {} })).result.task;
    const result = call(wire, 'tasks/result', { taskId });
    for (const answer of [{ ok: true }, { name: 'Ada' }]) {
      const ask = await wire.nextMatching((m) => m.method === 'elicitation/create');
      expect(ask.params._meta[RELATED]).toEqual({ taskId });
      expect((await call(wire, 'tasks/get', { taskId })).result.status).toBe('input_required');
      wire.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: answer } });
    }
    expect((await result).result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });

  it('maps a JSON-RPC error and a tool error to failed, and tasks/result answers each as the call would', async () => {
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const rpc = (await call(wire, 'tools/call', { name: 'fail_rpc', task: {} })).result.task;
    const rpcResult = await call(wire, 'tasks/result', { taskId: rpc.taskId });
    expect(rpcResult.error).toEqual({ code: -32602, message: 'Invalid params: nothing to do' });
    expect((await call(wire, 'tasks/get', { taskId: rpc.taskId })).result.status).toBe('failed');

    const tool = (await call(wire, 'tools/call', { name: 'fail_tool', task: {} })).result.task;
    const toolResult = await call(wire, 'tasks/result', { taskId: tool.taskId });
    expect(toolResult.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'the tool broke' }],
    });
    const got = (await call(wire, 'tasks/get', { taskId: tool.taskId })).result;
    expect(got).toMatchObject({ status: 'failed', statusMessage: 'the tool broke' });
  });

  it('cancels a task at once, aborts its handler, and refuses to cancel it twice', async () => {
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const { taskId } = (await call(wire, 'tools/call', { name: 'wait_forever', task: {} })).result.task;
    const cancelled = await call(wire, 'tasks/cancel', { taskId });
    expect(cancelled.result).toMatchObject({ taskId, status: 'cancelled' });
    const handler = gates.reached.get('forever');
    expect(handler?.signal.aborted).toBe(true);
    expect((await call(wire, 'tasks/cancel', { taskId })).error.code).toBe(-32602);
    expect((await call(wire, 'tasks/result', { taskId })).error.message).toMatch(/cancelled/);
  });

  it('lists the session’s tasks in pages and hides them from other sessions', async () => {
    await start({ pageSize: 2, tasks: { pollIntervalMs: 50 } });
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await call(wire, 'tools/call', { name: 'only_task', task: {} })).result.task.taskId);
    const first = (await call(wire, 'tasks/list')).result;
    expect(first.tasks.map((t: any) => t.taskId)).toEqual(ids.slice(0, 2));
    const second = (await call(wire, 'tasks/list', { cursor: first.nextCursor })).result;
    expect(second.tasks.map((t: any) => t.taskId)).toEqual(ids.slice(2));
    expect(second.nextCursor).toBeUndefined();
    expect((await call(wire, 'tasks/list', { cursor: 'nope' })).error.code).toBe(-32602);

    const other = await connect();
    await other.initialize({ protocolVersion: '2025-11-25' });
    expect((await call(other, 'tasks/list')).result.tasks).toEqual([]);
    const foreign = await call(other, 'tasks/get', { taskId: ids[0] });
    expect(foreign.error.code).toBe(-32602);
    expect((await call(wire, 'tasks/get', { taskId: 'no-such-task' })).error.code).toBe(-32602);
  });

  it('limits the unfinished tasks of one caller', async () => {
    await start({ tasks: { maxActivePerPrincipal: 1 } });
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    expect((await call(wire, 'tools/call', { name: 'wait_forever', task: {} })).result.task.status).toBe(
      'working',
    );
    const refused = await call(wire, 'tools/call', { name: 'wait_forever', task: {} });
    expect(refused.error.code).toBe(-32026);
    expect(refused.error.message).toMatch(/maxActivePerPrincipal/);
  });

  it('fails a task whose result is larger than maxResultBytes, naming the limit', async () => {
    await start({ tasks: { pollIntervalMs: 50, maxResultBytes: 20 } });
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const created = await call(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 4, b: 5 }, task: {} });
    const { taskId } = created.result.task;
    gates.open('sum-4-5');
    const answered = await call(wire, 'tasks/result', { taskId });
    expect(answered.error).toMatchObject({ code: -32603 });
    expect(answered.error.message).toMatch(/is \d+ bytes, more than tasks\.maxResultBytes \(20\)/);
    const task = (await call(wire, 'tasks/get', { taskId })).result;
    expect(task).toMatchObject({ status: 'failed' });
    expect(task.statusMessage).toContain("tool 'slow_sum'");
  });

  it('grants at most maxTtlMs, and forgets a finished task once its ttl ran out', async () => {
    await start({ tasks: { pollIntervalMs: 50, defaultTtlMs: 200, maxTtlMs: 300 } });
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25' });
    const asked = await call(wire, 'tools/call', {
      name: 'slow_sum',
      arguments: { a: 7, b: 8 },
      task: { ttl: 10 ** 9 },
    });
    expect(asked.result.task.ttl).toBe(300);
    const unasked = await call(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 7, b: 8 }, task: {} });
    expect(unasked.result.task.ttl).toBe(200);
    gates.open('sum-7-8');
    const { taskId } = unasked.result.task;
    expect((await call(wire, 'tasks/result', { taskId })).result.content).toEqual([
      { type: 'text', text: '15' },
    ]);
    const deadline = Date.now() + 5000;
    let answer = await call(wire, 'tasks/get', { taskId });
    while (answer.result && Date.now() < deadline) {
      // Nothing announces an expiry: poll until the store has forgotten the task.
      await new Promise((resolve) => setTimeout(resolve, 20));
      answer = await call(wire, 'tasks/get', { taskId });
    }
    expect(answer.error).toMatchObject({ code: -32602 });
    expect(answer.error.message).toContain(taskId);
  });
});

describe('2026-07-28 tasks extension', () => {
  it('advertises the extension in server/discover, without the 2025-11-25 capability', async () => {
    const wire = await connect();
    const discovered = (await statelessCall(wire, 'server/discover')).result;
    expect(discovered.capabilities.extensions[EXT]).toEqual({});
    expect(discovered.capabilities.tasks).toBeUndefined();
  });

  it('returns a task to a request that declares the extension, and the result through tasks/get', async () => {
    const wire = await connect();
    const created = (await statelessCall(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 2, b: 3 } }))
      .result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 50 });
    expect(created.ttlMs).toBeGreaterThan(0);
    expect(created.task).toBeUndefined();
    const { taskId } = created;
    // Progress and log messages become the status message.
    await pollUntil(wire, taskId, (t) => t.statusMessage === `summing in ${taskId}`);
    gates.open('sum-2-3');
    const done = await pollUntil(wire, taskId, (t) => t.status === 'completed');
    expect(done.resultType).toBe('complete');
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '5' }] });
  });

  it('serves a request without the extension as an ordinary call, or −32021 for a required tool', async () => {
    const wire = await connect();
    gates.open('sum-1-1');
    const ordinary = await statelessCall(
      wire,
      'tools/call',
      { name: 'slow_sum', arguments: { a: 1, b: 1 } },
      false,
    );
    expect(ordinary.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '2' }] });
    const required = await statelessCall(wire, 'tools/call', { name: 'only_task' }, false);
    expect(required.error.code).toBe(-32021);
    expect(required.error.data.requiredCapabilities).toEqual({ extensions: { [EXT]: {} } });
    const get = await statelessCall(wire, 'tasks/get', { taskId: 'x' }, false);
    expect(get.error.code).toBe(-32021);
    expect((await statelessCall(wire, 'tasks/result', { taskId: 'x' })).error.code).toBe(-32601);
    expect((await statelessCall(wire, 'tasks/list')).error.code).toBe(-32601);
    expect((await statelessCall(wire, 'tasks/get', { taskId: 'x' })).error.code).toBe(-32602);
  });

  it('parks the task in input_required and resumes it with tasks/update answers', async () => {
    const wire = await connect();
    const { taskId } = (await statelessCall(wire, 'tools/call', { name: 'confirm_then_name' })).result;
    const first = await pollUntil(wire, taskId, (t) => t.status === 'input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['elicitation-1']);
    expect(first.inputRequests['elicitation-1']).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Go on?' },
    });
    // Unknown keys are ignored.
    const ack = await statelessCall(wire, 'tasks/update', {
      taskId,
      inputResponses: { 'elicitation-1': { action: 'accept', content: { ok: true } }, bogus: {} },
    });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const second = await pollUntil(wire, taskId, (t) => t.inputRequests?.['elicitation-2'] !== undefined);
    expect(Object.keys(second.inputRequests)).toEqual(['elicitation-2']);
    await statelessCall(wire, 'tasks/update', {
      taskId,
      inputResponses: { 'elicitation-2': { action: 'accept', content: { name: 'Ada' } } },
    });
    const done = await pollUntil(wire, taskId, (t) => t.status === 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });

  it('keeps an isError result completed and a JSON-RPC error failed', async () => {
    const wire = await connect();
    const tool = (await statelessCall(wire, 'tools/call', { name: 'fail_tool' })).result.taskId;
    const completed = await pollUntil(wire, tool, (t) => t.status !== 'working');
    expect(completed).toMatchObject({ status: 'completed', result: { isError: true } });
    const rpc = (await statelessCall(wire, 'tools/call', { name: 'fail_rpc' })).result.taskId;
    const failed = await pollUntil(wire, rpc, (t) => t.status !== 'working');
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32602, message: 'Invalid params: nothing to do' },
    });
  });

  it('acknowledges tasks/cancel and aborts the handler', async () => {
    const wire = await connect();
    const { taskId } = (await statelessCall(wire, 'tools/call', { name: 'wait_forever' })).result;
    const ack = await statelessCall(wire, 'tasks/cancel', { taskId });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    expect(gates.reached.get('forever')?.signal.aborted).toBe(true);
    expect((await pollUntil(wire, taskId, () => true)).status).toBe('cancelled');
    expect((await statelessCall(wire, 'tasks/cancel', { taskId: 'unknown' })).error.code).toBe(-32602);
  });

  it('answers another principal’s task as unknown', async () => {
    await start();
    const alice = await connect({ token: 'a', clientId: 'c', scopes: [], subject: 'alice' } as AuthInfo);
    const bob = await connect({ token: 'b', clientId: 'c', scopes: [], subject: 'bob' } as AuthInfo);
    const { taskId } = (await statelessCall(alice, 'tools/call', { name: 'wait_forever' })).result;
    expect((await statelessCall(alice, 'tasks/get', { taskId })).result.status).toBe('working');
    expect((await statelessCall(bob, 'tasks/get', { taskId })).error.code).toBe(-32602);
    expect((await statelessCall(bob, 'tasks/cancel', { taskId })).error.code).toBe(-32602);
    expect((await statelessCall(alice, 'tasks/get', { taskId })).result.status).toBe('working');
  });

  it('lets a task finish within the shutdown grace, and keeps its result', async () => {
    await start({ shutdownGraceMs: 60_000 });
    const wire = await connect();
    const { taskId } = (
      await statelessCall(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 2, b: 3 } })
    ).result;
    const running = await gates.whenReached('sum-2-3');
    const store = (app as any).server.tasks.store;
    const closing = (app as GantryApplication).close();
    expect((app as GantryApplication).draining).toBe(true);
    expect(running.signal.aborted).toBe(false);
    expect((await store.get(taskId)).status).toBe('working');
    // The task finishes while the app drains: close() waited for it, and it is not failed.
    gates.open('sum-2-3');
    await closing;
    expect(await store.get(taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: '5' }] },
    });
    expect(running.signal.aborted).toBe(false);
    app = undefined;
  });

  it('fails the tasks still running when the app shuts down', async () => {
    await start({ shutdownGraceMs: 0 });
    const wire = await connect();
    const { taskId } = (await statelessCall(wire, 'tools/call', { name: 'wait_forever' })).result;
    const store = (app as any).server.tasks.store;
    await (app as GantryApplication).close();
    const task = await store.get(taskId);
    expect(task).toMatchObject({
      status: 'failed',
      error: { message: 'The server shut down before the task finished' },
    });
    app = undefined;
  });
});

describe('a deferred task (deferTask): input_required rounds first, then a task', () => {
  it('2026-07-28: the call asks synchronously, and the retry answers with the task', async () => {
    const wire = await connect();
    const first = (await statelessCall(wire, 'tools/call', { name: 'greet_later' })).result;
    expect(first.resultType).toBe('input_required');
    expect(first.taskId).toBeUndefined();
    const [key] = Object.keys(first.inputRequests);
    const second = (
      await statelessCall(wire, 'tools/call', {
        name: 'greet_later',
        inputResponses: { [key]: { action: 'accept', content: { name: 'Lin' } } },
        requestState: first.requestState,
      })
    ).result;
    expect(second).toMatchObject({ resultType: 'task', status: 'working' });
    expect(second.requestState).toBeUndefined();
    const done = await pollUntil(wire, second.taskId, (t) => t.status === 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: `hello Lin (became task ${second.taskId})` }]);
  });

  it('2025-11-25: the task starts at the call, and runAsTask changes nothing', async () => {
    const wire = await connect();
    await wire.initialize({ protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } });
    const { taskId } = (await call(wire, 'tools/call', { name: 'greet_later', task: {} })).result.task;
    const result = call(wire, 'tasks/result', { taskId });
    const ask = await wire.nextMatching((m) => m.method === 'elicitation/create');
    wire.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ann' } } });
    expect((await result).result.content).toEqual([{ type: 'text', text: `hello Ann (was task ${taskId})` }]);
  });
});

describe('2026-07-28 notifications/tasks on a listen stream', () => {
  it('acknowledges the caller’s task ids and pushes each change of those tasks', async () => {
    const wire = await connect();
    const { taskId } = (
      await statelessCall(wire, 'tools/call', { name: 'slow_sum', arguments: { a: 4, b: 4 } })
    ).result;
    const listenId = nextId++;
    wire.send({
      jsonrpc: '2.0',
      id: listenId,
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [taskId, 'not-a-task'] }, _meta: meta() },
    });
    const ack = await wire.nextMatching((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params.notifications.taskIds).toEqual([taskId]);
    gates.open('sum-4-4');
    const pushed = await wire.nextMatching(
      (m) => m.method === 'notifications/tasks' && m.params.status === 'completed',
    );
    expect(pushed.params).toMatchObject({ taskId, result: { content: [{ type: 'text', text: '8' }] } });
    expect(pushed.params._meta['io.modelcontextprotocol/subscriptionId']).toBe(listenId);
    // No progress or log messages on the stream: the extension forbids them there.
    expect(
      wire.seen.some((m) => m.method === 'notifications/progress' || m.method === 'notifications/message'),
    ).toBe(false);
  });

  it('refuses task ids from a request that did not declare the extension (−32021)', async () => {
    const wire = await connect();
    const refused = await call(wire, 'subscriptions/listen', {
      notifications: { taskIds: ['x'] },
      _meta: meta(false),
    });
    expect(refused.error.code).toBe(-32021);
  });
});
