// WebSocket behind a proxy, on real loopback sockets, standalone and beside a Fastify server:
// with `trustProxy` naming the proxy, the client's address comes from the upgrade's
// X-Forwarded-For (ctx.remoteAddress, @RateLimit({ by: 'ip' })); without it, or from a peer that
// is not a trusted proxy, a forged header changes nothing.
import { Client, WebSocketClientTransport } from '@gantry/client';
import type { GantryApplication } from '@gantry/core';
import Fastify from 'fastify';
import { createAddressApp } from '../../core/test/fixtures/address-app';
import { attachWebSocket, type WebSocketBindingOptions, websocket } from '../src';

const apps: GantryApplication[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function app() {
  const created = await createAddressApp('ws-trust-proxy');
  apps.push(created);
  return created;
}

async function standalone(options: Partial<WebSocketBindingOptions>) {
  const listener = websocket({ port: 0, ...options });
  await (await app()).listen(listener);
  return listener.url;
}

async function connect(url: string, forwardedFor?: string) {
  const client = new Client({ name: 'behind-proxy', version: '1' });
  const headers = forwardedFor === undefined ? undefined : { 'x-forwarded-for': forwardedFor };
  await client.connect(new WebSocketClientTransport({ url, protocols: ['mcp'], headers }));
  clients.push(client);
  return client;
}

const textOf = (result: { content: unknown }) => (result.content as { text: string }[])[0].text;

describe('standalone websocket()', () => {
  it('reads the client from X-Forwarded-For when the peer is a trusted proxy, and limits by it', async () => {
    const url = await standalone({ trustProxy: 'loopback' });
    const first = await connect(url, '203.0.113.7');
    const second = await connect(url, '198.51.100.1, 198.51.100.9');
    const again = await connect(url, '203.0.113.7');
    expect(textOf(await first.callTool('where_from'))).toBe('203.0.113.7');
    expect(textOf(await second.callTool('where_from'))).toBe('198.51.100.9');
    expect((await first.callTool('once')).isError).toBeUndefined();
    // Another client behind the same proxy has a budget of its own; the same client does not.
    expect((await second.callTool('once')).isError).toBeUndefined();
    expect((await again.callTool('once')).isError).toBe(true);
  });

  it.each([
    ['no trustProxy', {}],
    ['a proxy range the peer is not in', { trustProxy: ['10.0.0.0/8'] }],
  ] as const)('ignores a forged X-Forwarded-For with %s', async (_name, options) => {
    const url = await standalone(options);
    const forged = await connect(url, '203.0.113.7');
    const other = await connect(url, '198.51.100.9');
    expect(textOf(await forged.callTool('where_from'))).toBe('127.0.0.1');
    expect((await forged.callTool('once')).isError).toBeUndefined();
    expect((await other.callTool('once')).isError).toBe(true);
  });

  it('refuses a hop count and malformed addresses when the listener is made', () => {
    expect(() => websocket({ port: 0, trustProxy: 2 as never })).toThrow(
      /^websocket: trustProxy cannot be a hop count \(2\)/,
    );
    expect(() => websocket({ port: 0, trustProxy: '300.1.1.1' })).toThrow(
      /^websocket: trustProxy: invalid IP address: 300\.1\.1\.1$/,
    );
  });
});

describe('attachWebSocket beside Fastify', () => {
  it('reads the address with the trustProxy given, as Fastify does for its own requests', async () => {
    const gantry = await app();
    const fastify = Fastify({ trustProxy: 'loopback' });
    fastify.get('/ip', async (request) => request.ip);
    attachWebSocket(gantry, { server: fastify.server, path: '/mcp', trustProxy: 'loopback' });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = fastify.server.address() as { port: number };
      const forwarded = '198.51.100.1, 203.0.113.7';
      const response = await fetch(`http://127.0.0.1:${port}/ip`, {
        headers: { 'x-forwarded-for': forwarded },
      });
      const fastifyIp = await response.text();
      expect(fastifyIp).toBe('203.0.113.7');
      const client = await connect(`ws://127.0.0.1:${port}/mcp`, forwarded);
      expect(textOf(await client.callTool('where_from'))).toBe(fastifyIp);
    } finally {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await fastify.close();
    }
  });
});
