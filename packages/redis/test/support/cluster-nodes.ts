// Gantry nodes of one cluster, in this process: each a GantryFactory app with its own
// redisCluster link to the same redis-server, served by its own Fastify on a free loopback port.
import type { AddressInfo } from 'node:net';
import { GantryFactory, type GantryApplication } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { FeatureModule } from '../../../core/test/fixtures/feature-app';
import { type RedisCluster, redisCluster } from '../../src';

/** A requestState key shared by the test nodes (≥ 32 bytes). */
export const TEST_STATE_KEY = 'cluster-test-key-0123456789abcdef0123456789';

export interface ClusterNode {
  readonly name: string;
  readonly app: GantryApplication;
  readonly fastify: FastifyInstance;
  readonly link: RedisCluster;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts one node of the FeatureModule app on `redisUrl`. */
export async function startNode(
  name: string,
  redisUrl: string,
  options: { replicaIdleMs?: number; idleTimeoutMs?: number; max?: number } = {},
): Promise<ClusterNode> {
  const link = redisCluster({ url: redisUrl, nodeId: name, requestStateKey: TEST_STATE_KEY, heartbeatMs: 200 });
  const app = await GantryFactory.create(FeatureModule, {
    name: 'features',
    version: '1.0.0',
    logger: false,
    cluster: link,
  });
  const fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, {
    app,
    sse: { retryMs: 50 },
    sessions: { replicaIdleMs: options.replicaIdleMs, idleTimeoutMs: options.idleTimeoutMs, max: options.max },
  });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    name,
    app,
    fastify,
    link,
    url: `http://127.0.0.1:${port}`,
    close() {
      closed ??= (async () => {
        await fastify.close();
        await app.close();
      })();
      return closed;
    },
  };
}

export async function startNodes(
  count: number,
  redisUrl: string,
  options?: Parameters<typeof startNode>[2],
): Promise<ClusterNode[]> {
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < count; i++) nodes.push(await startNode(`node${i + 1}`, redisUrl, options));
  return nodes;
}
