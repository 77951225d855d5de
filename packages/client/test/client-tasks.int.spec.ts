// @gantry/client tasks against a real Gantry server on a loopback socket, both eras: Streamable
// HTTP (the Fastify plugin, session and stateless era) and WebSocket. `callTool(…, { task: true })`
// returns a handle that polls, answers the task's requests for input with the client's handlers,
// cancels, and ends with the call's result or error.
import type { AddressInfo } from 'node:net';
import {
  Client,
  clearEraCache,
  StreamableHttpClientTransport,
  WebSocketClientTransport,
} from '@gantry/client';
import type { GantryApplication } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import { McpError, RequestCancelledError } from '@gantry/protocol';
import { attachWebSocket } from '@gantry/ws';
import Fastify from 'fastify';
import { createTaskApp, Gates } from '../../core/test/fixtures/task-app';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});
beforeEach(() => clearEraCache());

let gates: Gates;

async function serve(): Promise<{ app: GantryApplication; http: string; ws: string }> {
  gates = new Gates();
  const app = await createTaskApp({ tasks: { pollIntervalMs: 20 }, shutdownGraceMs: 0 }, gates);
  const fastify = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  attachWebSocket(app, { server: fastify.server, path: '/ws' });
  const { port } = fastify.server.address() as AddressInfo;
  cleanups.push(async () => {
    await fastify.close();
    await app.close();
  });
  return { app, http: `http://127.0.0.1:${port}/mcp`, ws: `ws://127.0.0.1:${port}/ws` };
}

type Transport = 'http' | 'ws';
type Era = 'session' | 'stateless';

async function connect(era: Era, transport: Transport = 'http'): Promise<Client> {
  const urls = await serve();
  const client = new Client(
    { name: 'task-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', (params) =>
    (params.message as string) === 'Go on?'
      ? { action: 'accept', content: { ok: true } }
      : { action: 'accept', content: { name: 'Ada' } },
  );
  await client.connect(
    transport === 'http'
      ? new StreamableHttpClientTransport({ url: urls.http })
      : new WebSocketClientTransport({ url: urls.ws }),
    { era },
  );
  expect(client.era).toBe(era);
  cleanups.push(() => client.close());
  return client;
}

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0]?.text;

describe.each<[Era, Transport]>([
  ['session', 'http'],
  ['stateless', 'http'],
  ['session', 'ws'],
  ['stateless', 'ws'],
])('%s era over %s', (era, transport) => {
  it('runs a tool as a task and ends with its result, reporting each state on the way', async () => {
    const client = await connect(era, transport);
    const task = await client.callTool('slow_sum', { a: 20, b: 22 }, { task: true });
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(task.task?.status).toBe('working');
    const seen: string[] = [];
    const iterated = (async () => {
      for await (const update of task) seen.push(update.status);
    })();
    // Poll until the handler is inside the task, then let it finish.
    await gates.whenReached('sum-20-22');
    gates.open('sum-20-22');
    expect(text(await task.result())).toBe('42');
    await iterated;
    expect(seen[0]).toBe('working');
    expect(seen.at(-1)).toBe('completed');
    expect((await task.status())?.status).toBe('completed');
  });

  it('answers the task’s requests for input with the client’s elicitation handler', async () => {
    const client = await connect(era, transport);
    const task = await client.callTool('confirm_then_name', {}, { task: true });
    expect(task.taskId).toBeDefined();
    expect(text(await task.result())).toBe('hello Ada');
  });

  it('rejects with the call’s JSON-RPC error, and resolves an isError result', async () => {
    const client = await connect(era, transport);
    const failing = await client.callTool('fail_rpc', {}, { task: true });
    const error = await failing.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    const broken = await client.callTool('fail_tool', {}, { task: true });
    const result = await broken.result();
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('the tool broke');
    // 2025-11-25 calls such a task failed; the 2026-07-28 extension keeps it completed.
    expect((await broken.status())?.status).toBe(era === 'session' ? 'failed' : 'completed');
  });

  it('cancels a task: the handler is aborted and result() rejects', async () => {
    const client = await connect(era, transport);
    const task = await client.callTool('wait_forever', {}, { task: true });
    const outcome = task.result().catch((e: unknown) => e);
    await gates.whenReached('forever');
    await task.cancel();
    expect(await outcome).toBeInstanceOf(RequestCancelledError);
    expect(gates.reached.get('forever')?.signal.aborted).toBe(true);
    expect((await task.status())?.status).toBe('cancelled');
  });

  it('holds the result at once when the tool does not run as a task', async () => {
    const client = await connect(era, transport);
    const handle = await client.callTool('plain', {}, { task: true });
    expect(handle.taskId).toBeUndefined();
    expect(text(await handle.result())).toBe('plain');
  });
});
