// Gantry over Streamable HTTP: the echo tool of ../gantry-schema-echo.ts (arguments as a plain
// JSON Schema), served by the `gantryMcp` Fastify plugin in its default stateful mode, with
// every request answered as a JSON body (`responseMode: 'json'`).
import 'reflect-metadata';
import { Args, GantryFactory, Injectable, Module, Tool } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import Fastify from 'fastify';
import { portOf, serveBenchmark } from './harness';

@Injectable()
class EchoTools {
  @Tool({
    description: 'Echoes its input',
    input: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
  })
  echo(@Args() args: { text: string }) {
    return args.text;
  }
}

@Module({ providers: [EchoTools] })
class BenchModule {}

serveBenchmark(async () => {
  const app = await GantryFactory.create(BenchModule, { name: 'bench-gantry-http', version: '1.0.0' });
  const fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, path: '/mcp', responseMode: 'json' });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return portOf(fastify.server.address());
});
