// In-flight caps over HTTP on a real loopback listener: a POST whose request would exceed
// `limits.maxInflightPerSession` or `maxInflightPerPrincipal` answers 429 with `Retry-After: 1`
// and a JSON-RPC error body (−32026) before the engine sees it, in both eras.
import { GantryFactory, Module } from '@gantry/core';
import { holdTool } from '../../core/test/fixtures/hold-tool';
import { headersFor, listenOn, rpc } from './stateless-support';
import { ACCEPT_BOTH, INITIALIZE } from './support';

const hold = holdTool();

@Module({ providers: [hold.Hold] })
class HoldModule {}

const app = (limits: object) =>
  GantryFactory.create(HoldModule, { name: 'caps', version: '1', logger: false, limits });

const SESSION_VERSION = '2025-11-25';

async function openSession(url: string): Promise<(body: object) => Promise<Response>> {
  const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
  const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
  expect(init.status).toBe(200);
  await init.text();
  const id = init.headers.get('mcp-session-id') as string;
  const post = (body: object) =>
    fetch(url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': SESSION_VERSION },
      body: JSON.stringify(body),
    });
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return post;
}

const call = (id: number, holdId: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'hold', arguments: { id: holdId } },
});

async function expectRefused(response: Response, id: number | null, cap: string, limit: number) {
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(await response.json()).toEqual({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32026,
      message: `Too many requests in flight: at most ${limit} at once per ${cap} (limits.maxInflightPer${cap === 'session' ? 'Session' : 'Principal'}); retry once one is answered`,
      data: { cap, limit },
    },
  });
}

it('answers 429 + Retry-After in the session era: per session, and per principal over sessions', async () => {
  const server = await app({ maxInflightPerSession: 1, maxInflightPerPrincipal: 2 });
  const http = await listenOn(server);
  try {
    const one = await openSession(http.url);
    const two = await openSession(http.url);
    const three = await openSession(http.url);
    const a = one(call(2, 's-a'));
    await hold.started('s-a');
    await expectRefused(await one(call(3, 's-refused')), 3, 'session', 1);
    // A second session has its own session bucket, but shares the (anonymous) principal's.
    const b = two(call(2, 's-b'));
    await hold.started('s-b');
    await expectRefused(await three(call(2, 's-refused')), 2, 'principal', 2);
    hold.release('s-a');
    expect(await (await a).text()).toContain('s-a');
    const c = one(call(4, 's-c'));
    await hold.started('s-c');
    hold.release('s-b');
    hold.release('s-c');
    expect(await (await b).text()).toContain('s-b');
    expect(await (await c).text()).toContain('s-c');
    expect(hold.ran('s-refused')).toBe(false);
  } finally {
    await http.fastify.close();
    await server.close();
  }
});

it('answers 429 + Retry-After to a stateless-era (2026-07-28) request over the principal cap', async () => {
  const server = await app({ maxInflightPerPrincipal: 1 });
  const http = await listenOn(server);
  try {
    const first = rpc(1, 'tools/call', { name: 'hold', arguments: { id: 'x-a' } });
    const a = http.post(first, headersFor(first));
    await hold.started('x-a');
    const refused = rpc(2, 'tools/call', { name: 'hold', arguments: { id: 'x-refused' } });
    await expectRefused(await http.post(refused, headersFor(refused)), 2, 'principal', 1);
    hold.release('x-a');
    expect((await a).status).toBe(200);
    const next = rpc(3, 'tools/call', { name: 'hold', arguments: { id: 'x-b' } });
    const b = http.post(next, headersFor(next));
    await hold.started('x-b');
    hold.release('x-b');
    const answered = (await (await b).json()) as { result: { content: { text: string }[] } };
    expect(answered.result.content[0]?.text).toBe('x-b');
    expect(hold.ran('x-refused')).toBe(false);
  } finally {
    await http.fastify.close();
    await server.close();
  }
});
