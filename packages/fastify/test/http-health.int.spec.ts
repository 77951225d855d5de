// Health probes and the graceful drain over real sockets: `GET /healthz` and `GET /readyz` on
// the standalone `http()` listener (on by default) and the `gantryMcp` plugin (opt-in, under
// its prefix), the Host check they skip, and what `app.close()` does to the traffic of a
// draining server: readiness 503 first, new sessions and stateless requests 503 + Retry-After,
// open sessions served, in-flight calls answered within the grace and cancelled after it.
import 'reflect-metadata';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GantryApplication } from '@gantry/core';
import Fastify from 'fastify';
import { createDrainApp, Latch } from '../../core/test/fixtures/drain-app';
import { gantryMcp, http } from '../src';
import { headersFor, rpc } from './stateless-support';

const ACCEPT = 'application/json, text/event-stream';
const READY = {
  status: 'ready',
  checks: { bootstrapped: { ok: true }, draining: { ok: true } },
};
const DRAINING = {
  status: 'unavailable',
  checks: {
    bootstrapped: { ok: true },
    draining: { ok: false, error: 'the application is shutting down' },
  },
};

/** A GET with the Host header a client chooses (fetch cannot set Host). */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function initializeBody(id: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
}

function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
  if (sessionId) {
    headers['mcp-session-id'] = sessionId;
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** Opens a session-era session and returns its id. */
async function openSession(url: string): Promise<string> {
  const response = await post(url, initializeBody(1));
  expect(response.status).toBe(200);
  await response.json();
  const id = response.headers.get('mcp-session-id') as string;
  const ready = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  expect(ready.status).toBe(202);
  return id;
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

const textResult = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text }] },
});

async function listen(app: GantryApplication, options: Parameters<typeof http>[0] = {}) {
  const listener = http({ port: 0, onListening: () => undefined, ...options });
  await app.listen(listener);
  const mcp = listener.url as string;
  return { mcp, base: mcp.slice(0, mcp.lastIndexOf('/mcp')) };
}

