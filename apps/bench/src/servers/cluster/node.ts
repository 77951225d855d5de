// One node of the cluster section: the echo tool of ../echo-schema.module.ts and one
// subscribable resource, served by the `gantryMcp` Fastify plugin (session era, JSON answers,
// as http/gantry.ts). With `--redis <url>` the app is a cluster node (`redisCluster` of
// @gantry/redis: sessions in Redis, replicas in this process); without it, the in-memory
// session store of a single server. Arguments: [--redis <url> --node-id <id>] [--replica-idle-ms <ms>].
import 'reflect-metadata';
import { GantryFactory, Injectable, Module, Resource } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import { redisCluster } from '@gantry/redis';
import Fastify from 'fastify';
import { EchoSchemaModule } from '../echo-schema.module';
import { portOf, serveBenchmark } from '../http/harness';
import { WATCHED_URI } from './watched-uri';

/** The requestState key every node shares (≥ 32 bytes); a benchmark's, not a secret. */
const STATE_KEY = 'gantry-bench-cluster-state-key-0123456789abcdef';

@Injectable()
class WatchedResource {
  @Resource({ uri: WATCHED_URI, name: 'watched', mimeType: 'text/plain' })
  watched() {
    return 'watched';
  }
}

@Module({ imports: [EchoSchemaModule], providers: [WatchedResource] })
class ClusterBenchModule {}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const redisUrl = argument('--redis');
const replicaIdle = argument('--replica-idle-ms');

let app: Awaited<ReturnType<typeof GantryFactory.create>> | undefined;
serveBenchmark(
  async () => {
    const cluster =
      redisUrl === undefined
        ? undefined
        : redisCluster({ url: redisUrl, nodeId: argument('--node-id'), requestStateKey: STATE_KEY });
    app = await GantryFactory.create(ClusterBenchModule, {
      name: 'bench-gantry-cluster',
      version: '1.0.0',
      logger: false,
      cluster,
    });
    const fastify = Fastify({ logger: false });
    await fastify.register(gantryMcp, {
      app,
      path: '/mcp',
      responseMode: 'json',
      sessions: replicaIdle === undefined ? undefined : { replicaIdleMs: Number(replicaIdle) },
    });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    return portOf(fastify.server.address());
  },
  {
    // The protocol engine's sessions: with a cluster, one per replica this node holds.
    sessions: () => app?.server.sessions.size ?? 0,
    notify: (uri) => (app as NonNullable<typeof app>).resources.updated(uri),
  },
);
