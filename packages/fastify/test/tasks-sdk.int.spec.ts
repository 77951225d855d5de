// Gantry's 2025-11-25 tasks against the official SDK v1 client's experimental tasks API
// (client.experimental.tasks: callToolStream, getTask, getTaskResult, listTasks, cancelTask)
// over Streamable HTTP on a real socket: the SDK's own schemas check every task message, and
// its elicitation handler answers a task's input_required through tasks/result's SSE stream.
import type { AddressInfo } from 'node:net';
import type { GantryApplication } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTaskApp, Gates } from '../../core/test/fixtures/task-app';

let app: GantryApplication;
let fastify: FastifyInstance;
let gates: Gates;
let url: URL;
const clients: Client[] = [];

beforeEach(async () => {
  gates = new Gates();
  app = await createTaskApp({ tasks: { pollIntervalMs: 20 }, shutdownGraceMs: 0 }, gates);
  fastify = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  url = new URL(`http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`);
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await fastify.close();
  await app.close();
});

async function sdkClient(): Promise<Client> {
  const client = new Client(
    { name: 'sdk-tasks', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: 'accept',
    content: request.params.message === 'Go on?' ? { ok: true } : { name: 'Grace' },
  }));
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return client;
}

/** Every message of one callToolStream, by type. */
async function drain(stream: AsyncIterable<{ type: string; [key: string]: any }>) {
  const messages: { type: string; [key: string]: any }[] = [];
  for await (const message of stream) messages.push(message);
  return messages;
}

describe('the official SDK v1 client’s experimental tasks against Gantry over Streamable HTTP', () => {
  it('sees the capability and taskSupport, and streams a task to its result', async () => {
    const client = await sdkClient();
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'slow_sum')?.execution?.taskSupport).toBe('optional');
    const stream = client.experimental.tasks.callToolStream(
      { name: 'slow_sum', arguments: { a: 2, b: 40 } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    const opened = (async () => {
      await gates.whenReached('sum-2-40');
      gates.open('sum-2-40');
    })();
    const messages = await drain(stream);
    await opened;
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', ttl: 60_000 } });
    expect(messages.some((m) => m.type === 'taskStatus')).toBe(true);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: '42' }] },
    });
    const taskId = messages[0].task.taskId;
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
  });

  it('answers input_required with its elicitation handler through tasks/result', async () => {
    const client = await sdkClient();
    const messages = await drain(
      client.experimental.tasks.callToolStream({ name: 'confirm_then_name', arguments: {} }, undefined, {
        task: {},
      }),
    );
    expect(messages.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required')).toBe(true);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'hello Grace' }] },
    });
  });

  it('cancels a task and reads a failed one', async () => {
    const client = await sdkClient();
    const created = await drainUntilCreated(client, 'wait_forever');
    const cancelled = await client.experimental.tasks.cancelTask(created);
    expect(cancelled.status).toBe('cancelled');
    expect(gates.reached.get('forever')?.signal.aborted).toBe(true);

    const failing = await drain(
      client.experimental.tasks.callToolStream({ name: 'fail_rpc', arguments: {} }, undefined, { task: {} }),
    );
    expect(failing.at(-1)?.type).toBe('error');
    const failedId = failing[0].task.taskId;
    expect((await client.experimental.tasks.getTask(failedId)).status).toBe('failed');
    await expect(client.experimental.tasks.getTaskResult(failedId)).rejects.toMatchObject({ code: -32602 });
  });
});

/** Starts a task and returns its id once the SDK reports it created; the stream drains on meanwhile. */
async function drainUntilCreated(client: Client, name: string): Promise<string> {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: {} }, undefined, { task: {} });
  const first = await stream.next();
  if (first.done || first.value.type !== 'taskCreated')
    throw new Error(`no task was created: ${JSON.stringify(first)}`);
  void drain(stream).catch(() => undefined);
  return first.value.task.taskId;
}
