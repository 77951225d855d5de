// Gantry over WebSocket: the echo tool of ../echo-schema.module.ts (arguments as a plain JSON
// Schema, as the HTTP server has), served by `@gantry/ws`'s standalone listener with every
// option at its default (subprotocol mcp, heartbeat, flow control: 64 in flight, 1 MiB mark).
import 'reflect-metadata';
import { GantryFactory } from '@gantry/core';
import { websocket } from '@gantry/ws';
import { EchoSchemaModule } from '../echo-schema.module';
import { serveBenchmark } from '../http/harness';

serveBenchmark(async () => {
  const app = await GantryFactory.create(EchoSchemaModule, {
    name: 'bench-gantry-ws',
    version: '1.0.0',
    logger: false,
  });
  const listener = websocket({ port: 0 });
  await app.listen(listener);
  return listener.port;
});
