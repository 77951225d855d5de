import type { AddressInfo } from 'node:net';
import { Client, StreamableHttpClientTransport } from '@gantry/client';
import { GantryFactory } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { FeatureModule } from '../../core/test/fixtures/feature-app';
import { type GantryMcpOptions, gantryMcp } from '../src';
import { ACCEPT_BOTH, featureServer, INITIALIZE, initSession } from './support';

async function listen(options: Omit<GantryMcpOptions, 'app'> = {}) {
  const app = await GantryFactory.create(FeatureModule, {
    name: 'features',
    version: '1.0.0',
    logger: false,
  });
  const fastify: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app, sse: { retryMs: 20 }, ...options });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

const json = { 'content-type': 'application/json', accept: ACCEPT_BOTH };

describe('HTTP hardening', () => {
  it('never replays another session’s stream, even with a valid event id', async () => {
    const server = await listen({ responseMode: 'sse' });
    const alice = await (
      await fetch(server.url, { method: 'POST', headers: json, body: JSON.stringify(INITIALIZE) })
    ).headers.get('mcp-session-id');
    const call = await fetch(server.url, {
      method: 'POST',
      headers: { ...json, 'mcp-session-id': alice as string },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'weather', arguments: { city: 'Bern' } },
      }),
    });
    const eventId = /^id: (\S+)$/m.exec(await call.text())?.[1] as string;
    expect(eventId).toMatch(/\.0$/);
    const bob = await (
      await fetch(server.url, { method: 'POST', headers: json, body: JSON.stringify(INITIALIZE) })
    ).headers.get('mcp-session-id');
    const replay = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': bob as string, 'last-event-id': eventId },
    });
    expect(replay.status).toBe(400);
    await server.close();
  });

  it('refuses an unsupported MCP-Protocol-Version on GET and DELETE too', async () => {
    const server = await featureServer();
    const id = await initSession(server.fastify);
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await server.fastify.inject({
        method,
        url: '/mcp',
        headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' },
      });
      expect(response.statusCode).toBe(400);
    }
    await server.close();
  });

  it('has no HEAD route that could hold the GET stream', async () => {
    const server = await featureServer();
    const id = await initSession(server.fastify);
    const head = await server.fastify.inject({
      method: 'HEAD',
      url: '/mcp',
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
    });
    expect(head.statusCode).toBe(404);
    await server.close();
  });

  it('refuses Origin: null on a loopback connection', async () => {
    const server = await featureServer();
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, origin: 'null' },
      payload: INITIALIZE,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toBe('Invalid Origin: null');
    await server.close();
  });

  it('authenticates before reading the body', async () => {
    const server = await featureServer({
      auth: { verify: () => undefined, metadata: { authorizationServers: ['https://auth.example.com'] } },
    });
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: '{"not json',
    });
    expect(response.statusCode).toBe(401);
    await server.close();
  });

  it('ctx.closeSseStream() refuses in stateless mode, so the call still completes', async () => {
    const server = await listen({ mode: 'stateless' });
    const client = new Client({ name: 'stateless', version: '1' });
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const result = await client.callTool('resumable', { steps: 2, delayMs: 1 });
    expect((result.content[0] as { text: string }).text).toBe('done after 2 steps (stream dropped: false)');
    await client.close();
    await server.close();
  });

  it('answers a request in flight when its session ends with an error naming why', async () => {
    const server = await listen({ responseMode: 'json' });
    const session = await (
      await fetch(server.url, { method: 'POST', headers: json, body: JSON.stringify(INITIALIZE) })
    ).headers.get('mcp-session-id');
    // An interceptor marks the moment the call reaches its handler: then it is in flight.
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    server.app.useGlobalInterceptors({
      intercept: (context, next) => {
        if (context.name === 'count') started();
        return next.handle();
      },
    });
    const pending = fetch(server.url, {
      method: 'POST',
      headers: { ...json, 'mcp-session-id': session as string },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'count', arguments: { steps: 50, delayMs: 20 } },
      }),
    });
    await inFlight;
    await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': session as string } });
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32603, message: 'Internal error: the session ended before the request completed' },
    });
    await server.close();
  });
});
