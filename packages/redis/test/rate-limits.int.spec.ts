// Rate limits that hold across the nodes of a cluster: two applications, each with its own
// redisCluster link to one real redis-server, count one budget in Redis (RateLimiterRedis).
// While Redis is down a limit fails open with a warning, or closed with onBackendError: 'deny'.
import { Client } from '@gantry/client';
import {
  type GantryApplication,
  GantryFactory,
  Injectable,
  type Logger,
  Module,
  RateLimit,
  RETRY_AFTER_META,
  Tool,
} from '@gantry/core';
import { InMemoryTransport } from '@gantry/protocol';
import { redisCluster } from '../src';
import { eventually, freshPrefix } from './support/cluster';
import { TEST_STATE_KEY } from './support/cluster-nodes';
import { type RedisServer, startRedisServer } from './support/redis-server';

@Injectable()
class Limited {
  @RateLimit({ points: 3, duration: 60 })
  @Tool()
  ping() {
    return 'pong';
  }
}

@Module({ providers: [Limited] })
class LimitedModule {}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
}

let redis: RedisServer;
const apps: GantryApplication[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

afterAll(async () => {
  await redis?.stop();
});

async function node(
  name: string,
  prefix: string,
  options: { onBackendError?: 'allow' | 'deny'; logger?: Logger } = {},
) {
  const link = redisCluster({ url: redis.url, prefix, nodeId: name, requestStateKey: TEST_STATE_KEY });
  const app = await GantryFactory.create(LimitedModule, {
    name: 'limited',
    version: '1.0.0',
    logger: options.logger ?? false,
    cluster: link,
    limits: { onBackendError: options.onBackendError },
  });
  apps.push(app);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: `client-${name}`, version: '1' });
  await client.connect(clientSide, { era: 'stateless' });
  clients.push(client);
  return { app, link, client };
}

it('two nodes share one budget: calls split across them exhaust it', async () => {
  const prefix = freshPrefix();
  const a = await node('a', prefix);
  const b = await node('b', prefix);
  expect((await a.client.callTool('ping')).isError).toBeUndefined();
  expect((await b.client.callTool('ping')).isError).toBeUndefined();
  expect((await a.client.callTool('ping')).isError).toBeUndefined();
  const refused = await b.client.callTool('ping');
  expect(refused.isError).toBe(true);
  expect((refused.content[0] as { text: string }).text).toMatch(
    /^Rate limit 'tool:ping' exceeded \(3 per 60 s\)/,
  );
  expect((refused._meta as Record<string, number>)[RETRY_AFTER_META]).toBeGreaterThan(0);
  expect((await a.client.callTool('ping')).isError).toBe(true);
  // The counter is in Redis, under the link's prefix.
  const keys = await a.link.redis.keys(`${prefix}rl:*`);
  expect(keys).toEqual([`${prefix}rl:tool:ping:principal:principal:anonymous`]);
});

it('fails open with a warning while Redis is down, or closed with onBackendError: deny', async () => {
  const prefix = freshPrefix();
  const logger = recordingLogger();
  const open = await node('open', prefix, { logger });
  const closed = await node('closed', prefix, { onBackendError: 'deny' });
  await redis.kill();
  try {
    await eventually(() => !open.link.available && !closed.link.available, 'both links see Redis down');
    expect((await open.client.callTool('ping')).isError).toBeUndefined();
    expect(logger.warnings).toContainEqual(
      expect.stringMatching(/^The rate-limit store failed: calls are allowed/),
    );
    const denied = await closed.client.callTool('ping');
    expect(denied.isError).toBe(true);
    expect((denied._meta as Record<string, number>)[RETRY_AFTER_META]).toBe(60_000);
  } finally {
    await redis.restart();
  }
});
