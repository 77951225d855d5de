// Faults of a cluster: node processes killed with SIGKILL behind a real nginx, a real
// redis-server stopped and started again under running nodes, and a Redis that is not there at
// start. The nodes are child processes (the built notes app, apps/notes/dist/main.js, and
// fixtures/slow-node.cjs for a call that runs long enough to be cut), the client is the
// official SDK's Streamable HTTP client. Nothing is mocked. Needs `npx tsc -b` first.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GantryFactory } from '@gantry/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FeatureModule } from '../../core/test/fixtures/feature-app';
import { redisCluster } from '../src';
import { type Nginx, startNginx } from './support/nginx';
import { freePort, type RedisServer, startRedisServer } from './support/redis-server';

const NOTES_MAIN = resolve(__dirname, '../../../apps/notes/dist/main.js');
const SLOW_NODE = resolve(__dirname, 'fixtures/slow-node.cjs');
const STATE_KEY = 'cluster-faults-key-0123456789abcdef0123456789';
const CREATED = /^Created note ([0-9a-f]{8}): /;
/** Small delays, so a dropped stream is resumed at once (SDK `reconnectionOptions`). */
const RECONNECT = {
  initialReconnectionDelay: 20,
  maxReconnectionDelay: 200,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 50,
};

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One node process: its URL (read from its stderr), its port, and ways to end it. */
interface NodeProcess {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** SIGKILL, and resolves once it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (if it still runs), and resolves once it exited. */
  stop(): Promise<void>;
}

const started: NodeProcess[] = [];

async function exitOf(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** Spawns `node args…` and resolves once its stderr shows `http://127.0.0.1:<port>/mcp`. */
async function spawnNode(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
  const { REDIS_URL: _url, GANTRY_STATE_KEY: _key, ...inherited } = process.env;
  const child = spawn(process.execPath, args, {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 10 s: ${stderr}`)), 10_000);
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it served: ${stderr}`));
    });
  });
  // Keep draining stderr so a chatty node never blocks on a full pipe.
  child.stderr?.resume();
  const node: NodeProcess = {
    name,
    url,
    port: Number(new URL(url).port),
    child,
    kill9: () => exitOf(child, 'SIGKILL'),
    stop: () => exitOf(child, 'SIGTERM'),
  };
  started.push(node);
  return node;
}

/** A notes app node (`--http --redis`), its notes and sessions in `redisUrl`. */
function notesNode(name: string, redisUrl: string, notesDir: string): Promise<NodeProcess> {
  return spawnNode(
    name,
    [NOTES_MAIN, '--http', '--port', '0', '--redis', redisUrl, '--state-key', STATE_KEY],
    { NOTES_DIR: notesDir },
  );
}

/** What a client's requests met at nginx: which node served them (`X-Upstream-Addr`). */
interface Route {
  readonly method: string;
  readonly lastEventId: string | null;
  /** `127.0.0.1:<port>` of the node that answered (the last one nginx tried). */
  readonly upstream: string;
  readonly status: number;
  readonly body?: string;
}

/** The official SDK client through nginx, recording where each of its requests went. */
function sdkClient(url: string): {
  client: Client;
  transport: StreamableHTTPClientTransport;
  routes: Route[];
} {
  const routes: Route[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    reconnectionOptions: RECONNECT,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const upstream = (response.headers.get('x-upstream-addr') ?? '').split(', ').pop() as string;
      routes.push({
        method: init?.method ?? 'GET',
        lastEventId: new Headers(init?.headers).get('last-event-id'),
        upstream,
        status: response.status,
        body: typeof init?.body === 'string' ? init.body : undefined,
      });
      return response;
    },
  });
  const client = new Client({ name: 'cluster-faults', version: '1.0.0' });
  return { client, transport, routes };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw session-era POST (MCP 2025-11-25). */
function sessionPost(url: string, sessionId: string, method = 'tools/list'): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
  });
}

/** A raw initialize, as a new session-era client sends it. */
function initialize(url: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1.0.0' },
      },
    }),
  });
}

