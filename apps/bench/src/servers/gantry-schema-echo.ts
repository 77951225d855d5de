// The echo tool of echo-schema.module.ts (arguments as a plain JSON Schema) over stdio.
import 'reflect-metadata';
import { GantryFactory, stdio } from '@gantry/core';
import { EchoSchemaModule } from './echo-schema.module';

async function main() {
  const app = await GantryFactory.create(EchoSchemaModule, { name: 'bench-gantry-schema', version: '1.0.0' });
  await app.listen(stdio());
}

void main();
