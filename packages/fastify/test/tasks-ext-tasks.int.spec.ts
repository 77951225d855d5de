// The official 2026-07-28 tasks requester, @modelcontextprotocol/ext-tasks, against Gantry over
// Streamable HTTP (stateless era): a task to its result, input_required answered with
// tasks/update, a failed task's JSON-RPC error, and cancel. The package is ESM only, so it runs
// in a child process (fixtures/ext-tasks-client.mjs) and reports what each scenario ended with.
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { GantryApplication } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTaskApp, Gates } from '../../core/test/fixtures/task-app';

let app: GantryApplication;
let fastify: FastifyInstance;
let gates: Gates;

beforeAll(async () => {
  gates = new Gates();
  // slow_sum of 5 and 6 may finish at once.
  gates.open('sum-5-6');
  app = await createTaskApp({ tasks: { pollIntervalMs: 20 }, shutdownGraceMs: 0 }, gates);
  fastify = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await fastify?.close();
  await app?.close();
});

function runRequester(url: string): Promise<any> {
  const child = spawn(process.execPath, [join(__dirname, 'fixtures', 'ext-tasks-client.mjs'), url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`ext-tasks requester exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

describe('@modelcontextprotocol/ext-tasks (2026-07-28 requester) against Gantry', () => {
  it('settles a task, answers its input, reports a failure and cancels', async () => {
    const port = (fastify.server.address() as AddressInfo).port;
    const report = await runRequester(`http://127.0.0.1:${port}/mcp`);
    expect(report.error).toBeUndefined();
    expect(report.sum).toMatchObject({
      kind: 'task',
      status: 'completed',
      result: { content: [{ type: 'text', text: '11' }] },
    });
    expect(report.input).toMatchObject({
      kind: 'task',
      status: 'completed',
      result: { content: [{ type: 'text', text: 'hello Ada' }] },
      asked: ['Go on?', 'Your name?'],
    });
    expect(report.failed).toMatchObject({ kind: 'task', status: 'failed', code: -32602 });
    expect(report.cancelled).toMatchObject({ kind: 'task', status: 'cancelled' });
    expect(gates.reached.get('forever')?.signal.aborted).toBe(true);
  }, 30_000);
});