/**
 * A stateless-era `tools/list` (2026-07-28): no session, the version and capabilities in
 * `_meta` and the request-metadata headers `MCP-Protocol-Version` and `Mcp-Method`.
 */
function statelessToolsList(url: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

const text = (result: any): string => result.content[0].text;

afterAll(async () => {
  await Promise.all(started.map((node) => node.stop()));
});

describe('the node holding a GET stream is killed while notifications are published', () => {
  let redis: RedisServer;
  let nginx: Nginx;
  let nodes: NodeProcess[];
  let notesDir: string;

  beforeAll(async () => {
    notesDir = mkdtempSync(join(tmpdir(), 'gantry-faults-notes-'));
    redis = await startRedisServer();
    nodes = await Promise.all(['n1', 'n2', 'n3'].map((name) => notesNode(name, redis.url, notesDir)));
    nginx = await startNginx({ upstreams: nodes.map((node) => node.url), exposeUpstream: true });
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all((nodes ?? []).map((node) => node.stop()));
    await redis?.stop();
    rmSync(notesDir, { recursive: true, force: true });
  });

  it('resumes the GET on another node with Last-Event-ID: every resources/updated arrives exactly once', async () => {
    const N = 16;
    const publisher = sdkClient(nginx.url);
    await publisher.client.connect(publisher.transport);
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const created = await publisher.client.callTool({
        name: 'create_note',
        arguments: { title: `note ${i}`, body: `body ${i}` },
      });
      ids.push(CREATED.exec(text(created))?.[1] as string);
    }
    expect(ids.every((id) => /^[0-9a-f]{8}$/.test(id))).toBe(true);

    const subscriber = sdkClient(nginx.url);
    const received: string[] = [];
    await subscriber.client.connect(subscriber.transport);
    // The SDK opens its GET stream after `notifications/initialized`.
    const gets = () => subscriber.routes.filter((route) => route.method === 'GET');
    await until(() => gets().length === 1, 'the subscriber opened its GET stream');
    expect(gets()[0]).toMatchObject({ status: 200, lastEventId: null });
    const holder = nodes.find((node) => gets()[0].upstream === `127.0.0.1:${node.port}`) as NodeProcess;
    expect(holder).toBeDefined();
    // MCP 2025-11-25, Server › Resources §Subscriptions: resources/updated for subscribed URIs only.
    for (const id of ids) await subscriber.client.subscribeResource({ uri: `notes://${id}` });

    // The publisher reaches the other nodes through a second nginx in front of them only, so
    // none of its calls is cut by the kill; each move announces `notes://<id>` (subscribed) and
    // `notes://index` (not), and is published on the bus from whichever node ran it.
    const others = nodes.filter((node) => node !== holder);
    const sideDoor = await startNginx({ upstreams: others.map((node) => node.url), exposeUpstream: true });
    const mover = sdkClient(sideDoor.url);
    await mover.client.connect(mover.transport);
    const acknowledged: string[] = [];
    let killed: Promise<void> | undefined;
    let receivedAtKill = -1;
    let acknowledgedAtKill = -1;
    subscriber.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      received.push(n.params.uri);
      // Killed in the middle of the stream, while the moves go on.
      if (received.length === N / 4) {
        receivedAtKill = received.length;
        killed = holder.kill9().then(() => {
          acknowledgedAtKill = acknowledged.length;
        });
      }
    });
    try {
      for (let i = 0; i < N; i++) {
        const moved = await mover.client.callTool({
          name: 'move_note',
          arguments: { id: ids[i], status: 'doing' },
        });
        expect(text(moved)).toBe(`Moved ${ids[i]} to doing`);
        acknowledged.push(ids[i]);
      }
      expect(receivedAtKill).toBe(N / 4);
      await killed;
      expect(holder.child.signalCode).toBe('SIGKILL');
      // Moves went on after the holder was gone: the resumed stream had to carry them.
      expect(acknowledgedAtKill).toBeLessThan(N - 4);
    } finally {
      await mover.client.close();
      await sideDoor.stop();
    }
    await until(() => received.length >= N, `${N} resources/updated (got ${received.length})`);
    // One more, after all the others: if a duplicate were on its way, it would be in by now.
    expect(text(await publisher.client.callTool({ name: 'delete_note', arguments: { id: ids[0] } }))).toBe(
      `Deleted note ${ids[0]}`,
    );
    await until(() => received.length >= N + 1, 'the resources/updated of the delete');
    expect(received).toEqual([...ids, ids[0]].map((id) => `notes://${id}`));

    // The stream was resumed, through nginx, on a node still alive, from the last event seen.
    const resumed = gets()
      .filter((route) => route.status === 200)
      .slice(1);
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    expect(resumed[0].lastEventId).toMatch(/\S/);
    expect(resumed[0].upstream).not.toBe(`127.0.0.1:${holder.port}`);
    expect(nodes.filter((node) => node !== holder).map((node) => `127.0.0.1:${node.port}`)).toContain(
      resumed[0].upstream,
    );
    await subscriber.client.close();
    await publisher.client.close();
  });
});

