import type { AddressInfo } from 'node:net';
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
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

async function initialize(base: string): Promise<string> {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
    body: JSON.stringify(INITIALIZE),
  });
  return response.headers.get('mcp-session-id') as string;
}

/** Reads an SSE body until `until` matches what arrived, then aborts. */
async function readUntil(response: Response, until: RegExp, controller: AbortController): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  return text;
}

describe('the standalone GET stream', () => {
  it('primes with an id and retry, sends keep-alive comments, and refuses a second stream with 409', async () => {
    const server = await listen({ sse: { keepAliveMs: 30, retryMs: 1234 } });
    const session = await initialize(server.base);
    const controller = new AbortController();
    const stream = await fetch(`${server.base}/mcp`, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    const second = await fetch(`${server.base}/mcp`, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Conflict: this session already has a GET stream open' },
    });
    const text = await readUntil(stream, /: keep-alive\n\n/, controller);
    expect(text).toMatch(/^id: [A-Za-z0-9_-]+\.0\nretry: 1234\ndata: \n\n/);
    expect(text).toContain(': keep-alive\n\n');
    await server.close();
  });

  it('refuses an unknown Last-Event-ID with 400', async () => {
    const server = await listen();
    const session = await initialize(server.base);
    const response = await fetch(`${server.base}/mcp`, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': 'nope.3' },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'Bad Request: Last-Event-ID "nope.3" is unknown or expired',
    );
    await server.close();
  });
});

describe('session limits', () => {
  it('closes a session left idle past idleTimeoutMs (then 404)', async () => {
    const server = await featureServer({ sessions: { idleTimeoutMs: 100 } });
    const id = await initSession(server.fastify);
    expect(server.app.server.sessions.size).toBe(1);
    const [session] = server.app.server.sessions;
    await new Promise<void>((resolve) => session.onClose(resolve));
    expect(server.app.server.sessions.size).toBe(0);
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': id },
      payload: { jsonrpc: '2.0', id: 2, method: 'ping' },
    });
    expect(response.statusCode).toBe(404);
    await server.close();
  });
});

describe('CORS and host allow-lists', () => {
  it('answers preflights and exposes Mcp-Session-Id to allowed origins', async () => {
    const server = await featureServer({ cors: { origins: ['http://localhost:5173'] } });
    const preflight = await server.fastify.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, DELETE, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toContain('mcp-protocol-version');
    const init = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, origin: 'http://localhost:5173' },
      payload: INITIALIZE,
    });
    expect(init.statusCode).toBe(200);
    expect(init.headers['access-control-expose-headers']).toBe(
      'mcp-session-id, mcp-protocol-version, www-authenticate',
    );
    await server.close();
  });

  it('uses allowedHosts and allowedOrigins instead of the loopback defaults', async () => {
    const server = await featureServer({
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://app.example.com'],
    });
    const inject = (headers: Record<string, string>) =>
      server.fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
        payload: INITIALIZE,
      });
    expect((await inject({ host: 'mcp.example.com', origin: 'https://app.example.com' })).statusCode).toBe(
      200,
    );
    expect((await inject({ host: 'localhost' })).json().error.message).toBe(
      'Invalid Host: localhost (not in the allowedHosts option)',
    );
    expect((await inject({ host: 'mcp.example.com', origin: 'https://evil.example' })).statusCode).toBe(403);
    await server.close();
  });
});
