import type { GantryApplication } from '@gantry/core';
import { http } from '@gantry/fastify';

/**
 * Serves the app over Streamable HTTP at http://$HOST:$PORT/mcp (default 127.0.0.1:3000) until
 * SIGINT or SIGTERM. `node dist/main.js --http` chooses it (main.ts; written by `gantry add http`).
 */
export async function serveHttp(app: GantryApplication): Promise<void> {
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
