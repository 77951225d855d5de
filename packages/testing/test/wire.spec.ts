import { Ctx, GantryFactory, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import { openWire, type Wire } from '@gantry/testing';

@Injectable()
class WireTools {
  @Tool({ description: 'Logs, then answers' })
  async chatty(@Ctx() ctx: McpContext): Promise<string> {
    await ctx.log('info', 'working');
    return 'done';
  }

  @Tool({ description: 'Who is calling' })
  whoami(@Ctx() ctx: McpContext): string {
    return ctx.auth?.clientId ?? 'anonymous';
  }

  @Tool({ description: 'Waits until aborted' })
  async wait(@Ctx() ctx: McpContext): Promise<string> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'aborted';
  }
}

@Module({ providers: [WireTools] })
class WireModule {}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

let app: Awaited<ReturnType<typeof GantryFactory.create>>;
let wire: Wire;

beforeEach(async () => {
  // shutdownGraceMs 0: a `wait` call left running is cancelled when the test closes the app.
  app = await GantryFactory.create(WireModule, {
    name: 'wire',
    version: '1.0.0',
    logger: false,
    shutdownGraceMs: 0,
  });
  wire = await openWire(app);
});

afterEach(async () => {
  await app.close();
});

describe('openWire', () => {
  it('initializes with defaults and resolves with the initialize response', async () => {
    const response = await wire.initialize();
    expect(response).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25' } });
    expect(response.result.serverInfo).toEqual({ name: 'wire', version: '1.0.0' });
  });

  it('sends objects, lines and bytes, and reads the answers in order', async () => {
    wire.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    wire.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    wire.send(Buffer.from('{"jsonrpc":"2.0","id":3,"method":"ping"}\n'));
    wire.send('{not json');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(await wire.next()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(wire.raw).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":2,"result":{}}',
      '{"jsonrpc":"2.0","id":3,"result":{}}',
      expect.stringContaining('"code":-32700'),
    ]);
    expect(wire.seen).toHaveLength(4);
  });

  it('nextMatching takes the matching message and leaves the ones before it for next()', async () => {
    await wire.initialize();
    wire.send({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } });
    wire.send(call(2, 'chatty'));
    expect(await wire.nextMatching((m) => m.id === 2)).toMatchObject({
      result: { content: [{ type: 'text', text: 'done' }] },
    });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await wire.next()).toMatchObject({ method: 'notifications/message', params: { data: 'working' } });
  });

  it('next rejects after its timeout, and a late message still reaches the next reader', async () => {
    await wire.initialize();
    wire.send(call(1, 'wait'));
    await expect(wire.next(20)).rejects.toThrow('no line from the server within 20 ms');
    await expect(wire.nextMatching((m) => m.id === 1, 20)).rejects.toThrow(
      'no matching line from the server within 20 ms',
    );
    wire.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('carries `auth` to the connection', async () => {
    const authenticated = await openWire(app, { auth: { token: 't', clientId: 'alice', scopes: [] } });
    await authenticated.initialize();
    authenticated.send(call(1, 'whoami'));
    expect((await authenticated.next()).result.content[0].text).toBe('alice');
  });

  it('passes the transport options on (maxLineBytes)', async () => {
    const limited = await openWire(app, { maxLineBytes: 64 });
    limited.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'x'.repeat(100) } });
    expect(await limited.next()).toMatchObject({
      id: null,
      error: { code: -32600, message: 'Message too large: a line may hold at most 64 bytes' },
    });
  });

  it('close() ends the connection', async () => {
    await wire.initialize();
    expect(app.server.sessions.size).toBe(1);
    await wire.close();
    expect(app.server.sessions.size).toBe(0);
  });
});
