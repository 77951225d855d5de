import type { GantryApplication } from '@gantry/core';
import { websocket } from '@gantry/ws';

/**
 * Serves the app over WebSocket (subprotocol "mcp") at ws://$HOST:$PORT/mcp (default
 * 127.0.0.1:3000) until SIGINT or SIGTERM. `node dist/main.js --ws` chooses it (main.ts;
 * written by `gantry add ws`).
 */
export async function serveWebSocket(app: GantryApplication): Promise<void> {
  const listener = websocket({
    host: process.env.HOST ?? '127.0.0.1',
    // PORT=0 picks a free port; the line below says which.
    port: Number(process.env.PORT ?? 3000),
  });
  await app.listen(listener);
  process.stderr.write(`{{serverName}} is serving MCP on ${listener.url} (WebSocket, subprotocol "mcp")\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
