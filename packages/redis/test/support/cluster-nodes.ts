// Gantry nodes of one cluster, in this process: each a GantryFactory app with its own
// redisCluster link to the same redis-server, served by its own Fastify on a free loopback port.
import type { AddressInfo } from 'node:net';
import { type GantryApplication, GantryFactory } from '@gantry/core';
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
  /**
   * The JSON-RPC methods of the messages POSTed to this node, in order; a `tools/call` carrying
   * a `requestState` (a 2026-07-28 `input_required` retry) is recorded as `tools/call (retry)`.
   */
  readonly posted: string[];
  close(): Promise<void>;
}

/** What {@link posted} records for one POST body. */
function describePosted(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.map((message: { method?: unknown; params?: { requestState?: unknown } } | null) => {
    const method = typeof message?.method === 'string' ? message.method : '(answer)';
    return method === 'tools/call' && message?.params?.requestState !== undefined
      ? `${method} (retry)`
      : method;
  });
}

/** Starts one node of the FeatureModule app on `redisUrl`. */
export async function startNode(
  name: string,
  redisUrl: string,
  /** `legacySse`: the 2024-11-05 HTTP+SSE endpoints (`/sse`, `/messages`); gantryMcp serves them unless false. */
  options: { replicaIdleMs?: number; idleTimeoutMs?: number; max?: number; legacySse?: boolean } = {},
): Promise<ClusterNode> {
  const link = redisCluster({
    url: redisUrl,
    nodeId: name,
    requestStateKey: TEST_STATE_KEY,
    heartbeatMs: 200,
  });
  const app = await GantryFactory.create(FeatureModule, {
    name: 'features',
    version: '1.0.0',
    logger: false,
    cluster: link,
  });
  const fastify = Fastify({ logger: false });
  const posted: string[] = [];
  fastify.addHook('preHandler', async (request) => {
    if (request.method === 'POST') posted.push(...describePosted(request.body));
  });
  await fastify.register(gantryMcp, {
    app,
    legacySse: options.legacySse,
    sse: { retryMs: 50 },
    sessions: {
      replicaIdleMs: options.replicaIdleMs,
      idleTimeoutMs: options.idleTimeoutMs,
      max: options.max,
    },
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
    posted,
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
