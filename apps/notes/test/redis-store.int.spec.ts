// apps/notes with its notes in Redis (RedisNotesStore, `--redis`): the store on its own, several
// app instances sharing one Redis, many concurrent clients across them, and the built binary.
// Real redis-server processes (the @gantry/redis harness), nothing mocked.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, StreamableHttpClientTransport } from '@gantry/client';
import { type GantryApplication, GantryFactory } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import { redisCluster } from '@gantry/redis';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { type Nginx, startNginx } from '../../../packages/redis/test/support/nginx';
import { type RedisServer, startRedisServer } from '../../../packages/redis/test/support/redis-server';
import { AppModule } from '../src/app.module';
import { NotesRepository } from '../src/notes.repository';
import type { Note, NoteStatus } from '../src/notes.store';
import { RedisNotesStore } from '../src/redis-notes.store';
import { NOTES_MAIN, resultText } from './support/notes-processes';

let server: RedisServer;
let redis: Redis;
let prefixCount = 0;
const stores: RedisNotesStore[] = [];

/** A key prefix no other test uses, so tests share the server without seeing each other's notes. */
const freshPrefix = () => `t${++prefixCount}:`;

/** A store with a client of its own, connected as the app connects it; closed after the file. */
async function openStore(prefix = freshPrefix()): Promise<RedisNotesStore> {
  const store = new RedisNotesStore({ redis: server.url, prefix });
  stores.push(store);
  await store.onModuleInit();
  return store;
}

const note = (id: string, extra: Partial<Note> = {}): Note => ({
  id,
  title: `title ${id}`,
  body: `body of ${id}`,
  tags: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

/** Every key under `prefix`, sorted. */
async function keysUnder(prefix: string): Promise<string[]> {
  return (await redis.keys(`${prefix}*`)).sort();
}

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});

afterAll(async () => {
  await Promise.all(stores.map((store) => store.onApplicationShutdown()));
  await redis?.quit();
  await server?.stop();
});