describe('the probes of the http() listener', () => {
  let app: GantryApplication;
  afterEach(() => app.close());

  it('answers /healthz and /readyz with every check, uncached', async () => {
    app = await createDrainApp();
    const { base } = await listen(app);
    const health = await get(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
    const ready = await get(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(ready.body)).toEqual(READY);
  });

  it('serves them without the Host check that guards /mcp (a probe names the pod IP)', async () => {
    app = await createDrainApp();
    const { base, mcp } = await listen(app);
    const podHost = { host: '10.1.2.3:3000' };
    expect((await get(`${base}/healthz`, podHost)).status).toBe(200);
    expect((await get(`${base}/readyz`, podHost)).status).toBe(200);
    // The MCP endpoint on the same loopback server still refuses that Host (DNS rebinding).
    expect((await get(mcp, { ...podHost, accept: 'text/event-stream' })).status).toBe(403);
  });

  it('takes other paths, and none with health: false', async () => {
    app = await createDrainApp();
    const custom = await listen(app, { health: { healthPath: '/live', readyPath: '/ready' } });
    expect((await get(`${custom.base}/live`)).status).toBe(200);
    expect((await get(`${custom.base}/ready`)).status).toBe(200);
    expect((await get(`${custom.base}/healthz`)).status).toBe(404);
    const off = await listen(app, { health: false });
    expect((await get(`${off.base}/healthz`)).status).toBe(404);
    expect((await get(`${off.base}/readyz`)).status).toBe(404);
  });

  it('refuses a bad health option when the listener starts, naming it', async () => {
    app = await createDrainApp();
    await expect(listen(app, { health: { readyPath: 'readyz' } })).rejects.toThrow(
      'gantryMcp: health.readyPath must be a path starting with \'/\' (no query), got "readyz"',
    );
    await expect(listen(app, { health: { healthPath: '/same', readyPath: '/same' } })).rejects.toThrow(
      'gantryMcp: health.healthPath and health.readyPath must differ (both /same)',
    );
  });
});

describe('the probes of the gantryMcp plugin', () => {
  it('are off unless asked for, and sit under the prefix the plugin is registered with', async () => {
    const app = await createDrainApp();
    const fastify = Fastify({ logger: false });
    await fastify.register(gantryMcp, { app });
    await fastify.register(gantryMcp, { app, prefix: '/api', health: true });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;
    try {
      expect((await get(`${base}/healthz`)).status).toBe(404);
      expect((await get(`${base}/readyz`)).status).toBe(404);
      expect(JSON.parse((await get(`${base}/api/healthz`)).body)).toEqual({ status: 'ok' });
      const ready = await get(`${base}/api/readyz`, { host: 'probe.internal' });
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toEqual(READY);
      // Not under the MCP path itself.
      expect((await get(`${base}/api/mcp/readyz`)).status).toBe(404);
    } finally {
      await fastify.close();
      await app.close();
    }
  });
});

describe('a draining server', () => {
  it('turns not ready, refuses new work, serves open sessions and delivers the in-flight call', async () => {
    const app = await createDrainApp();
    const latch = app.get(Latch);
    const { base, mcp } = await listen(app);
    const session = await openSession(mcp);
    const inflight = post(mcp, call(7, 'hold'), session);
    await latch.started;

    const closing = app.close();
    expect(app.draining).toBe(true);
    const ready = await get(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers['retry-after']).toBe('2');
    expect(JSON.parse(ready.body)).toEqual(DRAINING);
    expect((await get(`${base}/healthz`)).status).toBe(200);

    // A new session: 503 + Retry-After with a JSON-RPC error naming the cause.
    const refused = await post(mcp, initializeBody(8));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32603,
        message: 'Service Unavailable: the server is shutting down; retry, another instance will answer',
      },
    });
    // A stateless-era request is new work too.
    const statelessBody = rpc(9, 'tools/call', { name: 'quick', arguments: {} });
    const stateless = await fetch(mcp, {
      method: 'POST',
      headers: headersFor(statelessBody),
      body: JSON.stringify(statelessBody),
    });
    expect(stateless.status).toBe(503);
    expect(stateless.headers.get('retry-after')).toBe('2');
    await stateless.body?.cancel();
    // A legacy HTTP+SSE connection opens a session: refused as well.
    const legacy = await get(`${base}/sse`, { accept: 'text/event-stream' });
    expect(legacy.status).toBe(503);

    // The open session is still served during the grace.
    const quick = await post(mcp, call(10, 'quick'), session);
    expect(quick.status).toBe(200);
    expect(await quick.json()).toEqual(textResult(10, 'quick'));

    latch.release();
    const answered = await inflight;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual(textResult(7, 'held and released'));
    await closing;
    await expect(get(`${base}/healthz`)).rejects.toThrow();
  });

  it('cancels what still runs when the grace ends', async () => {
    const app = await createDrainApp({ shutdownGraceMs: 100 });
    const latch = app.get(Latch);
    const { mcp } = await listen(app);
    const session = await openSession(mcp);
    const inflight = post(mcp, call(3, 'hold'), session).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      (error: Error) => ({ status: 0, body: error.message }),
    );
    await latch.started;
    await app.close();
    const reason = await latch.cancelled;
    expect(reason).toBeInstanceOf(Error);
    // No result was delivered for the cancelled call.
    const outcome = await inflight;
    expect(outcome.body).not.toContain('held and released');
  });

  it('cancels at once with shutdownGraceMs: 0, as before drains existed', async () => {
    const app = await createDrainApp({ shutdownGraceMs: 0 });
    const latch = app.get(Latch);
    const { mcp } = await listen(app);
    const session = await openSession(mcp);
    const inflight = post(mcp, call(4, 'hold'), session).catch(() => undefined);
    await latch.started;
    await app.close();
    await expect(latch.cancelled).resolves.toBeInstanceOf(Error);
    await inflight;
  });
});
