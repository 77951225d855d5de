// Gantry over Streamable HTTP: the echo tool of ../echo-schema.module.ts (arguments as a plain
// JSON Schema), served by the `gantryMcp` Fastify plugin in its default stateful mode, with
// every request answered as a JSON body (`responseMode: 'json'`).
import 'reflect-metadata';
import { GantryFactory } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import Fastify from 'fastify';
import { EchoSchemaModule } from '../echo-schema.module';
import { benchTelemetry } from '../otel-mode';
import { portOf, serveBenchmark } from './harness';

serveBenchmark(async () => {
  const telemetry = await benchTelemetry();
  const app = await GantryFactory.create(EchoSchemaModule, {
    name: 'bench-gantry-http',
    version: '1.0.0',
    telemetry,
  });
  const fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, path: '/mcp', responseMode: 'json' });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return portOf(fastify.server.address());
});
