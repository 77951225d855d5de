import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { gantryMcp } from '../src';
import { hardeningApp } from './fixtures/hardening-app';
import { ACCEPT_BOTH, featureServer, INITIALIZE, initSession } from './support';

const json = { 'content-type': 'application/json', accept: ACCEPT_BOTH };

describe('HTTP bodies that are not valid UTF-8', () => {
  it('answers −32700 with HTTP 400, as stdio does, instead of serving U+FFFD', async () => {
    const server = await featureServer();
    // `"name":"\xC3("`: 0xC3 starts a two-byte sequence that 0x28 ("(") cannot continue.
    const payload = Buffer.concat([
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"',
      ),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","version":"1"}}}'),
    ]);
    const response = await server.fastify.inject({ method: 'POST', url: '/mcp', headers: json, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid UTF-8' },
    });
    expect(response.headers['mcp-session-id']).toBeUndefined();
    await server.close();
  });

  it('still accepts multi-byte UTF-8', async () => {
    const server = await featureServer();
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: Buffer.from(
        JSON.stringify({
          ...INITIALIZE,
          params: { ...INITIALIZE.params, clientInfo: { name: 'Zürich ☃', version: '1' } },
        }),
      ),
    });
    expect(response.statusCode).toBe(200);
    await server.close();
  });
});

describe('DELETE ends the session whatever its body', () => {
  it.each([
    ['Content-Type: application/json and no body', { 'content-type': 'application/json' }, undefined],
    [
      'Content-Type: application/json and a body that is not JSON',
      { 'content-type': 'application/json' },
      'bye',
    ],
    ['Content-Type: text/plain and a body', { 'content-type': 'text/plain' }, 'bye'],
    [
      'Content-Type: application/octet-stream and a body',
      { 'content-type': 'application/octet-stream' },
      'bye',
    ],
  ])('with %s', async (_name, headers, payload) => {
    const server = await featureServer();
    const id = await initSession(server.fastify);
    const response = await server.fastify.inject({
      method: 'DELETE',
      url: '/mcp',
      headers: { ...headers, 'mcp-session-id': id },
      payload,
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    const after = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...json, 'mcp-session-id': id },
      payload: { jsonrpc: '2.0', id: 2, method: 'ping' },
    });
    expect(after.statusCode).toBe(404);
    await server.close();
  });

  it('keeps 415 for a POST that is not JSON', async () => {
    const server = await featureServer();
    const response = await server.fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'text/plain', accept: ACCEPT_BOTH },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.message).toBe('Unsupported Media Type: send Content-Type: application/json');
    await server.close();
  });
});

describe('legacy HTTP+SSE connections and sessions.max', () => {
  async function listen(max: number) {
    const app = await hardeningApp();
    const fastify = Fastify({ logger: false, forceCloseConnections: true });
    await fastify.register(gantryMcp, { app, sessions: { max } });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fastify.server.address() as AddressInfo;
    return {
      fastify,
      base: `http://127.0.0.1:${port}`,
      async close() {
        await fastify.close();
        await app.close();
      },
    };
  }

  /** Opens GET /sse and resolves once its `endpoint` event arrived. */
  function openLegacy(base: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      get(`${base}/sse`, { headers: { accept: 'text/event-stream' } }, (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (chunk.includes('event: endpoint')) resolve(response);
        });
      }).on('error', reject);
    });
  }

  it('counts an open legacy connection when an initialize would exceed the limit (503)', async () => {
    const server = await listen(1);
    const legacy = await openLegacy(server.base);
    const refused = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(INITIALIZE),
    });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Service Unavailable: the server is at its limit of 1 sessions; try again later',
    );
    legacy.destroy();
    await server.close();
  });

  it('counts Streamable HTTP sessions when a legacy connection opens (503)', async () => {
    const server = await listen(1);
    const accepted = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(INITIALIZE),
    });
    expect(accepted.status).toBe(200);
    const refused = await fetch(`${server.base}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(503);
    await server.close();
  });
});
