// Tasks across a cluster: three apps/notes node processes sharing a real redis-server, behind a
// real nginx (round robin). A task created on one node is polled, answered (tasks/update) and
// finished through the others; the Gantry client drives a task through nginx; and a node killed
// with SIGKILL while its task waits leaves that task failed on the survivors once the lease runs
// out, never working for ever.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHttpClientTransport } from '@gantry/client';
import { type Nginx, startNginx } from './support/nginx';
import { type RedisServer, startRedisServer } from './support/redis-server';

const NOTES_MAIN = resolve(__dirname, '../../../apps/notes/dist/main.js');
const STATE_KEY = 'cluster-tasks-key-0123456789abcdef0123456789';
const LEASE_MS = 1500;
const EXT = 'io.modelcontextprotocol/tasks';
const V = '2026-07-28';

interface NodeProcess {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
}

let redis: RedisServer;
let nginx: Nginx;
let nodes: NodeProcess[] = [];
let dir: string;

async function exitOf(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** A notes node (`--http --redis`), resolved once it prints its URL. */
async function notesNode(name: string): Promise<NodeProcess> {
  const { REDIS_URL: _url, GANTRY_STATE_KEY: _key, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    [NOTES_MAIN, '--http', '--port', '0', '--redis', redis.url, '--state-key', STATE_KEY],
    {
      env: { ...inherited, NOTES_DIR: dir, NOTES_TASK_LEASE_MS: String(LEASE_MS) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = await new Promise<string>((done, fail) => {
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`${name} did not start: ${stderr}`)), 15_000);
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        done(found[1]);
      }
    });
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}: ${stderr}`)));
  });
  child.stderr?.resume();
  return { name, url, child };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-cluster-tasks-'));
  redis = await startRedisServer();
  nodes = await Promise.all(['a', 'b', 'c'].map(notesNode));
  nginx = await startNginx({ upstreams: nodes.map((node) => node.url) });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  for (const node of nodes) await exitOf(node.child, 'SIGTERM');
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let nextId = 1;

/** One stateless-era request POSTed to `base` (a node or nginx), with the extension declared. */
async function post(base: string, method: string, params: Record<string, unknown> = {}): Promise<any> {
  const id = nextId++;
  const name = params.taskId ?? params.name;
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V,
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: { form: {} },
            extensions: { [EXT]: {} },
          },
        },
      },
    }),
  });
  const text = await response.text();
  const body = response.headers.get('content-type')?.includes('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .find((data) => data.includes(`"id":${id}`)) ?? 'null',
      )
    : JSON.parse(text);
  if (body?.error) throw new Error(`${method} on ${base}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Polls `tasks/get` on `base` until `done` holds (each poll a real request; bounded). */
