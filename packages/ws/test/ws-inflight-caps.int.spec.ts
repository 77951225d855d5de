// In-flight caps over a real WebSocket in both eras: the cap+1-th concurrent call of a
// connection is refused with −32026 before its handler runs; once one ends, a new one runs.
import { Client, WebSocketClientTransport } from '@gantry/client';
import { GantryFactory, Module } from '@gantry/core';
import { holdTool } from '../../core/test/fixtures/hold-tool';
import { websocket } from '../src';

const hold = holdTool();

@Module({ providers: [hold.Hold] })
class HoldModule {}

describe.each(['session', 'stateless'] as const)('WebSocket in-flight caps (%s era)', (era) => {
  it('refuses the call over the per-session cap and accepts one after a call ends', async () => {
    const app = await GantryFactory.create(HoldModule, {
      name: 'ws-caps',
      version: '1',
      logger: false,
      limits: { maxInflightPerSession: 1 },
    });
    const listener = websocket({ port: 0 });
    await app.listen(listener);
    const client = new Client({ name: 'c', version: '1' });
    try {
      await client.connect(
        new WebSocketClientTransport({ url: listener.url as string, protocols: ['mcp'] }),
        {
          era,
        },
      );
      const a = client.callTool('hold', { id: `${era}-a` });
      await hold.started(`${era}-a`);
      await expect(client.callTool('hold', { id: `${era}-refused` })).rejects.toMatchObject({
        code: -32026,
        data: { cap: 'session', limit: 1 },
      });
      hold.release(`${era}-a`);
      await a;
      const b = client.callTool('hold', { id: `${era}-b` });
      await hold.started(`${era}-b`);
      hold.release(`${era}-b`);
      expect(await b).toMatchObject({ content: [{ text: `${era}-b` }] });
      expect(hold.ran(`${era}-refused`)).toBe(false);
    } finally {
      await client.close();
      await app.close();
    }
  });
});
