// `GET /readyz` of a cluster node follows its Redis: a real redis-server on a free port, stopped
// under a running node (the check turns 503 and names `redis`, with nothing of its address or
// credentials in the body) and started again (ready once the link is back). Needs `npx tsc -b`.
import type { Logger } from '@gantry/core';
import { http } from '@gantry/fastify';
import { createDrainApp } from '../../core/test/fixtures/drain-app';
import { redisCluster } from '../src';
import { type RedisServer, startRedisServer } from './support/redis-server';

const STATE_KEY = 'readiness-test-key-0123456789abcdef0123456789';

/** A logger that lets the test await what the application reports. */
function watchingLogger() {
  const waiters: { test: RegExp; resolve: () => void }[] = [];
  const see = (message: string) => {
    for (const waiter of [...waiters]) {
      if (waiter.test.test(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const logger: Logger = { debug: () => {}, info: see, warn: see, error: see };
  const next = (test: RegExp) => new Promise<void>((resolve) => waiters.push({ test, resolve }));
  return { logger, next };
}

describe('readiness of a cluster node', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('turns 503 naming the redis check while Redis is unreachable, and ready again after', async () => {
    const { logger, next } = watchingLogger();
    const app = await createDrainApp({
      logger,
      cluster: redisCluster({
        url: `redis://127.0.0.1:${redis.port}`,
        requestStateKey: STATE_KEY,
        heartbeatMs: 100,
      }),
    });
    const listener = http({ port: 0, onListening: () => undefined });
    await app.listen(listener);
    const readyz = (listener.url as string).replace(/\/mcp$/, '/readyz');
    try {
      const ready = await fetch(readyz);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'ready',
        checks: { bootstrapped: { ok: true }, redis: { ok: true }, draining: { ok: true } },
      });

      const lost = next(/cluster backend is unreachable/);
      await redis.kill();
      await lost;
      const down = await fetch(readyz);
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('2');
      const body = await down.text();
      expect(JSON.parse(body)).toEqual({
        status: 'unavailable',
        checks: {
          bootstrapped: { ok: true },
          redis: { ok: false, error: 'the cluster backend is unreachable' },
          draining: { ok: true },
        },
      });
      expect(body).not.toContain(String(redis.port));
      expect(body).not.toContain('redis://');
      expect(body).not.toContain('127.0.0.1');

      // Liveness does not depend on Redis: restarting the process would not bring it back.
      expect((await fetch(readyz.replace(/readyz$/, 'healthz'))).status).toBe(200);

      const back = next(/reachable again/);
      await redis.restart();
      await back;
      expect((await fetch(readyz)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
