// A stateless-era (2026-07-28) POST is one single-use exchange with the application: the
// transport hands the classified request to `ConnectionHost.exchange` and opens no connection
// (no session, no Peer). Session-era traffic, stateless mode included, still connects.
import 'reflect-metadata';
import { type ConnectionHost, connectionHostOf, type GantryApplication } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { type GantryMcpOptions, gantryMcp } from '../src';
import { ACCEPT, headersFor, injectStateless, rpc, textResult } from './stateless-support';

async function serve(app: GantryApplication, options: Omit<GantryMcpOptions, 'app'> = {}) {
  const fastify: FastifyInstance = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.ready();
  return fastify;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('a stateless-era POST is one exchange', () => {
  let app: GantryApplication;
  let host: ConnectionHost;
  let fastify: FastifyInstance;
  let connect: jest.SpyInstance;
  let exchange: jest.SpyInstance;

  beforeEach(async () => {
    app = await createDualEraApp();
    host = connectionHostOf(app);
    connect = jest.spyOn(host, 'connect');
    exchange = jest.spyOn(host, 'exchange');
    fastify = await serve(app);
  });
  afterEach(async () => {
    await fastify.close();
    await app.close();
  });

  it('hands the request to host.exchange once and opens no connection', async () => {
    const body = rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const response = await injectStateless(fastify, body);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(textResult(1, 'hi'));
    expect(connect).not.toHaveBeenCalled();
    expect(exchange).toHaveBeenCalledTimes(1);
    expect(exchange.mock.calls[0][0]).toEqual(body);
  });

  it('streams the notifications of the exchange as SSE, still without a connection', async () => {
    const body = rpc(
      2,
      'tools/call',
      { name: 'log_levels' },
      {},
      { 'io.modelcontextprotocol/logLevel': 'error' },
    );
    const response = await injectStateless(fastify, body);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.body).toBe(
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error message' } })}\n\n` +
        `data: ${JSON.stringify(textResult(2, 'logged'))}\n\n`,
    );
    expect(connect).not.toHaveBeenCalled();
    expect(exchange).toHaveBeenCalledTimes(1);
  });

  it('does not count against sessions.max: one open session at the limit, stateless POSTs are served', async () => {
    await fastify.close();
    fastify = await serve(app, { sessions: { max: 1 } });
    const opened = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      payload: JSON.stringify(initialize),
    });
    expect(opened.headers['mcp-session-id']).toEqual(expect.any(String));
    const refused = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      payload: JSON.stringify(initialize),
    });
    expect(refused.statusCode).toBe(503);
    for (const id of [3, 4]) {
      const body = rpc(id, 'tools/call', { name: 'echo', arguments: { text: `n${id}` } });
      const response = await injectStateless(fastify, body, headersFor(body));
      expect(response.json()).toEqual(textResult(id, `n${id}`));
    }
    // Only the session-era initialize connected.
    expect(connect).toHaveBeenCalledTimes(1);
  });

  it('session-era requests still connect: with initialize, or standing alone in stateless mode', async () => {
    await fastify.close();
    fastify = await serve(app, { mode: 'stateless' });
    const response = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().result.tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'echo' })]),
    );
    expect(connect).toHaveBeenCalledTimes(1);
    expect(connect.mock.calls[0][1]).toMatchObject({
      mode: {
        sessionless: { protocolVersion: '2025-06-18', reason: expect.stringContaining('stateless HTTP') },
      },
    });
    expect(exchange).not.toHaveBeenCalled();
  });
});

describe('gantryMcp options.app', () => {
  it('refuses something that is not a Gantry application with a TypeError', async () => {
    const fastify = Fastify({ logger: false });
    await expect(
      fastify.register(gantryMcp, { app: { registry: {} } as unknown as GantryApplication }),
    ).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringContaining('options.app must be a Gantry application'),
    });
    await fastify.close();
  });
});
