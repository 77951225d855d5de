import type { EventStore } from '@gantry/fastify';
import type { JSONRPCMessage } from '@gantry/protocol';
import { RedisEventStore, type RedisEventStoreOptions, redisEventStore } from '@gantry/redis';
import { Redis } from 'ioredis';
import { ACCEPT_BOTH, featureServer, initSession } from '../../fastify/test/support';
import { type RedisServer, startRedisServer } from './support/redis-server';

let server: RedisServer;
const clients: Redis[] = [];
let prefixCount = 0;

/** A client of the test server, closed after the file. */
function client(): Redis {
  const redis = new Redis(server.url);
  clients.push(redis);
  return redis;
}

/** A store on its own client and key prefix, as one node of a deployment sees it. */
function store(
  options: Partial<RedisEventStoreOptions> = {},
  prefix = `t${++prefixCount}:`,
): RedisEventStore {
  return redisEventStore({ redis: client(), prefix, ...options });
}

function message(id: number): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: { n: id } };
}

/** A response whose JSON is exactly `bytes` long. */
function answerOf(id: number, bytes: number): JSONRPCMessage {
  const empty = JSON.stringify({ jsonrpc: '2.0', id, result: { text: '' } }).length;
  return { jsonrpc: '2.0', id, result: { text: 'x'.repeat(bytes - empty) } };
}

async function replayed(events: EventStore, lastEventId: string) {
  const sent: Array<[string, JSONRPCMessage]> = [];
  const stream = await events.replayEventsAfter(lastEventId, (eventId, sentMessage) => {
    sent.push([eventId, sentMessage]);
  });
  return { stream, ids: sent.map(([id]) => id), messages: sent.map(([, m]) => m) };
}

