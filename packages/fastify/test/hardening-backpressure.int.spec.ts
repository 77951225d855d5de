import { type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GantryApplication } from '@gantry/core';
import Fastify from 'fastify';
import { type GantryMcpOptions, gantryMcp } from '../src';
import { HandlerJournal, hardeningApp, RecordingLogger } from './fixtures/hardening-app';
import { ACCEPT_BOTH, INITIALIZE } from './support';

const MiB = 1024 * 1024;
const OVERFLOW = /^warn: SSE stream \S+ closed: the client is not reading \(more than 1048576 bytes queued/;

async function listen(options: Omit<GantryMcpOptions, 'app'> = {}) {
  const logger = new RecordingLogger();
  const app: GantryApplication = await hardeningApp(logger);
  const fastify = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app, ...options, sse: { maxQueuedBytes: MiB, ...options.sse } });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/mcp`;
  return {
    app,
    logger,
    url,
    journal: app.get(HandlerJournal),
    /** A new session (initialized), by id. */
    async session(): Promise<string> {
      const json = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
      const init = await fetch(url, { method: 'POST', headers: json, body: JSON.stringify(INITIALIZE) });
      await init.text();
      const id = init.headers.get('mcp-session-id') as string;
      const done = await fetch(url, {
        method: 'POST',
        headers: { ...json, 'mcp-session-id': id },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await done.text();
      return id;
    },
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

/** Sends a request over a real socket and resolves with the response, already paused: nothing is read. */
function unread(
  url: string,
  session: string,
  method: 'GET' | 'POST',
  body?: unknown,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: {
        accept: method === 'GET' ? 'text/event-stream' : ACCEPT_BOTH,
        'content-type': 'application/json',
        'mcp-session-id': session,
      },
    });
    req.on('response', (response) => {
      response.pause();
      resolve(response);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Reads the rest of a response; resolves with the text read and whether it ended cleanly. */
function readAll(response: IncomingMessage): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    // Closed while paused: what was read before stays unread, and 'close' has already fired.
    if (response.destroyed) return resolve({ text, complete: response.complete });
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.on('end', () => resolve({ text, complete: response.complete }));
    response.on('error', () => resolve({ text, complete: false }));
    response.on('close', () => resolve({ text, complete: response.complete }));
    response.resume();
  });
}

const flood = (count: number, size: number, awaitEach: boolean, gate?: string) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'flood', arguments: { count, size, awaitEach, ...(gate && { gate }) } },
});

describe('SSE output backpressure', () => {
  it('holds a handler that awaits ctx.log while its client does not read, then delivers everything', async () => {
    const server = await listen();
    const session = await server.session();
    // 32 MiB of log messages, far more than the socket buffers hold.
    const response = await unread(server.url, session, 'POST', flood(512, 64 * 1024, true));
    expect(response.headers['content-type']).toBe('text/event-stream');
    await Promise.race([server.journal.whenFloodBlocked(), server.journal.whenFloodDone()]);
    expect(server.journal.floodDone).toBe(false);
    expect(server.journal.floodBlockedAt).toBeDefined();
    expect(server.journal.floodSettledBytes).toBeLessThan(32 * MiB);
    const { text, complete } = await readAll(response);
    expect(complete).toBe(true);
    expect(text.match(/"method":"notifications\/message"/g)).toHaveLength(512);
    expect(text).toContain('"text":"flooded 512"');
    // Awaiting handlers never queue past the cap, so the stream was not cut.
    expect(server.logger.lines.filter((line) => OVERFLOW.test(line))).toEqual([]);
    await server.close();
  });

  it('closes a POST stream whose client does not read once maxQueuedBytes are queued, and settles the pending logs', async () => {
    const server = await listen();
    const session = await server.session();
    const before = process.memoryUsage().rss;
    // 400 × 256 KiB = 100 MiB sent without waiting.
    const response = await unread(server.url, session, 'POST', flood(400, 256 * 1024, false, 'go'));
    await server.journal.whenStarted('go');
    server.journal.started.get('go')?.();
    await server.logger.waitFor(OVERFLOW);
    // Every pending ctx.log settles: the handler is not left waiting on a connection that is gone.
    await server.journal.whenFloodDone();
    expect(server.journal.floodSettledBytes).toBe(400 * 256 * 1024);
    const growth = process.memoryUsage().rss - before;
    expect(growth).toBeLessThan(40 * MiB);
    const { text, complete } = await readAll(response);
    expect(complete).toBe(false);
    expect(Buffer.byteLength(text)).toBeLessThan(100 * MiB);
    await server.close();
  });

  it('closes only the GET stream that does not read; a broadcast still reaches the others', async () => {
    // `json` answers send a request's messages on the session's GET stream.
    const server = await listen({ responseMode: 'json' });
    const slow = await server.session();
    const fast = await server.session();
    const slowStream = await unread(server.url, slow, 'GET');
    const fastStream = await unread(server.url, fast, 'GET');
    const heard = new Promise<void>((resolve) => {
      fastStream.setEncoding('utf8');
      fastStream.on('data', (chunk: string) => {
        if (chunk.includes('notifications/tools/list_changed')) resolve();
      });
      fastStream.resume();
    });
    const call = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': slow },
      body: JSON.stringify(flood(200, 256 * 1024, false)),
    });
    expect(call.status).toBe(200);
    expect(((await call.json()) as { result: { content: unknown } }).result.content).toEqual([
      { type: 'text', text: 'flooded 200' },
    ]);
    await server.logger.waitFor(OVERFLOW);
    server.app.registry.tools.disable('hold');
    await heard;
    const { complete } = await readAll(slowStream);
    expect(complete).toBe(false);
    fastStream.destroy();
    await server.close();
  });
});