async function pollOn(
  base: string,
  taskId: string,
  done: (task: any) => boolean,
  timeoutMs = 10_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await post(base, 'tasks/get', { taskId });
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} on ${base} stayed ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('tasks across three nodes sharing Redis', () => {
  it('a task created on one node is polled, answered and finished through the others', async () => {
    const [a, b, c] = nodes;
    const content = JSON.stringify({ notes: [{ title: 'Clustered import', body: 'answered elsewhere' }] });
    const created = await post(a.url, 'tools/call', { name: 'import_notes', arguments: { content } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const { taskId } = created;
    // Durable before it was announced: another node already knows it.
    expect((await post(c.url, 'tasks/get', { taskId })).taskId).toBe(taskId);

    const waiting = await pollOn(b.url, taskId, (task) => task.status === 'input_required');
    const [key] = Object.keys(waiting.inputRequests);
    expect(waiting.inputRequests[key]).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Import 1 note(s)?' },
    });
    await post(c.url, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { confirm: true } } },
    });
    const done = await pollOn(b.url, taskId, (task) => task.status === 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'Imported 1 note(s)' }]);
    const found = await post(c.url, 'tools/call', {
      name: 'search_notes',
      arguments: { query: 'elsewhere' },
    });
    expect(found.structuredContent).toMatchObject({ count: 1, notes: [{ title: 'Clustered import' }] });
  });

  it('the Gantry client runs a task through nginx round robin', async () => {
    const client = new Client(
      { name: 'cluster-tasks', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
    await client.connect(new StreamableHttpClientTransport({ url: `${nginx.url}/mcp` }), {
      era: 'stateless',
    });
    try {
      const task = await client.callTool('export_notes', { format: 'json' }, { task: { minPollMs: 20 } });
      expect(task.taskId).toBeDefined();
      const result = await task.result();
      const exported = JSON.parse((result.structuredContent as { content: string }).content);
      expect(exported.notes.map((n: { title: string }) => n.title)).toContain('Clustered import');
    } finally {
      await client.close();
    }
  });

  it('2025-11-25: a task run on one node asks through a tasks/result held by another, answered on a third', async () => {
    const [a, b, c] = nodes;
    // Each POST goes to a node chosen by what it carries: the call to a, tasks/result to b,
    // the client's answers to c, the rest through nginx.
    const seen: Record<string, string[]> = { a: [], b: [], c: [] };
    const route = (body: unknown): NodeProcess | undefined => {
      const message = typeof body === 'string' ? JSON.parse(body) : undefined;
      if (message?.method === 'tools/call') return a;
      if (message?.method === 'tasks/result') return b;
      if (message && !('method' in message) && 'result' in message) return c;
      return undefined;
    };
    const routed: typeof fetch = (input, init) => {
      const node = route(init?.body);
      if (!node) return fetch(input, init);
      const message = JSON.parse(String(init?.body));
      seen[node.name].push(message.method ?? `answer ${message.id}`);
      return fetch(`${node.url}/mcp`, init);
    };
    const client = new Client(
      { name: 'cluster-session-tasks', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', (params) => {
      asked.push(params._meta);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHttpClientTransport({ url: `${nginx.url}/mcp`, fetch: routed }), {
      era: 'session',
    });
    try {
      const content = JSON.stringify({ notes: [{ title: 'Session import', body: 'asked across nodes' }] });
      const task = await client.callTool('import_notes', { content }, { task: { minPollMs: 20 } });
      expect(task.task?.status).toBe('working');
      const result = await task.result();
      expect(result.content).toEqual([{ type: 'text', text: 'Imported 1 note(s)' }]);
      // The one elicitation, tagged with its task, reached the client through node b's stream,
      // and its answer, posted to node c, resumed the handler on node a.
      expect(asked).toEqual([{ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } }]);
      expect(seen.a).toEqual(['tools/call']);
      expect(seen.b).toContain('tasks/result');
      expect(seen.c).toHaveLength(1);
      expect(seen.c[0]).toMatch(/^answer /);
      expect((await task.status())?.status).toBe('completed');
      const found = await client.callTool('search_notes', { query: 'across nodes' });
      expect(found.structuredContent).toMatchObject({ count: 1 });
    } finally {
      await client.close();
    }
  });

  it('a node killed with SIGKILL leaves its task failed on the survivors once the lease runs out', async () => {
    const [a, b, c] = nodes;
    const content = JSON.stringify({ notes: [{ title: 'Never written', body: 'its node died' }] });
    const { taskId } = await post(a.url, 'tools/call', { name: 'import_notes', arguments: { content } });
    // The task waits for a confirmation on node a.
    await pollOn(b.url, taskId, (task) => task.status === 'input_required');
    await exitOf(a.child, 'SIGKILL');
    const failed = await pollOn(c.url, taskId, (task) => task.status !== 'input_required', LEASE_MS + 10_000);
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/stopped before it finished/);
    // Seen the same way on the other survivor.
    expect((await post(b.url, 'tasks/get', { taskId })).status).toBe('failed');
  });
});
