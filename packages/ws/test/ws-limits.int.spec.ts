// Limits over a real WebSocket in both eras: the connection's remote address reaches the
// context (ctx.remoteAddress) and keys @RateLimit({ by: 'ip' }).
import { Client, WebSocketClientTransport } from '@gantry/client';
import { createAddressApp } from '../../core/test/fixtures/address-app';
import { websocket } from '../src';

describe.each(['session', 'stateless'] as const)('WebSocket limits (%s era)', (era) => {
  it('sees the remote address and limits by it', async () => {
    const app = await createAddressApp('ws-limits');
    const listener = websocket({ port: 0 });
    await app.listen(listener);
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const client = new Client({ name: `c${i}`, version: '1' });
        await client.connect(
          new WebSocketClientTransport({ url: listener.url as string, protocols: ['mcp'] }),
          {
            era,
          },
        );
        clients.push(client);
      }
      const [first, second] = clients;
      expect(await first.callTool('where_from')).toMatchObject({ content: [{ text: '127.0.0.1' }] });
      expect((await first.callTool('once')).isError).toBeUndefined();
      // Another connection from the same address shares the bucket.
      const refused = await second.callTool('once');
      expect(refused.isError).toBe(true);
      expect((refused._meta as Record<string, number>)['io.gantry/retryAfterMs']).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await app.close();
    }
  });
});
