// The standalone WebSocket listener's probes and drain: `GET /healthz` and `GET /readyz` on
// the HTTP server it owns (on by default, no Host check), and while the app drains, upgrades
// refused with 503 + Retry-After while an open socket's in-flight call is still answered.
import 'reflect-metadata';
import type { GantryApplication } from '@gantry/core';
import WebSocket from 'ws';
import { createDrainApp, Latch } from '../../core/test/fixtures/drain-app';
import { websocket } from '../src';
import { initialized } from './support';

/** An upgrade expected to be refused: its status, Retry-After and body. */
function refused(url: string): Promise<{ status: number; retryAfter: unknown; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, ['mcp']);
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('The upgrade was accepted'));
    });
    socket.once('error', () => {});
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }),
      );
    });
  });
}

async function serve(app: GantryApplication, options: { health?: false } = {}) {
  const listener = websocket({ port: 0, ...options });
  await app.listen(listener);
  return { listener, base: `http://127.0.0.1:${listener.port}` };
}

describe('the probes of the websocket() listener', () => {
  it('answers /healthz and /readyz on its HTTP server, and nothing else there', async () => {
    const app = await createDrainApp();
    const { base } = await serve(app);
    try {
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${base}/readyz?verbose=1`);
      expect(ready.status).toBe(200);
      expect(ready.headers.get('cache-control')).toBe('no-store');
      expect(await ready.json()).toEqual({
        status: 'ready',
        checks: { bootstrapped: { ok: true }, draining: { ok: true } },
      });
      // Other plain requests still get 426, and POST to a probe path is no probe.
      expect((await fetch(`${base}/mcp`)).status).toBe(426);
      expect((await fetch(`${base}/readyz`, { method: 'POST' })).status).toBe(426);
    } finally {
      await app.close();
    }
  });

  it('has none with health: false', async () => {
    const app = await createDrainApp();
    const { base } = await serve(app, { health: false });
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(426);
    } finally {
      await app.close();
    }
  });
});

describe('a draining WebSocket server', () => {
  it('refuses new sockets with 503 + Retry-After and answers the open socket’s in-flight call', async () => {
    const app = await createDrainApp();
    const latch = app.get(Latch);
    const { listener, base } = await serve(app);
    const client = await initialized(listener.url);
    client.sendText('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{}}}');
    await latch.started;

    const closing = app.close();
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('2');
    expect(await ready.json()).toEqual({
      status: 'unavailable',
      checks: {
        bootstrapped: { ok: true },
        draining: { ok: false, error: 'the application is shutting down' },
      },
    });
    const upgrade = await refused(listener.url);
    expect(upgrade).toEqual({
      status: 503,
      retryAfter: '2',
      body: 'Service Unavailable: the server is shutting down; retry, another instance will answer\n',
    });

    // The open socket is served during the grace, and its in-flight call is answered.
    client.sendText(
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"quick","arguments":{}}}',
    );
    expect(await client.response(6)).toEqual({
      jsonrpc: '2.0',
      id: 6,
      result: { content: [{ type: 'text', text: 'quick' }] },
    });
    latch.release();
    expect(await client.response(5)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { content: [{ type: 'text', text: 'held and released' }] },
    });
    await closing;
    expect(await client.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
  });
});
