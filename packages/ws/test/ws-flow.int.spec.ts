import { once } from 'node:events';
import type { GantryApplication } from '@gantry/core';
import { eventually } from '@gantry/testing';
import WebSocket from 'ws';
import {
  type WebSocketListener,
  type WebSocketOptions,
  type WebSocketServerTransport,
  websocket,
} from '../src';
import { createFlowApp, type FlowProbe } from './fixtures/flow-app';
import { initialized, RawClient } from './support';

const KIB = 1024;

function toolCall(id: number, name: string, args: object, meta?: object): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta && { _meta: meta }) },
  });
}

function textOf(frame: Record<string, unknown>): string {
  return ((frame.result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe('MCP over WebSocket: flow control', () => {
  let app: GantryApplication;
  let probe: FlowProbe;
  let listener: WebSocketListener;

  async function serve(options: Partial<WebSocketOptions>) {
    ({ app, probe } = await createFlowApp());
    listener = websocket({ port: 0, ...options });
    await app.listen(listener);
  }

  /** The server side of the only connection. */
  function serverSide(): WebSocketServerTransport {
    const [transport] = listener.connections;
    if (!transport) throw new Error('no connection');
    return transport;
  }

  afterEach(async () => {
    probe?.releaseAll();
    await app?.close();
  });

  it('runs at most maxInflight requests at once, and a pipelining client that reads late gets every answer', async () => {
    await serve({ maxInflight: 4 });
    const client = await initialized(listener.url);
    // The client stops reading: the answers wait in the network buffers.
    client.socket.pause();
    for (let n = 1; n <= 20; n++) client.sendText(toolCall(100 + n, 'hold', { n }));

    for (let round = 1; round <= 5; round++) {
      // Four requests are in flight; the other requests wait unread or held, not running.
      await probe.until(() => probe.started === 4 * round && probe.running === 4);
      probe.releaseAll();
    }

    client.socket.resume();
    for (let n = 1; n <= 20; n++) expect(textOf(await client.response(100 + n))).toBe(`held ${n}`);
    expect(probe.peak).toBe(4);
    expect(probe.started).toBe(20);
    expect(serverSide().flow).toMatchObject({ readingPaused: false, queued: 0 });
  });

  it('runs 64 requests at once by default', async () => {
    await serve({});
    const client = await initialized(listener.url);
    for (let n = 1; n <= 70; n++) client.sendText(toolCall(100 + n, 'hold', { n }));
    await probe.until(() => probe.started === 64);
    probe.releaseAll();
    await probe.until(() => probe.started === 70);
    probe.releaseAll();
    for (let n = 1; n <= 70; n++) expect(textOf(await client.response(100 + n))).toBe(`held ${n}`);
    expect(probe.peak).toBe(64);
  });

  it('stops reading a client that does not read its answers, with the queue bounded, and resumes when it reads', async () => {
    const maxInflight = 8;
    const highWaterMark = 64 * KIB;
    await serve({ maxInflight, highWaterMark, maxQueuedBytes: 8 * 1024 * KIB });
    const client = await initialized(listener.url);
    client.socket.pause();
    // 256 answers of 256 KiB: 64 MiB, far more than the network buffers between the two hold.
    const count = 256;
    for (let i = 1; i <= count; i++) client.sendText(toolCall(i + 1, 'blob', { kib: 256 }));

    // The server stalls: the admitted requests answered (into the socket's buffer or the
    // queue), their slots kept until the answers are written, the others held, reading stopped.
    // Transport state that no event announces: polled.
    await eventually(() => serverSide().flow.readingPaused, { what: 'the server to stop reading' });
    const stalled = serverSide().flow;
    expect(probe.blobs).toBeLessThan(count);
    // What waits in the server: under the high-water mark plus one answer in the socket's
    // buffer, and at most the answers of maxInflight requests in the queue.
    expect(stalled.bufferedAmount).toBeLessThan(highWaterMark + 257 * KIB);
    expect(stalled.queuedBytes).toBeLessThanOrEqual(maxInflight * 257 * KIB);

    client.socket.resume();
    for (let i = 1; i <= count; i++) expect(textOf(await client.response(i + 1))).toHaveLength(256 * KIB);
    expect(probe.blobs).toBe(count);
    expect(serverSide().flow).toMatchObject({ readingPaused: false, queued: 0 });
  });

  it('closes a client whose queue passes maxQueuedBytes with 1008', async () => {
    const highWaterMark = 64 * KIB;
    await serve({ highWaterMark, maxQueuedBytes: 1024 * KIB });
    const client = await initialized(listener.url);
    client.socket.pause();
    // 512 progress notifications of 64 KiB (32 MiB), sent without waiting for one another.
    client.sendText(toolCall(2, 'flood', { count: 512, kib: 64 }, { progressToken: 'f' }));

    // The server's close handshake starts (CLOSING) while the paused client cannot answer it;
    // ws emits nothing at that point, so the state is polled.
    const serverSocket = serverSide().socket;
    await eventually(() => serverSocket.readyState === WebSocket.CLOSING, {
      what: 'the server to start closing the socket',
    });
    const flow = serverSide().flow;
    // What was queued is dropped; the socket's own buffer stayed near the high-water mark.
    expect(flow.queuedBytes).toBe(0);
    expect(flow.bufferedAmount).toBeLessThan(2 * highWaterMark + 4 * KIB);
    client.socket.resume();
    expect(await client.closed).toEqual({ code: 1008, reason: 'Send queue full: the client is not reading' });
    const progress = client.frames.filter(
      (f) => (f as { method?: string }).method === 'notifications/progress',
    );
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.length).toBeLessThan(512);
    // The listener forgets the connection in its own 'close' listener, registered before ours.
    if (serverSocket.readyState !== WebSocket.CLOSED) await once(serverSocket, 'close');
    expect(listener.connections.size).toBe(0);
  });

  it("keeps reading the client's answers to server requests while requests are held", async () => {
    await serve({ maxInflight: 2 });
    const client = await RawClient.open(listener.url);
    client.sendText(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { sampling: {} },
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
    await client.response(1);
    client.sendText('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    // Six calls, each waiting for a sampling answer; only two run at a time.
    for (let n = 1; n <= 6; n++) client.sendText(toolCall(10 + n, 'ask', { n }));
    const seen = new Set<string>();
    for (let answered = 0; answered < 6; answered++) {
      const request = await client.next((f) => f.method === 'sampling/createMessage');
      const text = (
        (request.params as { messages: { content: { text: string } }[] }).messages[0].content.text as string
      ).replace('word ', '');
      seen.add(text);
      // At most two calls run, so at most two sampling requests await an answer.
      const awaiting = client.frames.filter(
        (f) => (f as { method?: string }).method === 'sampling/createMessage',
      );
      expect(awaiting.length + 1).toBeLessThanOrEqual(2);
      client.sendText(
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { role: 'assistant', model: 'm', content: { type: 'text', text: `w${text}` } },
        }),
      );
    }
    for (let n = 1; n <= 6; n++) expect(textOf(await client.response(10 + n))).toBe(`${n}: w${n}`);
    expect(seen.size).toBe(6);
  });

  it('frees the slots of cancelled requests and of a batch refused as a whole', async () => {
    await serve({ maxInflight: 2 });
    const client = await initialized(listener.url);
    // 2025-11-25 has no batches: the whole batch is answered by one error, and none of it runs.
    client.sendText(`[${toolCall(2, 'hold', { n: 2 })},${toolCall(3, 'hold', { n: 3 })}]`);
    expect(await client.next((f) => f.id === null)).toMatchObject({ error: { code: -32600 } });
    client.sendText(toolCall(4, 'hold', { n: 4 }));
    client.sendText(toolCall(5, 'hold', { n: 5 }));
    await probe.until(() => probe.started === 2);
    // Both slots are taken: this one is held, then cancelled before it runs.
    client.sendText(toolCall(6, 'hold', { n: 6 }));
    client.sendText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}');
    // Cancelling a running one frees its slot for the next request.
    client.sendText('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}');
    client.sendText(toolCall(7, 'hold', { n: 7 }));
    await probe.until(() => probe.started === 3);
    probe.releaseAll();
    expect(textOf(await client.response(5))).toBe('held 5');
    expect(textOf(await client.response(7))).toBe('held 7');
    expect(probe.started).toBe(3);
    client.sendText('{"jsonrpc":"2.0","id":8,"method":"ping"}');
    await client.response(8);
    expect(client.frames.filter((f) => [4, 6].includes((f as { id: number }).id))).toEqual([]);
  });

  it('refuses flow options that are not whole numbers ≥ 1', () => {
    expect(() => websocket({ port: 0, maxInflight: 0 })).toThrow(
      'websocket: maxInflight must be a whole number ≥ 1 (got 0)',
    );
    expect(() => websocket({ port: 0, highWaterMark: 1.5 })).toThrow(/highWaterMark/);
    expect(() => websocket({ port: 0, maxQueuedBytes: Number.NaN })).toThrow(/maxQueuedBytes/);
  });
});
