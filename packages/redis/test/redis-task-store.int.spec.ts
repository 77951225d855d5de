// The Redis task store against a real redis-server, and the same behavioural checks run on the
// in-memory store, so the two stores provably agree: atomic changes, terminal tasks frozen,
// owner limits, answers to outstanding input requests only, paging in creation order, ttl,
// and changes seen by a watcher on another connection (another node).
import { MemoryTaskStore, type StoredTask, type TaskStore } from '@gantry/core';
import { Redis } from 'ioredis';
import { RedisTaskStore } from '../src';
import { closeLinks, eventually, freshPrefix, startedLink } from './support/cluster';
import { type RedisServer, startRedisServer } from './support/redis-server';

let server: RedisServer;
const stores: TaskStore[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await closeLinks();
});

afterAll(async () => {
  await server?.stop();
});

let ids = 0;

function task(owner = 'principal:sub:alice', extra: Partial<StoredTask> = {}): StoredTask {
  const now = Date.now();
  return {
    taskId: `task-${++ids}`,
    owner,
    era: 'stateless',
    tool: 'export',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    node: 'n1',
    leaseExpiresAt: now + 30_000,
    ...extra,
  };
}

const LIMITS = { maxActivePerOwner: 10 };

type Factory = () => TaskStore;

const factories: Record<string, Factory> = {
  memory: () => new MemoryTaskStore(),
  redis: () => new RedisTaskStore({ redis: server.url, prefix: freshPrefix() }),
};

