import 'reflect-metadata';
import { GantryFactory, stdio } from '@gantry/core';
import { http } from '@gantry/fastify';
import { ConformanceModule } from './app.module';
import { ConformanceTasksModule } from './conformance.tasks';

function portArgument(): number | undefined {
  const index = process.argv.indexOf('--port');
  if (index === -1) return undefined;
  const port = Number(process.argv[index + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port needs a port number, got ${JSON.stringify(process.argv[index + 1])}`);
  }
  return port;
}

/**
 * `node apps/conformance/dist/main.js --port N` serves http://127.0.0.1:N/mcp; without --port,
 * stdio. `--tasks` serves the fixture of the tasks scenarios (SEP-2663) instead.
 */
async function main(): Promise<void> {
  const port = portArgument();
  const root = process.argv.includes('--tasks') ? ConformanceTasksModule : ConformanceModule;
  const app = await GantryFactory.create(root, {
    name: 'gantry-conformance',
    version: '0.1.0',
    instructions: 'The fixture server of the MCP conformance suite.',
  });
  if (port === undefined) {
    await app.listen(stdio());
    return;
  }
  await app.listen(
    http({
      host: '127.0.0.1',
      port,
      onListening: (url) => process.stderr.write(`gantry-conformance on ${url}\n`),
    }),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close(signal).finally(() => process.exit(0));
    });
  }
}

main().catch((error) => {
  process.stderr.write(
    `gantry-conformance failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