describe('Redis restarted under running nodes', () => {
  let redis: RedisServer;
  let nginx: Nginx;
  let nodes: NodeProcess[];
  let notesDir: string;

  beforeAll(async () => {
    notesDir = mkdtempSync(join(tmpdir(), 'gantry-faults-notes-'));
    redis = await startRedisServer();
    nodes = await Promise.all(['r1', 'r2'].map((name) => notesNode(name, redis.url, notesDir)));
    nginx = await startNginx({ upstreams: nodes.map((node) => node.url), exposeUpstream: true });
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all((nodes ?? []).map((node) => node.stop()));
    await redis?.stop();
    rmSync(notesDir, { recursive: true, force: true });
  });

  it('answers 503 + Retry-After to the session era while it is down, keeps the stateless era, and recovers', async () => {
    const old = sdkClient(nginx.url);
    await old.client.connect(old.transport);
    const sessionId = old.transport.sessionId as string;
    expect((await old.client.listTools()).tools.map((tool) => tool.name)).toContain('create_note');

    await redis.kill();
    // Each node notices the closed connection on its own: wait until both answer 503.
    for (const node of nodes) {
      await until(
        async () => (await sessionPost(node.url, sessionId)).status === 503,
        `${node.name} refusing session-era requests`,
      );
    }
    for (let i = 0; i < nodes.length; i++) {
      const response = await sessionPost(nginx.url, sessionId);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32603,
          message: expect.stringMatching(
            /^Service Unavailable: the session store is unreachable \(.+\); session-era requests are refused until it returns \(the 2026-07-28 stateless era keeps working\)$/,
          ),
        },
      });
      // GET and DELETE of the session meet the same answer.
      for (const method of ['GET', 'DELETE']) {
        const other = await fetch(`${nginx.url}/mcp`, {
          method,
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
        });
        expect([method, other.status, other.headers.get('retry-after')]).toEqual([method, 503, '2']);
        expect(((await other.json()) as { error: { message: string } }).error.message).toMatch(
          /^Service Unavailable: the session store is unreachable/,
        );
      }
      // A new session cannot be opened either: the store would have to keep it.
      const init = await initialize(nginx.url);
      expect(init.status).toBe(503);
      expect(init.headers.get('retry-after')).toBe('2');
      // The stateless era needs no store (MCP 2026-07-28: every request carries what it needs).
      const stateless = await statelessToolsList(nginx.url);
      expect(stateless.status).toBe(200);
      const listed = (await stateless.json()) as { id: number; result: { tools: { name: string }[] } };
      expect(listed.id).toBe(7);
      expect(listed.result.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['create_note', 'get_note', 'search_notes', 'delete_note']),
      );
    }

    // A new, empty redis-server on the same port: the nodes reconnect by themselves.
    await redis.restart();
    for (const node of nodes) {
      await until(
        async () => (await initialize(node.url)).status === 200,
        `${node.name} opening sessions again`,
      );
    }
    const fresh = sdkClient(nginx.url);
    await fresh.client.connect(fresh.transport);
    for (let i = 0; i < 2 * nodes.length; i++) {
      expect((await fresh.client.listTools()).tools.map((tool) => tool.name)).toContain('create_note');
    }
    expect(new Set(fresh.routes.map((route) => route.upstream)).size).toBe(nodes.length);
    const created = await fresh.client.callTool({
      name: 'create_note',
      arguments: { title: 'after', body: 'b' },
    });
    expect(text(created)).toMatch(CREATED);
    // The old session was in the Redis that was lost: unknown on every node (MCP 2025-11-25,
    // Basic › Transports › Streamable HTTP §Session Management: 404, the client starts anew).
    for (const node of nodes) expect((await sessionPost(node.url, sessionId)).status).toBe(404);
    await fresh.client.close();
    await old.client.close();
  });
});

