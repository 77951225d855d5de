import 'reflect-metadata';
import { GantryFactory, stdio } from '@gantry/core';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const app = await GantryFactory.create(AppModule, { name: '{{serverName}}', version: '0.1.0' });
  // Serves MCP on stdin/stdout until stdin ends: an MCP client starts this process.
  await app.listen(stdio());
  // stdout carries the protocol, so anything meant for people goes to stderr.
  process.stderr.write('{{serverName}} is serving MCP on stdio (see README.md to connect a client)\n');
}

main().catch((error) => {
  process.stderr.write(
    `{{serverName}} failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
