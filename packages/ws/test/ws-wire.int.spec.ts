import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Changes } from '@gantry/testing';
import WebSocket from 'ws';
import { createFeatureApp } from '../../core/test/fixtures/feature-app';
import { attachWebSocket } from '../src';
import { INITIALIZE, initialized, RawClient, refusedUpgrade, serve } from './support';

describe('MCP over WebSocket: the wire', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  afterEach(async () => {
    await server?.app.close();
  });

  it('serves literal frames: initialize, tools/list, tools/call, ping', async () => {
    server = await serve();
    const client = await RawClient.open(server.url);
    expect(client.socket.protocol).toBe('mcp');

    client.sendText(INITIALIZE);
    const init = await client.response(1);
    expect(init).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'features', version: '1.0.0' } },
    });
    client.sendText('{"jsonrpc":"2.0","method":"notifications/initialized"}');

    client.sendText('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    const list = (await client.response(2)).result as { tools: { name: string }[] };
    expect(list.tools.length).toBe(15);
    expect(list.tools.map((t) => t.name)).toContain('weather');

    client.sendText(
      '{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo"}}}',
    );
    expect(await client.response('three')).toMatchObject({
      result: { structuredContent: { city: 'Oslo', celsius: 21.5, sky: 'clear' } },
    });

    client.sendText('{"jsonrpc":"2.0","id":4,"method":"ping"}');
    expect(await client.response(4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    // Each message is exactly one text frame holding one JSON value, with no trailing newline.
    expect(client.texts.every((t) => !t.endsWith('\n'))).toBe(true);
    client.close();
    expect((await client.closed)?.code).toBe(1005);
  });

  it('sends server-to-client requests on the same socket (sampling)', async () => {
    server = await serve();
    const client = await RawClient.open(server.url);
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
    client.sendText(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample_joke","arguments":{"topic":"sockets"}}}',
    );
    const request = await client.next((f) => f.method === 'sampling/createMessage');
    client.sendText(
      JSON.stringify({
        jsonrpc: '2.0',
        id: request.id,
        result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'a joke' } },
      }),
    );
    const result = (await client.response(2)).result as { content: { text: string }[] };
    expect(result.content[0].text).toContain('a joke');
  });

  it('answers invalid JSON with −32700 and id null, and the socket stays usable', async () => {
    server = await serve();
    const client = await initialized(server.url);
    client.sendText('{"jsonrpc":"2.0","id":5,"method":');
    const error = await client.next((f) => 'error' in f);
    expect(error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    client.sendText('{"jsonrpc":"2.0","id":6,"method":"tools/list"}');
    expect(((await client.response(6)).result as { tools: unknown[] }).tools.length).toBe(15);
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('closes with 1003 on a binary frame', async () => {
    server = await serve();
    const client = await initialized(server.url);
    client.socket.send(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/list"}'), { binary: true });
    expect((await client.closed)?.code).toBe(1003);
  });

  it('closes with 1009 on a frame over maxPayload', async () => {
    server = await serve({ maxPayload: 1024 });
    const client = await initialized(server.url);
    client.sendText(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: 'x'.repeat(2048) } }),
    );
    expect((await client.closed)?.code).toBe(1009);
  });

  it('refuses a missing or wrong subprotocol with 400 naming "mcp"', async () => {
    server = await serve();
    const wrong = await refusedUpgrade(server.url, ['graphql-ws']);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('"mcp"');
    expect((await refusedUpgrade(server.url, [])).status).toBe(400);
  });

  it('refuses foreign Origins with 403 and accepts loopback ones', async () => {
    server = await serve();
    const refused = await refusedUpgrade(server.url, ['mcp'], { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    const ok = await RawClient.open(server.url, ['mcp'], { origin: 'http://localhost:5173' });
    ok.close();
  });

  it('honours allowedOrigins', async () => {
    server = await serve({ allowedOrigins: ['https://app.example'] });
    expect((await refusedUpgrade(server.url, ['mcp'], { origin: 'http://localhost:5173' })).status).toBe(403);
    const ok = await RawClient.open(server.url, ['mcp'], { origin: 'https://app.example' });
    ok.close();
  });

  it('refuses other paths with 404 and connections over maxConnections with 503', async () => {
    server = await serve({ maxConnections: 1 });
    expect((await refusedUpgrade(server.url.replace('/mcp', '/other'), ['mcp'])).status).toBe(404);
    const first = await RawClient.open(server.url);
    expect((await refusedUpgrade(server.url, ['mcp'])).status).toBe(503);
    first.close();
  });

  it('closes every socket with 1001 on app.close()', async () => {
    server = await serve();
    const a = await initialized(server.url);
    const b = await RawClient.open(server.url);
    await server.app.close();
    expect(await a.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect((await b.closed)?.code).toBe(1001);
    expect(server.app.server.sessions.size).toBe(0);
  });

  it('drops a peer that stops answering pings', async () => {
    server = await serve({ heartbeatMs: 50 });
    const client = await initialized(server.url);
    // Silence the client's automatic pong.
    (client.socket as unknown as { pong: () => void }).pong = () => {};
    const closed = await client.closed;
    expect(closed?.code).toBe(1006);
  });

  it('keeps an answering peer alive through heartbeats', async () => {
    server = await serve({ heartbeatMs: 30 });
    const client = await initialized(server.url);
    // A heartbeat pings only a peer whose pong to the previous ping came back, and drops the
    // others: a third ping proves two pongs (ws answers automatically) were accepted.
    let pings = 0;
    const heartbeats = new Changes();
    client.socket.on('ping', () => {
      pings++;
      heartbeats.changed();
    });
    await heartbeats.until(() => pings >= 3, { what: 'three heartbeat pings' });
    client.sendText('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    expect(await client.response(2)).toMatchObject({ result: {} });
  });
});

describe('attachWebSocket on an existing HTTP server', () => {
  it('serves on the upgrade event at its path and closes with 1001 with the app', async () => {
    const app = await createFeatureApp();
    const http = createServer((_req, res) => res.end('plain http'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    attachWebSocket(app, { server: http, path: '/ws' });
    const { port } = http.address() as AddressInfo;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('plain http');
      const client = await initialized(`ws://127.0.0.1:${port}/ws`);
      client.sendText('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
      expect(((await client.response(2)).result as { tools: unknown[] }).tools.length).toBe(15);
      expect((await refusedUpgrade(`ws://127.0.0.1:${port}/ws`, ['nope'])).status).toBe(400);
      await app.close();
      expect((await client.closed)?.code).toBe(1001);
    } finally {
      await app.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('attachWebSocket beside Fastify', () => {
  it('serves MCP over WebSocket on fastify.server while HTTP routes keep working', async () => {
    const { default: Fastify } = await import('fastify');
    const app = await createFeatureApp();
    const fastify = Fastify({ logger: false });
    fastify.get('/health', async () => ({ ok: true }));
    attachWebSocket(app, { server: fastify.server, path: '/mcp/ws' });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fastify.server.address() as AddressInfo;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ ok: true });
      const client = await initialized(`ws://127.0.0.1:${port}/mcp/ws`);
      client.sendText(
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Rome"}}}',
      );
      expect(await client.response(2)).toMatchObject({ result: { structuredContent: { city: 'Rome' } } });
      await app.close();
      expect((await client.closed)?.code).toBe(1001);
    } finally {
      await app.close();
      await fastify.close();
    }
  });
});