describe.each(Object.keys(factories))('%s task store', (kind) => {
  let store: TaskStore;
  beforeEach(() => {
    store = factories[kind]();
    stores.push(store);
  });

  it('creates, reads and changes a task; a terminal task never changes again', async () => {
    const created = task();
    expect(await store.create(created, LIMITS)).toBe(true);
    expect(await store.get(created.taskId)).toEqual(created);
    const working = await store.update(created.taskId, { statusMessage: 'half way' }, created.createdAt + 5);
    expect(working).toMatchObject({
      status: 'working',
      statusMessage: 'half way',
      lastUpdatedAt: created.createdAt + 5,
    });
    // A result with empty arrays and objects survives the store exactly.
    const result = { content: [], structuredContent: { items: [], nested: { a: [1.5, { b: [] }] } } };
    await store.update(
      created.taskId,
      { status: 'completed', result, statusMessage: null },
      created.createdAt + 9,
    );
    const done = await store.get(created.taskId);
    expect(done).toMatchObject({ status: 'completed', result });
    expect(done?.statusMessage).toBeUndefined();
    const after = await store.update(created.taskId, { status: 'cancelled' }, created.createdAt + 20);
    expect(after?.status).toBe('completed');
    expect((await store.get(created.taskId))?.status).toBe('completed');
    expect(await store.get('no-such-task')).toBeUndefined();
    expect(await store.update('no-such-task', { status: 'failed' }, 1)).toBeUndefined();
  });

  it('counts an owner’s unfinished tasks against its limit', async () => {
    const limits = { maxActivePerOwner: 2 };
    const a = task('o1');
    const b = task('o1');
    expect(await store.create(a, limits)).toBe(true);
    expect(await store.create(b, limits)).toBe(true);
    expect(await store.create(task('o1'), limits)).toBe(false);
    expect(await store.create(task('o2'), limits)).toBe(true);
    await store.update(a.taskId, { status: 'failed', error: { code: -32603, message: 'x' } }, Date.now());
    expect(await store.create(task('o1'), limits)).toBe(true);
  });

  it('keeps answers to outstanding input requests only, and takes them back to working', async () => {
    const t = task();
    await store.create(t, LIMITS);
    const requests = {
      'elicitation-1': {
        method: 'elicitation/create',
        params: { message: 'a?', requestedSchema: { type: 'object', properties: {}, required: [] } },
      },
      'elicitation-2': { method: 'elicitation/create', params: { message: 'b?' } },
    };
    await store.update(t.taskId, { status: 'input_required', inputRequests: requests as never }, Date.now());
    expect((await store.get(t.taskId))?.inputRequests).toEqual(requests);
    expect(
      await store.answer(
        t.taskId,
        { 'elicitation-1': { action: 'accept' }, bogus: { action: 'accept' } },
        Date.now(),
      ),
    ).toEqual(['elicitation-1']);
    expect(await store.takeAnswer(t.taskId, 'elicitation-2', Date.now())).toBeUndefined();
    expect(await store.takeAnswer(t.taskId, 'elicitation-1', Date.now())).toEqual({ action: 'accept' });
    const one = await store.get(t.taskId);
    expect(one?.status).toBe('input_required');
    expect(Object.keys(one?.inputRequests ?? {})).toEqual(['elicitation-2']);
    expect(one?.inputResponses).toBeUndefined();
    await store.answer(t.taskId, { 'elicitation-2': { action: 'decline' } }, Date.now());
    expect(await store.takeAnswer(t.taskId, 'elicitation-2', Date.now())).toEqual({ action: 'decline' });
    const back = await store.get(t.taskId);
    expect(back?.status).toBe('working');
    expect(back?.inputRequests).toBeUndefined();
    expect(await store.answer('no-such-task', { x: {} }, Date.now())).toBeUndefined();
  });

  it('leaves the answers of a terminal task untaken', async () => {
    const t = task();
    await store.create(t, LIMITS);
    const requests = {
      'sampling-1': { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
    };
    await store.update(t.taskId, { status: 'input_required', inputRequests: requests as never }, Date.now());
    await store.answer(t.taskId, { 'sampling-1': { role: 'assistant' } }, Date.now());
    await store.update(t.taskId, { status: 'cancelled' }, Date.now());
    expect(await store.takeAnswer(t.taskId, 'sampling-1', Date.now())).toBeUndefined();
    expect(await store.get(t.taskId)).toMatchObject({
      status: 'cancelled',
      inputResponses: { 'sampling-1': { role: 'assistant' } },
    });
  });

  it('renews the lease of unfinished tasks only', async () => {
    const a = task();
    const b = task();
    await store.create(a, LIMITS);
    await store.create(b, LIMITS);
    await store.update(b.taskId, { status: 'completed', result: {} }, Date.now());
    await store.renew([a.taskId, b.taskId, 'gone'], a.leaseExpiresAt + 1000);
    expect((await store.get(a.taskId))?.leaseExpiresAt).toBe(a.leaseExpiresAt + 1000);
    expect((await store.get(b.taskId))?.leaseExpiresAt).toBe(b.leaseExpiresAt);
  });

  it('lists an owner’s tasks in creation order, in pages', async () => {
    const mine = [task('lister'), task('lister'), task('lister')];
    // The same millisecond for all: the order is still the order of creation.
    for (const t of mine) await store.create({ ...t, createdAt: mine[0].createdAt }, LIMITS);
    await store.create(task('someone-else'), LIMITS);
    const first = await store.list('lister', undefined, 2);
    expect(first?.tasks.map((t) => t.taskId)).toEqual([mine[0].taskId, mine[1].taskId]);
    expect(first?.nextCursor).toBe(mine[1].taskId);
    const second = await store.list('lister', first?.nextCursor, 2);
    expect(second?.tasks.map((t) => t.taskId)).toEqual([mine[2].taskId]);
    expect(second?.nextCursor).toBeUndefined();
    expect(await store.list('lister', 'not-a-task', 2)).toBeUndefined();
    expect(await store.list('someone-else', mine[0].taskId, 2)).toBeUndefined();
    expect((await store.list('nobody', undefined, 2))?.tasks).toEqual([]);
  });

  it('forgets a task once its ttl ran out', async () => {
    const short = task('ttl', { ttlMs: 50 });
    await store.create(short, LIMITS);
    expect(await store.get(short.taskId)).toBeDefined();
    await eventually(async () => (await store.get(short.taskId)) === undefined, 'the task expired');
    expect((await store.list('ttl', undefined, 10))?.tasks).toEqual([]);
  });

  it('tells a watcher about each change', async () => {
    const t = task();
    await store.create(t, LIMITS);
    const seen: (string | undefined)[] = [];
    const stop = store.watch(t.taskId, (changed) => seen.push(changed?.status));
    await (store as Partial<RedisTaskStore>).ready?.();
    await store.update(t.taskId, { status: 'input_required' }, Date.now());
    await eventually(() => seen.includes('input_required'), 'the watcher saw input_required');
    stop();
    await store.update(t.taskId, { status: 'completed', result: {} }, Date.now());
    expect(await store.get(t.taskId)).toMatchObject({ status: 'completed' });
    expect(seen).not.toContain('completed');
  });
});

describe('the Redis task store across nodes', () => {
  it('shows a change made on one node to a watcher on another, also after its subscriber reconnected', async () => {
    const prefix = freshPrefix();
    const a = new RedisTaskStore({ redis: server.url, prefix });
    const b = new RedisTaskStore({ redis: server.url, prefix });
    stores.push(a, b);
    const t = task();
    await a.create(t, LIMITS);
    const seen: (string | undefined)[] = [];
    b.watch(t.taskId, (changed) => seen.push(changed?.statusMessage ?? changed?.status));
    await b.ready();
    await a.update(t.taskId, { statusMessage: 'one' }, Date.now());
    await eventually(() => seen.includes('one'), 'node b saw the first change');

    // Drop b's subscriber connection: ioredis reconnects and resubscribes; b reads its tasks again.
    const admin = new Redis(server.url);
    try {
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    } finally {
      await admin.quit();
    }
    await a.update(t.taskId, { statusMessage: 'two' }, Date.now());
    await eventually(() => seen.includes('two'), 'node b saw the change made around its reconnection');
  });

  it('is the task store of a redisCluster link', async () => {
    const prefix = freshPrefix();
    const one = await startedLink(server.url, { prefix, nodeId: 'one' });
    const two = await startedLink(server.url, { prefix, nodeId: 'two' });
    const t = task();
    expect(await one.tasks.create(t, LIMITS)).toBe(true);
    expect(await two.tasks.get(t.taskId)).toEqual(t);
    const seen: string[] = [];
    one.tasks.watch(t.taskId, (changed) => seen.push(String(changed?.status)));
    await one.tasks.ready();
    await two.tasks.update(t.taskId, { status: 'cancelled' }, Date.now());
    await eventually(() => seen.includes('cancelled'), 'node one saw the cancel made on node two');
    expect(await one.redis.exists(`${prefix}{tasks}:t:${t.taskId}`)).toBe(1);
  });
});
