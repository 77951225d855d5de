import { createServer } from 'node:net';
import type { StreamSink } from '@gantry/core';
import type { JSONRPCMessage, RequestId } from '@gantry/protocol';
import { redisCluster } from '@gantry/redis';
import { Redis } from 'ioredis';
import { closeLinks, eventually, freshPrefix, recordingReceiver, startedLink } from './support/cluster';
import { type RedisServer, startRedisServer } from './support/redis-server';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedisServer();
});

afterEach(closeLinks);

afterAll(async () => {
  await server?.stop();
});

function message(id: number): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: { n: id } };
}

/** A sink that keeps what it got, in order. */
function recordingSink() {
  const got: Array<
    | { event: string; message: JSONRPCMessage }
    | { end: true }
    | { lost: readonly RequestId[]; reason: string }
  > = [];
  const sink: StreamSink = {
    event: (event, sent) => void got.push({ event, message: sent }),
    end: () => void got.push({ end: true }),
    lost: (requestIds, reason) => void got.push({ lost: requestIds, reason }),
  };
  return { sink, got, events: () => got.flatMap((item) => ('event' in item ? [item.event] : [])) };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('redisCluster', () => {
  it('rejects start() naming the URL (without its password) when Redis is unreachable', async () => {
    const port = await closedPort();
    const link = redisCluster({ url: `redis://user:secret@127.0.0.1:${port}`, connectTimeoutMs: 300 });
    const start = link.start(recordingReceiver());
    await expect(start).rejects.toThrow(
      `redisCluster: cannot reach Redis at redis://user:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(link.available).toBe(false);
    // It gave up: no reconnection is pending (Jest would not exit), and start() is not retried.
    expect(['end', 'reconnecting']).toContain(link.redis.status);
    await expect(link.start(recordingReceiver())).rejects.toThrow('redisCluster: the link was closed');
    await link.close();
  });

  it('refuses bad options naming the option', () => {
    expect(() => redisCluster({ url: 'http://x' })).toThrow(
      new TypeError('redisCluster: url must be a redis:// or rediss:// URL (got "http://x")'),
    );
    expect(() => redisCluster({})).toThrow('redisCluster: url (redis:// or rediss://) or redis');
    expect(() => redisCluster({ url: server.url, nodeId: 'a:b' })).toThrow(
      'redisCluster: nodeId must be letters, digits, _ or - (got "a:b")',
    );
    expect(() => redisCluster({ url: server.url, prefix: '{x}' })).toThrow('redisCluster: prefix must be');
    expect(() => redisCluster({ url: server.url, heartbeatMs: 0 })).toThrow(
      'redisCluster: heartbeatMs must be a whole number ≥ 1 (got 0)',
    );
    expect(() => redisCluster({ url: server.url, heartbeatMs: 500, nodeTimeoutMs: 500 })).toThrow(
      'redisCluster: nodeTimeoutMs must be more than heartbeatMs',
    );
    expect(() => redisCluster({ url: server.url, requestStateKey: '' })).toThrow(
      'redisCluster: requestStateKey',
    );
    expect(() => redisCluster({ url: server.url, events: { ttlMs: 0 } })).toThrow(
      'redisCluster: events.ttlMs must be a whole number ≥ 1 (got 0)',
    );
    expect(() => redisCluster({ url: server.url, redis: {} as never })).toThrow(
      'redisCluster: give url or redis, not both',
    );
    expect(() => redisCluster({ redis: {} as never })).toThrow(
      'redisCluster: redis must be an ioredis client',
    );
  });

  it('gives a random node id of 8 base64url characters, and carries the requestState key', () => {
    const a = redisCluster({ url: server.url, requestStateKey: 'k'.repeat(32) });
    const b = redisCluster({ url: server.url });
    expect(a.nodeId).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(a.nodeId).not.toBe(b.nodeId);
    expect(a.requestStateKey).toBe('k'.repeat(32));
    // Never started: nothing to close, but close() is harmless.
    return Promise.all([a.close(), b.close()]);
  });

  it('keeps a liveness key while running and deletes it on close, idempotently', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix, nodeId: 'alive', heartbeatMs: 50 });
    expect(link.available).toBe(true);
    const pttl = await link.redis.pttl(`${prefix}node:alive`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(150);
    // Renewed every heartbeat: it outlives nodeTimeoutMs.
    const until = Date.now() + 400;
    await eventually(
      async () => Date.now() > until || (await link.redis.exists(`${prefix}node:alive`)) === 0,
      'time passes',
    );
    expect(await link.redis.exists(`${prefix}node:alive`)).toBe(1);
    const observer = new Redis(server.url);
    await Promise.all([link.close(), link.close()]);
    await link.close();
    expect(await observer.exists(`${prefix}node:alive`)).toBe(0);
    expect(link.redis.status).toBe('end');
    await observer.quit();
  });

  it('delivers a published message to the other nodes, not to the sender', async () => {
    const prefix = freshPrefix();
    const a = await startedLink(server.url, { prefix });
    const b = await startedLink(server.url, { prefix });
    const c = await startedLink(server.url, { prefix: freshPrefix() });
    await a.publish({ kind: 'resource-updated', uri: 'file:///x' });
    await b.publish({ kind: 'session-ended', sessionId: 's' });
    await eventually(() => a.got.messages.length === 1 && b.got.messages.length === 1, 'both arrive');
    expect(b.got.messages).toEqual([{ kind: 'resource-updated', uri: 'file:///x' }]);
    expect(a.got.messages).toEqual([{ kind: 'session-ended', sessionId: 's' }]);
    expect(c.got.messages).toEqual([]);
  });

  it('ignores malformed bus messages, telling onError', async () => {
    const prefix = freshPrefix();
    const errors: Error[] = [];
    const a = await startedLink(server.url, { prefix, onError: (error) => errors.push(error) });
    const othersErrors: Error[] = [];
    const b = await startedLink(server.url, { prefix, onError: (error) => othersErrors.push(error) });
    await a.redis.publish(`${prefix}bus`, 'not json');
    await a.redis.publish(`${prefix}bus`, JSON.stringify({ from: 'x', message: { kind: 'nope' } }));
    await b.publish({ kind: 'list-changed', methods: ['notifications/tools/list_changed'] });
    await eventually(() => a.got.messages.length === 1, 'the good message arrives');
    expect(a.got.messages).toEqual([{ kind: 'list-changed', methods: ['notifications/tools/list_changed'] }]);
    expect(errors.map((error) => error.message)).toEqual([
      `redisCluster: a malformed message on ${prefix}bus was ignored: not json`,
      `redisCluster: a malformed message on ${prefix}bus was ignored: {"from":"x","message":{"kind":"nope"}}`,
    ]);
    expect(othersErrors).toHaveLength(2);
  });

  it('uses a client the application owns without closing it', async () => {
    const redis = new Redis(server.url);
    const link = redisCluster({ redis, prefix: freshPrefix() });
    await link.start(recordingReceiver());
    expect(link.redis).toBe(redis);
    await link.close();
    expect(redis.status).toBe('ready');
    expect(await redis.ping()).toBe('PONG');
    await redis.quit();
  });
});

describe('the events of redisCluster', () => {
  it('follows a stream: stored events before and after follow() once each, in order', async () => {
    const prefix = freshPrefix();
    const writer = await startedLink(server.url, { prefix });
    const reader = await startedLink(server.url, { prefix });
    const priming = await writer.events.storeEvent('p~1', null, { requestIds: [7] });
    await writer.events.storeEvent('p~1', message(1));
    const { sink, got, events } = recordingSink();
    const follower = await reader.events.follow(priming, sink);
    expect(follower?.streamId).toBe('p~1');
    await writer.events.storeEvent('p~1', message(2));
    await writer.events.storeEvent('p~1', null);
    await writer.events.storeEvent('p~1', message(3));
    await writer.events.endStream('p~1');
    await eventually(() => got.some((item) => 'end' in item), 'the end arrives');
    expect(got).toEqual([
      { event: 'p~1.2', message: message(1) },
      { event: 'p~1.3', message: message(2) },
      { event: 'p~1.5', message: message(3) },
      { end: true },
    ]);
    expect(events()).toEqual(['p~1.2', 'p~1.3', 'p~1.5']);
    // Replay skips the end marker as it skips priming events.
    const replayed: string[] = [];
    await reader.events.replayEventsAfter(priming, (id) => void replayed.push(id));
    expect(replayed).toEqual(['p~1.2', 'p~1.3', 'p~1.5']);
    // The follower unsubscribed when the stream ended.
    expect(await reader.redis.pubsub('NUMSUB', reader.events.channelOf('p~1'))).toEqual([
      reader.events.channelOf('p~1'),
      0,
    ]);
  });

  it('delivers each event once while two writers interleave with the replay', async () => {
    const prefix = freshPrefix();
    const a = await startedLink(server.url, { prefix });
    const b = await startedLink(server.url, { prefix });
    const reader = await startedLink(server.url, { prefix });
    const first = await a.events.storeEvent('i', message(0));
    const writes = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? a : b).events.storeEvent('i', message(i + 1)),
    );
    const { sink, events } = recordingSink();
    const following = reader.events.follow(first, sink);
    await Promise.all(writes);
    await following;
    await eventually(() => events().length === 60, 'every event arrives');
    expect(events()).toEqual(Array.from({ length: 60 }, (_, i) => `i.${i + 2}`));
  });

  it('follows { streamId } from the current end, also of a stream that does not exist yet', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix });
    await link.events.storeEvent('old', message(1));
    const old = recordingSink();
    await link.events.follow({ streamId: 'old' }, old.sink);
    const fresh = recordingSink();
    await link.events.follow({ streamId: 'new' }, fresh.sink);
    await link.events.storeEvent('old', message(2));
    await link.events.storeEvent('new', message(3));
    await eventually(() => old.got.length === 1 && fresh.got.length === 1, 'both events arrive');
    expect(old.got).toEqual([{ event: 'old.2', message: message(2) }]);
    expect(fresh.got).toEqual([{ event: 'new.1', message: message(3) }]);
  });

  it('answers an unknown, malformed or expired event id with undefined, leaving no subscription', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix, events: { maxEventsPerStream: 2 } });
    for (let i = 1; i <= 4; i++) await link.events.storeEvent('u', message(i));
    for (const id of ['nope.1', 'u.5', 'u.0', 'u.1', 'u', '']) {
      expect(await link.events.follow(id, recordingSink().sink)).toBeUndefined();
    }
    expect(await link.redis.pubsub('NUMSUB', link.events.channelOf('u'))).toEqual([
      link.events.channelOf('u'),
      0,
    ]);
    expect(await link.events.follow('u.2', recordingSink().sink)).toBeDefined();
  });

  it('names the stream of an event id without a round trip', () => {
    const link = redisCluster({ url: server.url });
    expect(link.events.streamOf('abc~s.12')).toBe('abc~s');
    expect(link.events.streamOf('a.b-c_d.3')).toBe('a.b-c_d');
    expect(link.events.streamOf('nodot')).toBeUndefined();
    expect(link.events.streamOf('x.')).toBeUndefined();
    expect(link.events.streamOf('.1')).toBeUndefined();
    return link.close();
  });

  it('stop() unsubscribes once the last follower of a channel stops', async () => {
    const prefix = freshPrefix();
    const link = await startedLink(server.url, { prefix });
    const channel = link.events.channelOf('st');
    const one = await link.events.follow({ streamId: 'st' }, recordingSink().sink);
    const two = recordingSink();
    const other = await link.events.follow({ streamId: 'st' }, two.sink);
    expect(await link.redis.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    one?.stop();
    one?.stop();
    await link.events.storeEvent('st', message(1));
    await eventually(() => two.got.length === 1, 'the remaining follower gets the event');
    expect(await link.redis.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    other?.stop();
    await eventually(
      async () => ((await link.redis.pubsub('NUMSUB', channel)) as [string, number])[1] === 0,
      'unsubscribed',
    );
  });

  it('tells lost() with the request ids when the writer node closes before ending the stream', async () => {
    const prefix = freshPrefix();
    const writer = await startedLink(server.url, { prefix, nodeId: 'writer' });
    const reader = await startedLink(server.url, { prefix });
    const priming = await writer.events.storeEvent('w~1', null, { requestIds: [3, 'four'] });
    const { sink, got } = recordingSink();
    await reader.events.follow(priming, sink);
    await writer.events.storeEvent('w~1', message(1));
    await writer.close();
    await eventually(() => got.some((item) => 'lost' in item), 'the loss is noticed');
    expect(got).toEqual([
      { event: 'w~1.2', message: message(1) },
      {
        lost: [3, 'four'],
        reason: 'the node serving this request stopped (node writer missed its heartbeats)',
      },
    ]);
  });

  it('tells lost() when the writer node dies (its liveness key expires)', async () => {
    const prefix = freshPrefix();
    const reader = await startedLink(server.url, { prefix });
    // A writer that crashed: its key was set once and never renewed.
    const crashed = redisCluster({ url: server.url, prefix, nodeId: 'crashed', heartbeatMs: 100 });
    await crashed.redis.connect();
    await crashed.redis.set(`${prefix}node:crashed`, '1', 'PX', 300);
    const priming = await crashed.events.storeEvent('d~1', null, { requestIds: [1] });
    await crashed.redis.quit();
    const { sink, got } = recordingSink();
    await reader.events.follow(priming, sink);
    expect(got).toEqual([]);
    await eventually(() => got.length === 1, 'the loss is noticed');
    expect(got).toEqual([{ lost: [1], reason: expect.stringContaining('node crashed') }]);
  });

  it('ends rather than loses a stream its writer ended before stopping', async () => {
    const prefix = freshPrefix();
    const writer = await startedLink(server.url, { prefix });
    const reader = await startedLink(server.url, { prefix });
    const priming = await writer.events.storeEvent('e~1', null, { requestIds: [1] });
    await writer.events.storeEvent('e~1', message(1));
    await writer.events.endStream('e~1');
    await writer.close();
    const { sink, got } = recordingSink();
    await reader.events.follow(priming, sink);
    expect(got).toEqual([{ event: 'e~1.2', message: message(1) }, { end: true }]);
  });
});

describe('redisCluster while Redis restarts', () => {
  it('reports unavailability once, fails commands fast, and recovers by itself', async () => {
    const own = await startRedisServer();
    try {
      const prefix = freshPrefix();
      const link = await startedLink(own.url, { prefix, nodeId: 'phoenix', heartbeatMs: 50 });
      const other = await startedLink(own.url, { prefix });
      const following = recordingSink();
      await link.events.follow({ streamId: 'across' }, following.sink);
      await own.kill();
      await eventually(() => link.got.availability.calls.length === 1, 'the loss is reported');
      expect(link.got.availability.calls).toEqual([false]);
      expect(link.available).toBe(false);
      await expect(link.sessions.count()).rejects.toThrow();
      await own.restart();
      await eventually(() => link.got.availability.calls.length === 2, 'the return is reported', 10_000);
      expect(link.got.availability.calls).toEqual([false, true]);
      expect(link.available).toBe(true);
      expect(await link.sessions.count()).toBe(0);
      // The heartbeat restored the node key in the new (empty) server.
      await eventually(
        async () => (await link.redis.exists(`${prefix}node:phoenix`)) === 1,
        'the node key returns',
      );
      // The bus works again (the subscriber resubscribed).
      await eventually(() => other.available, 'the other link is back', 10_000);
      await eventually(
        async () => {
          await other.publish({ kind: 'session-ended', sessionId: 'again' });
          return link.got.messages.length > 0;
        },
        'a message crosses the bus again',
        10_000,
      );
      expect(link.got.messages[0]).toEqual({ kind: 'session-ended', sessionId: 'again' });
      // A follower from before the outage gets events stored after it (its channel was resubscribed).
      await other.events.storeEvent('across', message(1));
      await eventually(() => following.got.length === 1, 'the follower gets the new event');
      expect(following.got).toEqual([{ event: 'across.1', message: message(1) }]);
    } finally {
      await closeLinks();
      await own.stop();
    }
  });
});