describe('RedisNotesStore', () => {
  it('round-trips a note through a hash and the index, tags and status included', async () => {
    const store = await openStore('rt:');
    const written = note('0000aaaa', { tags: ['work', 'ideas'], title: 'Ünïcode ✓', body: 'line 1\nline 2' });
    expect(await store.insert(written)).toBe(true);
    expect(await store.get('0000aaaa')).toEqual(written);
    expect(await redis.hgetall('rt:note:0000aaaa')).toEqual({
      id: '0000aaaa',
      title: 'Ünïcode ✓',
      body: 'line 1\nline 2',
      tags: '["work","ideas"]',
      createdAt: written.createdAt,
      updatedAt: written.updatedAt,
    });
    expect(await redis.zrange('rt:index', 0, '-1')).toEqual(['0000aaaa']);

    const moved = await store.setStatus('0000aaaa', 'doing', '2026-01-02T00:00:00.000Z');
    expect(moved).toEqual({ ...written, status: 'doing', updatedAt: '2026-01-02T00:00:00.000Z' });
    expect(await store.get('0000aaaa')).toEqual(moved);
    expect(await store.all()).toEqual([moved]);

    expect(await store.delete('0000aaaa')).toBe(true);
    expect(await store.get('0000aaaa')).toBeUndefined();
    expect(await store.all()).toEqual([]);
    // Only the insertion counter is left.
    expect(await keysUnder('rt:')).toEqual(['rt:seq']);
  });

  it('answers undefined or false for a missing id, and writes nothing for it', async () => {
    const store = await openStore('missing:');
    expect(await store.get('deadbeef')).toBeUndefined();
    expect(await store.setStatus('deadbeef', 'done', '2026-01-01T00:00:00.000Z')).toBeUndefined();
    expect(await store.delete('deadbeef')).toBe(false);
    expect(await keysUnder('missing:')).toEqual([]);
  });

  it('refuses an id that is taken and keeps the note that has it', async () => {
    const store = await openStore();
    expect(await store.insert(note('11112222', { title: 'first' }))).toBe(true);
    expect(await store.insert(note('11112222', { title: 'second' }))).toBe(false);
    expect((await store.get('11112222'))?.title).toBe('first');
    expect((await store.all()).map((n) => n.id)).toEqual(['11112222']);
  });

  it('lists notes in insertion order, whatever their ids and times', async () => {
    const store = await openStore();
    const ids = ['ffff0000', '00000001', '8888aaaa', '12345678'];
    for (const id of ids) expect(await store.insert(note(id))).toBe(true);
    expect((await store.all()).map((n) => n.id)).toEqual(ids);
    await store.delete('00000001');
    expect((await store.all()).map((n) => n.id)).toEqual(['ffff0000', '8888aaaa', '12345678']);
  });

  it('keeps stores under different prefixes apart', async () => {
    const [a, b] = [await openStore('left:'), await openStore('right:')];
    await a.insert(note('aaaa0000'));
    expect(await b.get('aaaa0000')).toBeUndefined();
    expect(await b.all()).toEqual([]);
    expect(await keysUnder('right:')).toEqual([]);
  });

  it('serves NotesRepository: search by words and tag, newest first', async () => {
    const repository = new NotesRepository(await openStore());
    const first = await repository.create({ title: 'Groceries', body: 'milk and eggs', tags: ['home'] });
    const second = await repository.create({ title: 'Standup', body: 'eggs for the team', tags: ['work'] });
    expect(repository.file).toBeUndefined();
    expect(repository.location).toBe(`Redis at ${server.url}`);
    expect((await repository.search('eggs', { limit: 10 })).map((n) => n.id)).toEqual([second.id, first.id]);
    expect((await repository.search('eggs', { tag: 'home', limit: 10 })).map((n) => n.id)).toEqual([
      first.id,
    ]);
    expect(await repository.search('milk team', { limit: 10 })).toEqual([]);
    expect(await repository.setStatus('deadbeef', 'done')).toBeUndefined();
  });

  it('fails to start, naming the URL, when Redis cannot be reached', async () => {
    const port = await closedPort();
    const store = new RedisNotesStore({ redis: `redis://127.0.0.1:${port}` });
    await expect(store.onModuleInit()).rejects.toThrow(
      `notes store: cannot reach Redis at redis://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    // Given up, not retrying in the background.
    expect(store.redis.status).toBe('end');
  });

  it('names the problem with a bad URL or prefix', () => {
    expect(() => new RedisNotesStore({ redis: 'localhost:6379' })).toThrow(
      'RedisNotesStore: redis must be an ioredis client or a redis:// or rediss:// URL (got "localhost:6379")',
    );
    expect(() => new RedisNotesStore({ redis: server.url, prefix: '' })).toThrow(
      'RedisNotesStore: prefix must be a non-empty string',
    );
  });
});

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** One node: the notes AppModule on the Redis store, as `main.js --redis` creates it. */
async function startNode(prefix: string): Promise<GantryApplication> {
  return GantryFactory.create(AppModule.forRoot({ redis: { url: server.url, prefix } }), {
    name: 'gantry-notes',
    version: '0.1.0',
    logger: false,
  });
}

/** The requestState key the cluster nodes share (≥ 32 bytes). */
const STATE_KEY = 'notes-cluster-test-key-0123456789abcdef0123';

/**
 * One node of a cluster: the notes app with its notes and its sessions in Redis (as
 * `main.js --redis --state-key` runs it), over Streamable HTTP on a free loopback port.
 */
async function startClusterNode(
  prefix: string,
  name: string,
): Promise<{ app: GantryApplication; fastify: FastifyInstance; url: string }> {
  const app = await GantryFactory.create(AppModule.forRoot({ redis: { url: server.url, prefix } }), {
    name: 'gantry-notes',
    version: '0.1.0',
    logger: false,
    cluster: redisCluster({
      url: server.url,
      prefix: `${prefix}gantry:`,
      nodeId: name,
      requestStateKey: STATE_KEY,
    }),
  });
  const fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return { app, fastify, url: `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}` };
}

/** A client connected to `app` in memory, initialized (session era). */
async function connect(app: GantryApplication, name: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide, { era: 'session' });
  return client;
}

const CREATED = /^Created note ([0-9a-f]{8}): /;

/** The JSON a `get_note` result carries, or undefined for "No note with id". */
async function getNote(client: Client, id: string): Promise<Note | undefined> {
  const result = await client.callTool('get_note', { id });
  const text = resultText(result);
  if (result.isError) {
    expect(text).toContain(`No note with id ${id}`);
    return undefined;
  }
  return JSON.parse(text) as Note;
}

describe('several app instances on one Redis', () => {
  const apps: GantryApplication[] = [];
  const clients: Client[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it("see each other's notes, moves and deletes", async () => {
    const prefix = freshPrefix();
    apps.push(...(await Promise.all([startNode(prefix), startNode(prefix), startNode(prefix)])));
    const [a, b, c] = await Promise.all(apps.map((app, i) => connect(app, `node-${i}`)));
    clients.push(a, b, c);

    const created = await a.callTool('create_note', {
      title: 'Shared',
      body: 'seen everywhere',
      tags: ['team'],
    });
    const id = CREATED.exec(resultText(created))?.[1] as string;
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(await getNote(b, id)).toMatchObject({
      id,
      title: 'Shared',
      body: 'seen everywhere',
      tags: ['team'],
    });

    const found = await c.callTool('search_notes', { query: 'everywhere', tag: 'team' });
    expect(found.structuredContent).toMatchObject({ count: 1, notes: [{ id, status: 'todo' }] });

    expect((await b.callTool('move_note', { id, status: 'done' })).isError).toBeFalsy();
    expect(await getNote(a, id)).toMatchObject({ id, status: 'done' });
    expect(await c.readResource('notes://index')).toMatchObject({
      contents: [{ text: expect.stringContaining(`[Shared](notes://${id}) — team`) }],
    });

    expect(resultText(await c.callTool('delete_note', { id }))).toBe(`Deleted note ${id}`);
    expect(await getNote(a, id)).toBeUndefined();
    const again = await b.callTool('delete_note', { id });
    expect(again.isError).toBe(true);
    expect(await keysUnder(prefix)).toEqual([`${prefix}seq`]);
  });

  let nginx: Nginx | undefined;
  const servers: FastifyInstance[] = [];
  afterEach(async () => {
    await nginx?.stop();
    nginx = undefined;
    await Promise.all(servers.splice(0).map((fastify) => fastify.close()));
  });

  /** Three in-process instances, each client on one of them (in memory). */
  async function inMemory(prefix: string, count: number): Promise<Client[]> {
    apps.push(...(await Promise.all([startNode(prefix), startNode(prefix), startNode(prefix)])));
    return Promise.all(Array.from({ length: count }, (_, i) => connect(apps[i % 3], `c${i}`)));
  }

  /**
   * Three cluster nodes behind a real nginx in round robin: every request of every client may
   * reach any node, its session found in Redis.
   */
  async function behindNginx(prefix: string, count: number): Promise<Client[]> {
    const nodes = await Promise.all(['n1', 'n2', 'n3'].map((name) => startClusterNode(prefix, name)));
    for (const node of nodes) {
      apps.push(node.app);
      servers.push(node.fastify);
    }
    nginx = await startNginx({ upstreams: nodes.map((node) => node.url) });
    const url = `${nginx.url}/mcp`;
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const client = new Client({ name: `c${i}`, version: '1.0.0' });
        await client.connect(new StreamableHttpClientTransport({ url }), { era: 'session' });
        return client;
      }),
    );
  }

  it.each([
    ['3 instances, clients in memory', inMemory],
    ['3 cluster nodes behind nginx, clients over HTTP', behindNginx],
  ])(
    'hold exactly the acknowledged notes after 100 clients × 50 operations across %s',
    async (_name, setUp) => {
      const prefix = freshPrefix();
      const CLIENTS = 100;
      const OPERATIONS = 50;
      clients.push(...(await setUp(prefix, CLIENTS)));

      // Notes every client races for: each is moved by many and deleted by several at once.
      const setup = clients[0];
      const contested: string[] = [];
      for (let i = 0; i < 10; i++) {
        const result = await setup.callTool('create_note', { title: `contested ${i}`, body: 'race' });
        contested.push(CREATED.exec(resultText(result))?.[1] as string);
      }

      /** What the clients were told: the notes that must be in Redis, by id. */
      const expected = new Map<
        string,
        { title: string; body: string; tags: string[]; status?: NoteStatus }
      >();
      const acknowledgedDeletes = new Map<string, number>();
      const failures: string[] = [];
      const statuses: NoteStatus[] = ['todo', 'doing', 'done'];

      await Promise.all(
        clients.map(async (client, c) => {
          const mine: string[] = [];
          for (let op = 0; op < OPERATIONS; op++) {
            const kind = op % 10;
            if (kind === 3 && mine.length > 0) {
              // Delete one of its own notes: must be acknowledged.
              const id = mine.splice((c + op) % mine.length, 1)[0];
              const result = await client.callTool('delete_note', { id });
              if (result.isError) failures.push(`delete ${id}: ${resultText(result)}`);
              else expected.delete(id);
            } else if (kind === 6 && mine.length > 0) {
              const id = mine[(c * 7 + op) % mine.length];
              const status = statuses[(c + op) % 3];
              const result = await client.callTool('move_note', { id, status });
              if (result.isError) failures.push(`move ${id}: ${resultText(result)}`);
              else (expected.get(id) as { status?: NoteStatus }).status = status;
            } else if (kind === 9) {
              // Race for a contested note: a move or a delete, either may find it gone.
              const id = contested[(c + Math.floor(op / 10)) % contested.length];
              if (c % 2 === 0) {
                await client.callTool('move_note', { id, status: statuses[c % 3] });
              } else {
                const result = await client.callTool('delete_note', { id });
                if (!result.isError) acknowledgedDeletes.set(id, (acknowledgedDeletes.get(id) ?? 0) + 1);
              }
            } else {
              const content = {
                title: `c${c} op${op}`,
                body: `written by client ${c}, operation ${op}`,
                tags: [`c${c}`],
              };
              const result = await client.callTool('create_note', content);
              const id = CREATED.exec(resultText(result))?.[1];
              if (result.isError || id === undefined) failures.push(`create: ${resultText(result)}`);
              else {
                expect(expected.has(id)).toBe(false);
                expected.set(id, content);
                mine.push(id);
              }
            }
          }
        }),
      );
      expect(failures).toEqual([]);

      // Every contested note was deleted by exactly one acknowledged delete, and no move brought it back.
      expect([...acknowledgedDeletes.entries()].sort()).toEqual(contested.map((id) => [id, 1]).sort());

      const store = await openStore(prefix);
      const stored = await store.all();
      expect(stored.length).toBe(expected.size);
      const byId = new Map(stored.map((n) => [n.id, n]));
      for (const [id, content] of expected) {
        const found = byId.get(id);
        expect(found).toBeDefined();
        expect({ title: found?.title, body: found?.body, tags: found?.tags, status: found?.status }).toEqual({
          status: undefined,
          ...content,
        });
      }
      // Nothing else: one hash per expected note, and the index names exactly those.
      const hashes = (await keysUnder(`${prefix}note:`)).map((key) => key.slice(`${prefix}note:`.length));
      expect(hashes.sort()).toEqual([...expected.keys()].sort());
      expect((await redis.zrange(`${prefix}index`, 0, '-1')).sort()).toEqual([...expected.keys()].sort());
    },
  );
});