/** Resolves once `check` holds, asking Redis again on each turn (no fixed sleep). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(clients.map((redis) => redis.quit()));
  await server?.stop();
});

describe('redisEventStore', () => {
  it('is an EventStore, and replays a stream in order after an event id, with the stream id', async () => {
    const events: EventStore = store();
    const priming = await events.storeEvent('s', null);
    const ids = [];
    for (let i = 1; i <= 3; i++) ids.push(await events.storeEvent('s', message(i)));
    expect([priming, ...ids]).toEqual(['s.1', 's.2', 's.3', 's.4']);
    expect(await replayed(events, priming)).toEqual({
      stream: 's',
      ids: ['s.2', 's.3', 's.4'],
      messages: [message(1), message(2), message(3)],
    });
    expect(await replayed(events, 's.3')).toEqual({ stream: 's', ids: ['s.4'], messages: [message(3)] });
    // After the newest event: known, nothing to send.
    expect(await replayed(events, 's.4')).toEqual({ stream: 's', ids: [], messages: [] });
  });

  it('replays from another node (another client and store) with only the event id', async () => {
    const writer = store({}, 'shared:');
    const reader = store({}, 'shared:');
    const priming = await writer.storeEvent('stream.with.dots', null);
    await writer.storeEvent('stream.with.dots', message(7));
    expect(await replayed(reader, priming)).toEqual({
      stream: 'stream.with.dots',
      ids: ['stream.with.dots.2'],
      messages: [message(7)],
    });
  });

  it('numbers events of one stream written by two nodes at once without gaps or doubles', async () => {
    const a = store({}, 'race:');
    const b = store({}, 'race:');
    const priming = await a.storeEvent('r', null);
    const writes = Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).storeEvent('r', message(i)));
    const ids = await Promise.all(writes);
    expect(new Set(ids).size).toBe(40);
    const { ids: replayedIds, messages } = await replayed(b, priming);
    expect(replayedIds).toEqual(Array.from({ length: 40 }, (_, i) => `r.${i + 2}`));
    // Each node's own writes keep their order.
    const fromA = messages.map((m) => (m as { id: number }).id).filter((id) => id % 2 === 1);
    expect(fromA).toEqual([...fromA].sort((x, y) => x - y));
  });

  it('stores priming events but never replays them', async () => {
    const events = store({}, 'priming:');
    const first = await events.storeEvent('p', null);
    await events.storeEvent('p', message(1));
    await events.storeEvent('p', null);
    await events.storeEvent('p', message(2));
    expect(await replayed(events, first)).toEqual({
      stream: 'p',
      ids: ['p.2', 'p.4'],
      messages: [message(1), message(2)],
    });
    expect(await events.redis.xrange('priming:{p}', '-', '+')).toHaveLength(4);
  });

  it('keeps maxEventsPerStream events; an id evicted with events after it is unknown', async () => {
    const events = store({ maxEventsPerStream: 3 }, 'count:');
    for (let i = 1; i <= 6; i++) await events.storeEvent('c', message(i));
    expect(await events.redis.xrange('count:{c}', '-', '+')).toHaveLength(3);
    // Events 4…6 are kept: after 3 the client misses nothing; after 2 it would miss event 3.
    expect(await replayed(events, 'c.3')).toEqual({
      stream: 'c',
      ids: ['c.4', 'c.5', 'c.6'],
      messages: [message(4), message(5), message(6)],
    });
    expect((await replayed(events, 'c.2')).stream).toBeUndefined();
  });

  it('keeps maxBytesPerStream bytes of events, dropping the oldest first', async () => {
    const events = store({ maxBytesPerStream: 4096 }, 'bytes:');
    for (let i = 1; i <= 10; i++) await events.storeEvent('b', answerOf(i, 1024));
    // Events 7…10 fill the 4096 bytes exactly.
    expect((await events.redis.xrange('bytes:{b}', '-', '+')).map(([id]) => id)).toEqual([
      '0-7',
      '0-8',
      '0-9',
      '0-10',
    ]);
    expect((await replayed(events, 'b.6')).ids).toEqual(['b.7', 'b.8', 'b.9', 'b.10']);
    expect((await replayed(events, 'b.5')).stream).toBeUndefined();
    // A larger event pushes out as many of the oldest as it needs.
    await events.storeEvent('b', answerOf(11, 2500));
    expect((await events.redis.xrange('bytes:{b}', '-', '+')).map(([id]) => id)).toEqual(['0-10', '0-11']);
    // Other streams keep their own budget.
    await events.storeEvent('other', answerOf(1, 1024));
    expect(await events.redis.xlen('bytes:{other}')).toBe(1);
  });

  it('sets the TTL on every write, and forgets a stream Redis expired', async () => {
    const hour = store();
    await hour.storeEvent('h', message(1));
    const pttl = await hour.redis.pttl(`t${prefixCount}:{h}`);
    expect(pttl).toBeGreaterThan(3_500_000);
    expect(pttl).toBeLessThanOrEqual(3_600_000);

    // A write refreshes the TTL of both keys.
    await hour.redis.pexpire(`t${prefixCount}:{h}`, 1000);
    await hour.redis.pexpire(`t${prefixCount}:{h}:meta`, 1000);
    await hour.storeEvent('h', message(2));
    expect(await hour.redis.pttl(`t${prefixCount}:{h}`)).toBeGreaterThan(3_500_000);
    expect(await hour.redis.pttl(`t${prefixCount}:{h}:meta`)).toBeGreaterThan(3_500_000);

    const events = store({ ttlMs: 200 }, 'ttl:');
    const id = await events.storeEvent('e', null);
    await events.storeEvent('e', message(1));
    expect(await events.redis.pttl('ttl:{e}:meta')).toBeGreaterThan(0);
    expect((await replayed(events, id)).ids).toEqual(['e.2']);
    await eventually(
      async () => (await events.redis.exists('ttl:{e}', 'ttl:{e}:meta')) === 0,
      'Redis expires the stream',
    );
    expect(await replayed(events, id)).toEqual({ stream: undefined, ids: [], messages: [] });
  });

  it('answers ids it never issued with undefined', async () => {
    const events = store({}, 'unknown:');
    await events.storeEvent('u', message(1));
    for (const id of ['nope.3', 'u.2', 'u.0', 'u', '.1', 'u.x', 'u.-1', 'u.1e3', '']) {
      expect(await replayed(events, id)).toEqual({ stream: undefined, ids: [], messages: [] });
    }
    expect((await replayed(events, 'u.1')).stream).toBe('u');
  });

  it('deletes a stream on dropStream', async () => {
    const events = store({}, 'drop:');
    const id = await events.storeEvent('d', null);
    await events.storeEvent('d', message(1));
    await events.storeEvent('kept', message(1));
    await events.dropStream('d');
    expect(await events.redis.exists('drop:{d}', 'drop:{d}:meta')).toBe(0);
    expect((await replayed(events, id)).stream).toBeUndefined();
    expect((await replayed(events, 'kept.1')).stream).toBe('kept');
  });

  it('hands a failed dropStream to onError instead of rejecting', async () => {
    const redis = new Redis(server.url);
    await redis.quit();
    const errors: Error[] = [];
    const events = redisEventStore({ redis, onError: (error) => errors.push(error) });
    await expect(events.dropStream('d')).resolves.toBeUndefined();
    expect(errors.map((error) => error.message)).toEqual(['Connection is closed.']);
  });

  it('replays in pages of replayBatchSize, in order', async () => {
    const redis = client();
    const events = redisEventStore({ redis, prefix: 'page:', replayBatchSize: 2 });
    for (let i = 1; i <= 7; i++) await events.storeEvent('g', message(i));
    // Watch what each XRANGE brings back from the real server.
    const pages: number[] = [];
    const xrange = redis.xrange.bind(redis) as (...args: unknown[]) => Promise<unknown[]>;
    (redis as unknown as { xrange: unknown }).xrange = async (...args: unknown[]) => {
      const page = await xrange(...args);
      pages.push(page.length);
      return page;
    };
    expect((await replayed(events, 'g.1')).ids).toEqual(['g.2', 'g.3', 'g.4', 'g.5', 'g.6', 'g.7']);
    // The first read includes the id itself, to tell a known id from an evicted one.
    expect(pages).toEqual([3, 2, 2, 0]);
  });

  it('refuses bad options with a TypeError naming the option', () => {
    const redis = client();
    expect(() => redisEventStore({ redis, maxEventsPerStream: 0 })).toThrow(
      new TypeError('redisEventStore: maxEventsPerStream must be a whole number ≥ 1 (got 0)'),
    );
    expect(() => redisEventStore({ redis, maxBytesPerStream: 1.5 })).toThrow(
      'redisEventStore: maxBytesPerStream must be a whole number ≥ 1 (got 1.5)',
    );
    expect(() => redisEventStore({ redis, ttlMs: -1 })).toThrow('redisEventStore: ttlMs must be');
    expect(() => redisEventStore({ redis, prefix: 'a{b}' })).toThrow(
      'redisEventStore: prefix must be a non-empty string without { or } (got "a{b}")',
    );
    expect(() => redisEventStore({ redis: 'http://127.0.0.1:6379' })).toThrow(
      'redisEventStore: redis must be an ioredis client or a redis:// or rediss:// URL (got "http://127.0.0.1:6379")',
    );
    expect(() => redisEventStore({ redis: {} as never })).toThrow(
      'redisEventStore: redis must be an ioredis client',
    );
  });

  it('opens and closes its own client from a URL', async () => {
    const events = redisEventStore({ redis: server.url, prefix: 'url:' });
    const id = await events.storeEvent('x', message(1));
    expect(id).toBe('x.1');
    await events.close();
    expect(events.redis.status).toBe('end');
  });
});

describe('the redis-server harness', () => {
  it('names the package to install when redis-server is missing', async () => {
    await expect(startRedisServer('/nonexistent/redis-server')).rejects.toThrow(
      '/nonexistent/redis-server is not installed: the @gantry/redis tests need a real Redis. Install it (Debian/Ubuntu: apt-get install redis-server',
    );
  });
});

describe('redisEventStore behind gantryMcp', () => {
  it('resumes a POST stream with Last-Event-ID from events kept in Redis, readable by another node', async () => {
    const http = await featureServer({ responseMode: 'sse', eventStore: store({}, 'mcp:') });
    const session = await initSession(http.fastify);
    const call = await http.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': session },
      payload: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'weather', arguments: { city: 'Bern' } },
      },
    });
    expect(call.statusCode).toBe(200);
    const priming = /^id: (\S+)$/m.exec(call.body)?.[1] as string;
    expect(priming).toMatch(/\.1$/);

    const resume = await http.fastify.inject({
      method: 'GET',
      url: '/mcp',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': priming },
    });
    expect(resume.statusCode).toBe(200);
    const streamId = priming.slice(0, priming.lastIndexOf('.'));
    expect(resume.body).toContain(`id: ${streamId}.2\n`);
    expect(resume.body).toContain('"city":"Bern"');

    // Another node, with its own client, finds the same events from the id alone.
    const { stream, messages } = await replayed(store({}, 'mcp:'), priming);
    expect(stream).toBe(streamId);
    expect(messages).toHaveLength(1);
    expect(JSON.stringify(messages[0])).toContain('"city":"Bern"');
    await http.close();
  });
});
