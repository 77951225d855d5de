// The same echo tool as gantry-echo.ts, its arguments given as a plain JSON Schema instead of
// a class-validator DTO: nothing here loads class-validator, so cold start does not pay for it.
import 'reflect-metadata';
import { Args, GantryFactory, Injectable, Module, stdio, Tool } from '@gantry/core';

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

async function main() {
  const app = await GantryFactory.create(BenchModule, { name: 'bench-gantry-schema', version: '1.0.0' });
  await app.listen(stdio());
}

void main();
