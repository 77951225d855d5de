import { closeLinks, eventually, freshPrefix, sessionRecord, startedLink } from './support/cluster';
import { type RedisServer, startRedisServer } from './support/redis-server';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedisServer();
});

afterEach(closeLinks);

afterAll(async () => {
  await server?.stop();
});

const HOUR = 3_600_000;

describe('the sessions of redisCluster', () => {
  it('creates, touches, saves and deletes a session, seen from another node', async () => {
    const prefix = freshPrefix();
    const a = await startedLink(server.url, { prefix });
    const b = await startedLink(server.url, { prefix });
    const record = sessionRecord('s1');
    expect(await a.sessions.create(record, { max: 10, ttlMs: HOUR })).toBe(true);
    expect(await b.sessions.touch('s1', HOUR)).toEqual(record);
    const changed = { ...record, logLevel: 'debug' as const, clientReady: false };
    expect(await b.sessions.save(changed, HOUR)).toBe(true);
    expect(await a.sessions.touch('s1', HOUR)).toEqual(changed);
    expect(await a.sessions.count()).toBe(1);
    expect(await b.sessions.ids()).toEqual(['s1']);
    expect(await b.sessions.delete('s1')).toBe(true);
    expect(await b.sessions.delete('s1')).toBe(false);
    expect(await a.sessions.touch('s1', HOUR)).toBeUndefined();
    // A save after the end does not bring the session back.
    expect(await a.sessions.save(changed, HOUR)).toBe(false);
    expect(await a.sessions.touch('s1', HOUR)).toBeUndefined();
    expect(await a.sessions.count()).toBe(0);
    expect(await a.sessions.ids()).toEqual([]);
    // The record lives under the one hash tag, with its lifetime.
    expect(await a.redis.exists(`${prefix}{sessions}:s:s1`)).toBe(0);
  });

  it('touches the sessions asked for in one turn of the event loop with one script call', async () => {
    const prefix = freshPrefix();
    const a = await startedLink(server.url, { prefix });
    const records = ['t1', 't2', 't3'].map((id) => sessionRecord(id));
    for (const record of records) await a.sessions.create(record, { max: 10, ttlMs: HOUR });
    const calls = async () => {
      const stats = (await a.redis.info('commandstats')) as string;
      // EVAL the first time a script runs on a connection, EVALSHA after.
      const count = (command: string) =>
        Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      return count('eval') + count('evalsha');
    };
    const before = await calls();
    // Unknown ids, duplicates and two lifetimes in one turn: each answer is its own.
    const touched = await Promise.all([
      a.sessions.touch('t1', HOUR),
      a.sessions.touch('gone', HOUR),
      a.sessions.touch('t2', HOUR),
      a.sessions.touch('t1', HOUR),
      a.sessions.touch('t3', 2 * HOUR),
    ]);
    // One script call per lifetime in the batch.
    expect((await calls()) - before).toBe(2);
    expect(touched).toEqual([records[0], undefined, records[1], records[0], records[2]]);
    expect(await a.redis.pttl(`${prefix}{sessions}:s:t3`)).toBeGreaterThan(HOUR);
    expect(await a.redis.pttl(`${prefix}{sessions}:s:t2`)).toBeLessThanOrEqual(HOUR);
    // A record something else overwrote fails its own touch, not the others of its batch.
    await a.redis.set(`${prefix}{sessions}:s:t2`, 'not json');
    const [bad, good] = await Promise.allSettled([
      a.sessions.touch('t2', HOUR),
      a.sessions.touch('t1', HOUR),
    ]);
    expect(bad.status).toBe('rejected');
    expect(good).toEqual({ status: 'fulfilled', value: records[0] });
  });

  it('keeps at most `max` live sessions across nodes', async () => {
    const prefix = freshPrefix();
    const a = await startedLink(server.url, { prefix });
    const b = await startedLink(server.url, { prefix });
    const limits = { max: 2, ttlMs: HOUR };
    const created = await Promise.all(
      ['x1', 'x2', 'x3', 'x4'].map((id, i) => (i % 2 ? a : b).sessions.create(sessionRecord(id), limits)),
    );
    expect(created.filter(Boolean)).toHaveLength(2);
    expect(await a.sessions.count()).toBe(2);
    const [first] = await b.sessions.ids();
    await a.sessions.delete(first);
    expect(await b.sessions.create(sessionRecord('x5'), limits)).toBe(true);
    expect(await b.sessions.create(sessionRecord('x6'), limits)).toBe(false);
  });

  it('does not bring back a session the live set already counts as expired', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix });
    expect(await link.sessions.create(sessionRecord('late'), { max: 5, ttlMs: HOUR })).toBe(true);
    // The moment between the live set's expiry and the record's PX running out, made to last.
    await link.redis.zadd(`${prefix}{sessions}:live`, 1, 'late');
    expect(await link.sessions.count()).toBe(0);
    expect(await link.sessions.touch('late', HOUR)).toBeUndefined();
    expect(await link.redis.exists(`${prefix}{sessions}:s:late`)).toBe(0);
    expect(await link.sessions.count()).toBe(0);
  });

  it('forgets a session ttlMs after its last use, and frees its place', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix });
    expect(await link.sessions.create(sessionRecord('short', ['file:///a']), { max: 1, ttlMs: 150 })).toBe(
      true,
    );
    const pttl = await link.redis.pttl(`${prefix}{sessions}:s:short`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(150);
    expect(await link.sessions.touch('short', 150)).toBeDefined();
    await eventually(async () => (await link.sessions.count()) === 0, 'the session expires');
    expect(await link.sessions.ids()).toEqual([]);
    expect(await link.sessions.touch('short', 150)).toBeUndefined();
    expect(await link.sessions.subscribers('file:///a')).toEqual([]);
    expect(await link.sessions.create(sessionRecord('next'), { max: 1, ttlMs: HOUR })).toBe(true);
  });

  it('touch renews the lifetime', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix });
    await link.sessions.create(sessionRecord('t'), { max: 5, ttlMs: 1000 });
    await link.sessions.touch('t', HOUR);
    expect(await link.redis.pttl(`${prefix}{sessions}:s:t`)).toBeGreaterThan(HOUR - 60_000);
    const expiry = Number(await link.redis.zscore(`${prefix}{sessions}:live`, 't'));
    expect(expiry).toBeGreaterThan(Date.now() + HOUR - 60_000);
  });

  it('finds the subscribers of a URI and of its parents, and follows changed subscriptions', async () => {
    const prefix = freshPrefix();
    const a = await startedLink(server.url, { prefix });
    const b = await startedLink(server.url, { prefix });
    const limits = { max: 10, ttlMs: HOUR };
    await a.sessions.create(sessionRecord('leaf', ['file:///docs/a.md']), limits);
    await a.sessions.create(sessionRecord('dir', ['file:///docs']), limits);
    await b.sessions.create(sessionRecord('slash', ['file:///docs/']), limits);
    await b.sessions.create(sessionRecord('other', ['file:///docs2', 'file:///docs/a.md']), limits);
    const sorted = async (uri: string) => (await a.sessions.subscribers(uri)).sort();
    expect(await sorted('file:///docs/a.md')).toEqual(['dir', 'leaf', 'other', 'slash']);
    expect(await sorted('file:///docs')).toEqual(['dir']);
    expect(await sorted('file:///docs2/x')).toEqual(['other']);
    expect(await sorted('file:///docsx')).toEqual([]);

    await b.sessions.save(sessionRecord('other', ['file:///docs2']), HOUR);
    expect(await sorted('file:///docs/a.md')).toEqual(['dir', 'leaf', 'slash']);
    await a.sessions.delete('dir');
    expect(await sorted('file:///docs/b.md')).toEqual(['slash']);
    // Index sets nobody subscribes to any more are removed.
    expect(await a.redis.exists(`${prefix}{sessions}:sub:file:///docs`)).toBe(0);
    expect((await a.redis.smembers(`${prefix}{sessions}:uris`)).sort()).toEqual([
      'file:///docs/',
      'file:///docs/a.md',
      'file:///docs2',
    ]);
  });

  it('drops expired sessions from the subscription index when asked', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix });
    await link.sessions.create(sessionRecord('gone', ['mem://x']), { max: 10, ttlMs: 100 });
    await link.sessions.create(sessionRecord('kept', ['mem://x']), { max: 10, ttlMs: HOUR });
    expect((await link.sessions.subscribers('mem://x')).sort()).toEqual(['gone', 'kept']);
    await eventually(async () => (await link.sessions.count()) === 1, 'one session expires');
    expect(await link.sessions.subscribers('mem://x')).toEqual(['kept']);
    expect(await link.redis.smembers(`${prefix}{sessions}:sub:mem://x`)).toEqual(['kept']);
    await link.sessions.delete('kept');
    expect(await link.redis.exists(`${prefix}{sessions}:uris`)).toBe(0);
  });
});
