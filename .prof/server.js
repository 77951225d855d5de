require('/work/main/node_modules/reflect-metadata');
const { GantryFactory } = require('/work/main/packages/core');
const { gantryMcp } = require('/work/main/packages/fastify');
const { redisCluster } = require('/work/main/packages/redis');
const Fastify = require('/work/main/node_modules/fastify');
const { EchoSchemaModule } = require('/work/main/apps/bench/dist/servers/echo-schema.module');
(async () => {
  const url = process.argv[2];
  const cluster = url ? redisCluster({ url, requestStateKey: 'x'.repeat(40) }) : undefined;
  const app = await GantryFactory.create(EchoSchemaModule, { name: 'p', version: '1', logger: false, cluster });
  const fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, path: '/mcp', responseMode: 'json' });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  console.log(fastify.server.address().port);
  process.on('SIGINT', async () => { await fastify.close(); await app.close(); process.exit(0); });
})();