describe('the built server with --redis', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-redis-'));
  });

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs main.js with `args` and `NOTES_DIR` = the temporary directory. */
  function run(args: string[], env: Record<string, string> = {}): ChildProcess {
    const { REDIS_URL: _url, GANTRY_STATE_KEY: _key, ...inherited } = process.env;
    child = spawn(process.execPath, [NOTES_MAIN, ...args], {
      env: { ...inherited, NOTES_DIR: dir, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return child;
  }

  /** Resolves with stderr once `pattern` appears in it; rejects if the process exits first. */
  function stderrUntil(proc: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${pattern}: ${stderr}`)),
        10_000,
      );
      proc.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = pattern.exec(stderr);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before ${pattern}: ${stderr}`));
      });
    });
  }

  /** The exit code and stderr of a process expected to stop on its own. */
  async function outcome(proc: ChildProcess): Promise<{ code: number | null; stderr: string }> {
    let stderr = '';
    proc.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = (await once(proc, 'exit')) as [number | null];
    return { code, stderr };
  }

  it('keeps the notes it is given in Redis, not in NOTES_DIR', async () => {
    const prefix = 'notes:';
    const proc = run(['--http', '--port', '0', '--redis', server.url, '--state-key', 'k'.repeat(32)]);
    const [, url] = await stderrUntil(
      proc,
      /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp) \(notes in Redis at ([^)]+)\)/,
    );
    const client = new SdkClient({ name: 'notes-redis', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const created = await client.callTool({
      name: 'create_note',
      arguments: { title: 'Over HTTP into Redis', body: 'kept by redis', tags: ['binary'] },
    });
    const id = CREATED.exec((created.content as { text: string }[])[0].text)?.[1] as string;
    await client.close();
    expect(await redis.hgetall(`${prefix}note:${id}`)).toMatchObject({
      id,
      title: 'Over HTTP into Redis',
      body: 'kept by redis',
      tags: '["binary"]',
    });
    expect(await redis.zrange(`${prefix}index`, 0, '-1')).toContain(id);
    expect(existsSync(join(dir, 'notes.json'))).toBe(false);
  });

  it('says where the notes are in its banner', async () => {
    const proc = run(['--http', '--port', '0'], { REDIS_URL: server.url, GANTRY_STATE_KEY: 'e'.repeat(32) });
    const [banner] = await stderrUntil(proc, /serving MCP on \S+ \([^)]*\)/);
    expect(banner).toContain(`(notes in Redis at ${server.url})`);
  });

  it.each([
    [
      ['--redis', 'http://127.0.0.1:6379'],
      {},
      '--redis needs a redis:// or rediss:// URL, got "http://127.0.0.1:6379"',
    ],
    [['--redis'], {}, '--redis needs a redis:// or rediss:// URL, got ""'],
    [[], { REDIS_URL: 'localhost' }, 'REDIS_URL needs a redis:// or rediss:// URL, got "localhost"'],
    [['--state-key', 'k'], {}, '--state-key is only used with --redis (or REDIS_URL)'],
    // Several nodes must verify each other's requestState: a cluster without a shared key is refused.
    [
      ['--redis', 'redis://127.0.0.1:1'],
      {},
      'A cluster needs one requestState key shared by every node: set GANTRY_STATE_KEY, or pass stateless.requestStateKey (or requestStateKey to the cluster), at least 32 bytes',
    ],
  ])('exits non-zero on %j %j', async (args, env, message) => {
    const { code, stderr } = await outcome(run(['--http', '--port', '0', ...args], env));
    expect(code).toBe(1);
    expect(stderr).toBe(`gantry-notes failed to start: ${message}\n`);
  });

  it('exits non-zero, naming the URL, when Redis cannot be reached', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await outcome(
      run(['--http', '--port', '0', '--redis', url, '--state-key', 'k'.repeat(32)]),
    );
    expect(code).toBe(1);
    expect(stderr).toBe(
      `gantry-notes failed to start: notes store: cannot reach Redis at ${url}: connect ECONNREFUSED ${url.slice('redis://'.length)}\n`,
    );
  });
});
