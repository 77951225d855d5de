import type { GantryApplication, ServerSession } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { type GantryMcpOptions, gantryMcp } from '../src';
import { HandlerJournal, hardeningApp } from './fixtures/hardening-app';
import { ACCEPT_BOTH, initSession } from './support';

async function server(options: Omit<GantryMcpOptions, 'app'> = {}) {
  const app: GantryApplication = await hardeningApp();
  const fastify: FastifyInstance = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.ready();
  return {
    app,
    fastify,
    journal: app.get(HandlerJournal),
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

function post(fastify: FastifyInstance, session: string, payload: unknown, version = '2025-03-26') {
  return fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      'mcp-session-id': session,
      'mcp-protocol-version': version,
    },
    payload: JSON.stringify(payload),
  });
}

const hold = (id: number, key: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'hold', arguments: { key } },
});
const cancel = (requestId: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'test' },
});

/** The one ServerSession of the app, and a promise that settles when it closes. */
function onlySession(app: GantryApplication): { session: ServerSession; closed: Promise<void> } {
  const [session] = [...app.server.sessions];
  return { session, closed: new Promise((resolve) => session.onClose(resolve)) };
}

describe('HTTP batches (2025-03-26)', () => {
  it('answers a batch whose first entry is invalid: one answer per entry, in one array', async () => {
    const s = await server();
    const id = await initSession(s.fastify, '2025-03-26');
    const response = await post(s.fastify, id, [
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    expect(response.statusCode).toBe(200);
    const body = response.json() as Array<{ id: unknown; result?: unknown; error?: { code: number } }>;
    expect(body).toHaveLength(2);
    expect(body.find((m) => m.id === 1)?.error?.code).toBe(-32600);
    expect(body.find((m) => m.id === 2)?.result).toEqual({});
    await s.close();
  });

  it('answers a batch of invalid entries only, each with an error (id null where it has none)', async () => {
    const s = await server();
    const id = await initSession(s.fastify, '2025-03-26');
    const response = await post(s.fastify, id, [1, { jsonrpc: '2.0', id: 7, method: 'ping', params: 3 }]);
    expect(response.statusCode).toBe(200);
    const body = response.json() as Array<{ id: unknown; error?: { code: number } }>;
    expect(body.map((m) => [m.id, m.error?.code])).toEqual([
      [null, -32600],
      [7, -32600],
    ]);
    await s.close();
  });

  it('still answers 202 for a batch of notifications only', async () => {
    const s = await server();
    const id = await initSession(s.fastify, '2025-03-26');
    const response = await post(s.fastify, id, [
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    ]);
    expect(response.statusCode).toBe(202);
    expect(response.body).toBe('');
    await s.close();
  });
});

describe('a cancelled request on HTTP', () => {
  it('ends a JSON answer with 202 and no body, and the handler sees the abort', async () => {
    const s = await server({ responseMode: 'json' });
    const id = await initSession(s.fastify);
    const call = post(s.fastify, id, hold(5, 'json'), '2025-11-25');
    await s.journal.whenStarted('json');
    expect((await post(s.fastify, id, cancel(5), '2025-11-25')).statusCode).toBe(202);
    const answer = await call;
    expect(answer.statusCode).toBe(202);
    expect(answer.body).toBe('');
    expect(s.journal.aborted).toEqual(['json']);
    await s.close();
  });

  it('ends an SSE answer after the events sent so far', async () => {
    const s = await server({ responseMode: 'sse' });
    const id = await initSession(s.fastify);
    const call = post(s.fastify, id, hold(6, 'sse'), '2025-11-25');
    await s.journal.whenStarted('sse');
    await post(s.fastify, id, cancel(6), '2025-11-25');
    const answer = await call;
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    // The priming event only: no response for a cancelled request (2025-11-25 cancellation).
    expect(answer.body).toMatch(/^id: \S+\.0\nretry: 1000\ndata: \n\n$/);
    await s.close();
  });

  it('frees the session for idle reclaim once its cancelled POST ended', async () => {
    const s = await server({ responseMode: 'sse', sessions: { idleTimeoutMs: 100 } });
    const id = await initSession(s.fastify);
    const { closed } = onlySession(s.app);
    const call = post(s.fastify, id, hold(8, 'idle'), '2025-11-25');
    await s.journal.whenStarted('idle');
    await post(s.fastify, id, cancel(8), '2025-11-25');
    await call;
    await closed;
    expect(
      (await post(s.fastify, id, { jsonrpc: '2.0', id: 9, method: 'ping' }, '2025-11-25')).statusCode,
    ).toBe(404);
    await s.close();
  });

  it('ends a batch whose requests are all cancelled', async () => {
    const s = await server({ responseMode: 'json' });
    const id = await initSession(s.fastify, '2025-03-26');
    const call = post(s.fastify, id, [hold(1, 'a'), hold(2, 'b')]);
    await Promise.all([s.journal.whenStarted('a'), s.journal.whenStarted('b')]);
    await post(s.fastify, id, [cancel(1), cancel(2)]);
    const answer = await call;
    expect(answer.statusCode).toBe(202);
    expect(answer.body).toBe('');
    await s.close();
  });

  it('answers the rest of a batch when some of its requests are cancelled', async () => {
    const s = await server({ responseMode: 'json' });
    const id = await initSession(s.fastify, '2025-03-26');
    const call = post(s.fastify, id, [
      hold(1, 'gone'),
      hold(2, 'kept'),
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ]);
    await Promise.all([s.journal.whenStarted('gone'), s.journal.whenStarted('kept')]);
    await post(s.fastify, id, cancel(1));
    s.journal.started.get('kept')?.();
    const answer = await call;
    expect(answer.statusCode).toBe(200);
    const body = answer.json() as Array<{ id: number; result?: unknown }>;
    expect(body.map((m) => m.id).sort()).toEqual([2, 3]);
    expect(body.find((m) => m.id === 2)?.result).toEqual({
      content: [{ type: 'text', text: 'released kept' }],
    });
    await s.close();
  });
});
