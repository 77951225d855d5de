import 'reflect-metadata';
import { GantryFactory, stdio } from '@gantry/core';
import { ConformanceModule } from './app.module';

async function main(): Promise<void> {
  const app = await GantryFactory.create(ConformanceModule, {
    name: 'gantry-conformance',
    version: '0.1.0',
    instructions: 'The fixture server of the MCP conformance suite.',
  });
  await app.listen(stdio());
}

main().catch((error) => {
  process.stderr.write(
    `gantry-conformance failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
