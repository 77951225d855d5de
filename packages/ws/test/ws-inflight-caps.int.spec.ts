// In-flight caps over a real WebSocket in both eras: the cap+1-th concurrent call of a
// connection is refused with −32026 before its handler runs; once one ends, a new one runs.
import { Client, WebSocketClientTransport } from '@gantry/client';
import { Args, GantryFactory, Injectable, Module, Tool } from '@gantry/core';
import { websocket } from '../src';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const gates = new Map<
  string,
  { started: ReturnType<typeof deferred>; release: ReturnType<typeof deferred> }
>();
function gate(id: string) {
  let known = gates.get(id);
  if (!known) {
    known = { started: deferred(), release: deferred() };
    gates.set(id, known);
  }
  return known;
}

@Injectable()
class Hold {
  @Tool({ input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } })
  async hold(@Args() args: { id: string }) {
    gate(args.id).started.resolve();
    await gate(args.id).release.promise;
    return args.id;
  }
}

@Module({ providers: [Hold] })
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
      await gate(`${era}-a`).started.promise;
      await expect(client.callTool('hold', { id: `${era}-refused` })).rejects.toMatchObject({
        code: -32026,
        data: { cap: 'session', limit: 1 },
      });
      gate(`${era}-a`).release.resolve();
      await a;
      const b = client.callTool('hold', { id: `${era}-b` });
      await gate(`${era}-b`).started.promise;
      gate(`${era}-b`).release.resolve();
      expect(await b).toMatchObject({ content: [{ text: `${era}-b` }] });
      expect(gates.has(`${era}-refused`)).toBe(false);
    } finally {
      await client.close();
      await app.close();
    }
  });
});
