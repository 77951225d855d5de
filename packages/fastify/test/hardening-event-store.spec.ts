import type { JSONRPCMessage } from '@gantry/protocol';
import { InMemoryEventStore } from '../src';
import { ACCEPT_BOTH, featureServer, initSession } from './support';

/** A response whose JSON is exactly `bytes` long. */
function answerOf(id: number, bytes: number): JSONRPCMessage {
  const empty = JSON.stringify({ jsonrpc: '2.0', id, result: { text: '' } }).length;
  return { jsonrpc: '2.0', id, result: { text: 'x'.repeat(bytes - empty) } };
}

async function replayed(store: InMemoryEventStore, lastEventId: string) {
  const ids: string[] = [];
  const stream = await store.replayEventsAfter(lastEventId, (eventId) => {
    ids.push(eventId);
  });
  return { stream, ids };
}

describe('InMemoryEventStore byte budget', () => {
  it('keeps the total under maxBytes when many streams hold large answers, dropping the oldest', async () => {
    // The shape the probe found: 3,000 SSE answers of 56 KB, one stream each.
    const store = new InMemoryEventStore({ maxBytes: 8 * 1024 * 1024 });
    const ids: string[] = [];
    for (let i = 0; i < 3000; i++) {
      ids.push(store.storeEvent(`s${i}`, null));
      store.storeEvent(`s${i}`, answerOf(i, 56 * 1024));
    }
    expect(store.bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(store.bytes).toBeGreaterThan(8 * 1024 * 1024 - 56 * 1024);
    // The newest streams replay their answer from the priming event; the oldest are gone.
    expect(await replayed(store, ids[2999])).toEqual({ stream: 's2999', ids: ['s2999.1'] });
    expect(await replayed(store, ids[0])).toEqual({ stream: undefined, ids: [] });
  });

  it('keeps each stream under maxBytesPerStream; an evicted id is unknown', async () => {
    const store = new InMemoryEventStore({ maxBytesPerStream: 4096 });
    const ids = Array.from({ length: 10 }, (_, i) => store.storeEvent('s', answerOf(i, 1024)));
    expect(store.bytes).toBe(4096);
    // Events 6…9 are kept: replay after 5 sends them all; after 4 the client missed event 5.
    expect(await replayed(store, ids[5])).toEqual({ stream: 's', ids: ['s.6', 's.7', 's.8', 's.9'] });
    expect(await replayed(store, ids[4])).toEqual({ stream: undefined, ids: [] });
    // Other streams keep their own budget.
    store.storeEvent('t', answerOf(0, 1024));
    expect(store.bytes).toBe(5120);
  });

  it('frees the bytes of a dropped stream', () => {
    const store = new InMemoryEventStore();
    store.storeEvent('s', answerOf(1, 2048));
    store.storeEvent('t', answerOf(2, 1000));
    store.dropStream('s');
    expect(store.bytes).toBe(1000);
  });

  it('refuses a budget that is not a whole number ≥ 1', () => {
    expect(() => new InMemoryEventStore({ maxBytes: 0 })).toThrow(
      'InMemoryEventStore: maxBytes must be a whole number ≥ 1 (got 0)',
    );
  });

  it('answers a Last-Event-ID evicted by the byte budget as an unknown one (400)', async () => {
    const store = new InMemoryEventStore({ maxBytes: 300 });
    const server = await featureServer({ responseMode: 'sse', eventStore: store });
    const id = await initSession(server.fastify);
    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': id };
    const call = (n: number) =>
      server.fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers,
        payload: {
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: { name: 'weather', arguments: { city: 'Bern' } },
        },
      });
    const first = await call(2);
    const eventId = /^id: (\S+)$/m.exec(first.body)?.[1] as string;
    for (let n = 3; n < 10; n++) await call(n);
    const resume = await server.fastify.inject({
      method: 'GET',
      url: '/mcp',
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': eventId },
    });
    expect(resume.statusCode).toBe(400);
    expect(resume.json().error.message).toBe(
      `Bad Request: Last-Event-ID ${JSON.stringify(eventId)} is unknown or expired`,
    );
    await server.close();
  });
});
