import 'reflect-metadata';
import { GantryFactory } from '@gantry/core';
import { http } from '@gantry/fastify';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const app = await GantryFactory.create(AppModule, { name: '{{serverName}}', version: '0.1.0' });
  await app.listen(
    http({
      host: process.env.HOST ?? '127.0.0.1',
      // PORT=0 picks a free port; the line below says which.
      port: Number(process.env.PORT ?? 3000),
      onListening: (url) => process.stderr.write(`{{serverName}} is serving MCP on ${url}\n`),
    }),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

main().catch((error) => {
  process.stderr.write(
    `{{serverName}} failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