describe('Redis unreachable at start', () => {
  it('makes GantryFactory.create reject, naming the URL', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    await expect(
      GantryFactory.create(FeatureModule, {
        name: 'features',
        version: '1.0.0',
        logger: false,
        cluster: redisCluster({ url, requestStateKey: STATE_KEY, connectTimeoutMs: 500 }),
      }),
    ).rejects.toThrow(`redisCluster: cannot reach Redis at ${url}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('makes the notes binary exit 1 with a message naming the URL', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const dir = mkdtempSync(join(tmpdir(), 'gantry-faults-notes-'));
    try {
      const child = spawn(
        process.execPath,
        [NOTES_MAIN, '--http', '--port', '0', '--redis', url, '--state-key', STATE_KEY],
        { env: { ...process.env, NOTES_DIR: dir }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(stderr).toMatch(
        new RegExp(
          `^gantry-notes failed to start: .*cannot reach Redis at ${url}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\n$`,
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a node killed in the middle of a call', () => {
  let redis: RedisServer;
  let nginx: Nginx;
  let nodes: NodeProcess[];

  beforeAll(async () => {
    redis = await startRedisServer();
    nodes = await Promise.all(
      ['s1', 's2'].map((name) => spawnNode(name, [SLOW_NODE, redis.url, name, STATE_KEY, '100'])),
    );
    nginx = await startNginx({ upstreams: nodes.map((node) => node.url), exposeUpstream: true });
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all((nodes ?? []).map((node) => node.stop()));
    await redis?.stop();
  });

  it('ends the resumed POST stream on another node with a JSON-RPC error, never a hang', async () => {
    const { client, transport, routes } = sdkClient(nginx.url);
    await client.connect(transport);
    const progress: number[] = [];
    let killed: NodeProcess | undefined;
    const call = client.callTool({ name: 'slow' }, CallToolResultSchema, {
      timeout: 20_000,
      onprogress: (p) => {
        progress.push(p.progress);
      },
    });
    const outcome = call.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await until(() => progress.length >= 3, 'three progress notifications');
    const post = routes.find((route) => route.method === 'POST' && route.body?.includes('"tools/call"'));
    killed = nodes.find((node) => post?.upstream === `127.0.0.1:${node.port}`);
    expect(killed).toBeDefined();
    await (killed as NodeProcess).kill9();
    const started = Date.now();
    // MCP 2025-11-25, Basic › Transports › Streamable HTTP §Resumability and Redelivery: the
    // client resumes the broken POST stream with GET + Last-Event-ID; the node it reaches sees
    // the writer's heartbeat expire and answers the request with an error.
    expect(await outcome).toBe(
      `MCP error -32603: Internal error: the node serving this request stopped (node ${killed?.name} missed its heartbeats); send the request again`,
    );
    // The heartbeat is 100 ms, the liveness key lives 300 ms: well under the 20 s timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
    // Consecutive steps, none repeated, on the way to the error.
    expect(progress).toEqual(progress.map((_, i) => i + 1));
    const survivor = nodes.find((node) => node !== killed) as NodeProcess;
    const resumes = routes.filter((route) => route.method === 'GET' && route.lastEventId !== null);
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    expect(resumes[0]).toMatchObject({ status: 200, upstream: `127.0.0.1:${survivor.port}` });
    // The session itself lives on: the next call is served by the survivor.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['slow']);
    await client.close();
  });
});
