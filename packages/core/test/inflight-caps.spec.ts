// Per-session and per-principal in-flight caps (`limits.maxInflightPerSession`,
// `limits.maxInflightPerPrincipal`) through connected clients, in both protocol eras.

import { PassThrough } from 'node:stream';
import { Client } from '@gantry/client';
import { GantryFactory, LimitErrorCode, Module, stdio } from '@gantry/core';
import { type AuthInfo, InMemoryTransport } from '@gantry/protocol';
import { Test, type TestingModule } from '@gantry/testing';
import { holdTool } from './fixtures/hold-tool';

type Era = 'session' | 'stateless';
const ERAS: Era[] = ['session', 'stateless'];

async function clientAs(module: TestingModule, era: Era, auth?: AuthInfo): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await module.app.connect(serverSide, { auth });
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide, { era });
  return client;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const alice: AuthInfo = { token: 't-a', clientId: 'app', scopes: [], subject: 'alice' };
const bob: AuthInfo = { token: 't-b', clientId: 'app', scopes: [], subject: 'bob' };

describe.each(ERAS)('in-flight caps (%s era)', (era) => {
  it('refuses the cap+1-th concurrent call of a session with −32026, accepts one once a call ends', async () => {
    const tool = holdTool();
    const module = await Test.createTestingModule({ providers: [tool.Hold] }).compile({
      limits: { maxInflightPerSession: 2 },
    });
    const first = await clientAs(module, era);
    const second = await clientAs(module, era);
    const a = first.callTool('hold', { id: 'a' });
    const b = first.callTool('hold', { id: 'b' });
    await Promise.all([tool.started('a'), tool.started('b')]);
    await expect(first.callTool('hold', { id: 'c' })).rejects.toMatchObject({
      code: LimitErrorCode.TooManyInflight,
      message: expect.stringContaining('at most 2 at once per session (limits.maxInflightPerSession)'),
      data: { cap: 'session', limit: 2 },
    });
    // Another session has a bucket of its own.
    const other = second.callTool('hold', { id: 'x' });
    await tool.started('x');
    tool.release('a');
    expect(text(await a)).toBe('a');
    const d = first.callTool('hold', { id: 'd' });
    await tool.started('d');
    for (const id of ['b', 'd', 'x']) tool.release(id);
    expect((await Promise.all([b, d, other])).map(text)).toEqual(['b', 'd', 'x']);
    await module.close();
  });

  it('counts a principal over all of its sessions; another principal has its own bucket', async () => {
    const tool = holdTool();
    const module = await Test.createTestingModule({ providers: [tool.Hold] }).compile({
      limits: { maxInflightPerPrincipal: 2 },
    });
    const aliceOne = await clientAs(module, era, alice);
    const aliceTwo = await clientAs(module, era, alice);
    const bobs = await clientAs(module, era, bob);
    const a = aliceOne.callTool('hold', { id: 'a' });
    const b = aliceTwo.callTool('hold', { id: 'b' });
    await Promise.all([tool.started('a'), tool.started('b')]);
    await expect(aliceTwo.callTool('hold', { id: 'c' })).rejects.toMatchObject({
      code: -32026,
      message: expect.stringContaining('at most 2 at once per principal (limits.maxInflightPerPrincipal)'),
      data: { cap: 'principal', limit: 2 },
    });
    const x = bobs.callTool('hold', { id: 'x' });
    await tool.started('x');
    tool.release('b');
    expect(text(await b)).toBe('b');
    const d = aliceOne.callTool('hold', { id: 'd' });
    await tool.started('d');
    for (const id of ['a', 'd', 'x']) tool.release(id);
    expect((await Promise.all([a, d, x])).map(text)).toEqual(['a', 'd', 'x']);
    await module.close();
  });
});

it('lets anonymous callers share one principal bucket', async () => {
  const tool = holdTool();
  const module = await Test.createTestingModule({ providers: [tool.Hold] }).compile({
    limits: { maxInflightPerPrincipal: 1 },
  });
  const one = await clientAs(module, 'session');
  const two = await clientAs(module, 'session');
  const a = one.callTool('hold', { id: 'a' });
  await tool.started('a');
  await expect(two.callTool('hold', { id: 'b' })).rejects.toMatchObject({
    data: { cap: 'principal', limit: 1 },
  });
  tool.release('a');
  await a;
  await module.close();
});

it('refuses over stdio (in-process pipes) with a JSON-RPC error, then accepts once a call ends', async () => {
  const tool = holdTool();
  @Module({ providers: [tool.Hold] })
  class HoldModule {}
  const app = await GantryFactory.create(HoldModule, {
    name: 'caps',
    version: '1',
    logger: false,
    limits: { maxInflightPerSession: 1 },
  });
  const input = new PassThrough();
  const output = new PassThrough();
  await app.listen(stdio({ input, output, closeOnEnd: false }));
  const waiters = new Map<unknown, (answer: any) => void>();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let i = buffered.indexOf('\n'); i !== -1; i = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
      if ('id' in message && !('method' in message)) waiters.get(message.id)?.(message);
    }
  });
  const send = (message: object) => {
    const answer = new Promise<any>((resolve) => waiters.set((message as { id: unknown }).id, resolve));
    input.write(`${JSON.stringify(message)}\n`);
    return answer;
  };
  const call = (id: number, hold: string) =>
    send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold', arguments: { id: hold } } });
  await send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const a = call(1, 'a');
  await tool.started('a');
  expect(await call(2, 'refused')).toEqual({
    jsonrpc: '2.0',
    id: 2,
    error: {
      code: -32026,
      message:
        'Too many requests in flight: at most 1 at once per session (limits.maxInflightPerSession); retry once one is answered',
      data: { cap: 'session', limit: 1 },
    },
  });
  tool.release('a');
  expect((await a).result.content[0].text).toBe('a');
  const b = call(3, 'b');
  await tool.started('b');
  tool.release('b');
  expect((await b).result.content[0].text).toBe('b');
  await app.close();
});

describe('in-flight cap options', () => {
  @Module({})
  class Empty {}
  const create = (limits: object) =>
    GantryFactory.create(Empty, { name: 'caps', version: '1', logger: false, limits });

  it.each([
    [{ maxInflightPerSession: 0 }, 'limits.maxInflightPerSession must be a positive integer or false, got 0'],
    [
      { maxInflightPerSession: 1.5 },
      'limits.maxInflightPerSession must be a positive integer or false, got 1.5',
    ],
    [{ maxInflightPerPrincipal: -1 }, 'limits.maxInflightPerPrincipal must be a positive integer, got -1'],
    [{ maxInflightPerPrincipal: '8' }, 'limits.maxInflightPerPrincipal must be a positive integer, got 8'],
  ])('refuses %j with a TypeError naming the option', async (limits, message) => {
    const created = create(limits);
    await expect(created).rejects.toThrow(TypeError);
    await expect(created).rejects.toThrow(message);
  });

  it('caps sessions at 64 by default and can turn the cap off', async () => {
    const byDefault = await create({});
    expect(byDefault.server.caps?.perSession).toBe(64);
    expect(byDefault.server.caps?.perPrincipal).toBeUndefined();
    await byDefault.close();
    const off = await create({ maxInflightPerSession: false });
    expect(off.server.caps).toBeUndefined();
    await off.close();
  });
});
