import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { GantryApplication } from '@gantry/core';
import { createFeatureApp } from '../../core/test/fixtures/feature-app';
import { attachWebSocket, websocket } from '../src';
import { serve } from './support';

/**
 * Sends a literal upgrade request over a raw TCP socket and resolves with the response head and
 * body the server writes before the socket ends (or the head alone, once a 101 arrives).
 */
function upgrade(port: number, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      socket.destroy();
      resolve({ status, text });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.startsWith('HTTP/1.1 101') && text.includes('\r\n\r\n')) done();
    });
    socket.on('end', done);
    socket.on('error', reject);
    const lines = [
      'GET /mcp HTTP/1.1',
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Protocol: mcp',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

describe('WebSocket upgrade: Origin and Host checks (DNS rebinding, cross-site WebSocket hijacking)', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let port: number;
  beforeAll(async () => {
    server = await serve();
    port = server.listener.port;
  });
  afterAll(async () => {
    await server.app.close();
  });

  it.each([
    'http://127.0.0.1.evil.com',
    'https://127.attacker.example',
    'http://127.0.0.1.nip.io:8080',
    'http://localhost.evil.com',
    'https://evil.example',
    'null',
  ])('refuses Origin %s with 403 before the upgrade', async (origin) => {
    const response = await upgrade(port, { Host: `127.0.0.1:${port}`, Origin: origin });
    expect(response.status).toBe(403);
    expect(response.text).toContain(`Invalid Origin: ${origin}`);
  });

  it.each(['http://127.0.0.1:5173', 'http://localhost', 'http://[::1]:8080', 'HTTPS://LOCALHOST:3000'])(
    'accepts the loopback Origin %s (101)',
    async (origin) => {
      const response = await upgrade(port, { Host: `127.0.0.1:${port}`, Origin: origin });
      expect(response.status).toBe(101);
      expect(response.text).toContain('Sec-WebSocket-Protocol: mcp');
    },
  );

  it('accepts an upgrade without Origin (not a browser)', async () => {
    expect((await upgrade(port, { Host: `localhost:${port}` })).status).toBe(101);
  });

  it.each(['evil.example', 'evil.example:3000', '127.0.0.1.evil.com', 'localhost.evil.com', '127.1'])(
    'refuses Host %s on a loopback bind with 403 naming allowedHosts',
    async (host) => {
      const response = await upgrade(port, { Host: host });
      expect(response.status).toBe(403);
      expect(response.text).toContain(
        `Invalid Host: ${host} (allowed on loopback: localhost, 127.0.0.0/8, [::1]`,
      );
      expect(response.text).toContain('allowedHosts');
    },
  );

  it('refuses an upgrade without Host on a loopback bind', async () => {
    const response = await upgrade(port, {});
    expect(response.status).toBe(403);
    expect(response.text).toContain('Invalid Host: (none)');
  });

  it.each(['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', 'LOCALHOST:3000', '127.0.0.2'])(
    'accepts the loopback Host %s (101)',
    async (host) => {
      expect((await upgrade(port, { Host: host })).status).toBe(101);
    },
  );
});

describe('WebSocket upgrade: allowedHosts and allowedOrigins', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  afterEach(async () => {
    await server?.app.close();
  });

  it('allowedHosts replaces the loopback names', async () => {
    server = await serve({ allowedHosts: ['mcp.example.com'] });
    const port = server.listener.port;
    expect((await upgrade(port, { Host: 'MCP.example.com:443' })).status).toBe(101);
    const refused = await upgrade(port, { Host: `127.0.0.1:${port}` });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(`Invalid Host: 127.0.0.1:${port} (not in the allowedHosts option)`);
  });

  it('checks allowedHosts and allowedOrigins when the listener is created', () => {
    expect(() => websocket({ port: 0, allowedHosts: 'localhost' as unknown as string[] })).toThrow(
      new TypeError('websocket: allowedHosts must be an array of strings'),
    );
  });

  it('allowedOrigins replaces the loopback origins, compared without case', async () => {
    server = await serve({ allowedOrigins: ['https://App.example'] });
    const port = server.listener.port;
    const host = `127.0.0.1:${port}`;
    expect((await upgrade(port, { Host: host, Origin: 'https://app.example' })).status).toBe(101);
    expect((await upgrade(port, { Host: host, Origin: 'http://localhost' })).status).toBe(403);
  });
});

describe('WebSocket attached to a server that is not listening yet', () => {
  let app: GantryApplication;
  let http: Server;
  afterEach(async () => {
    await app.close();
    await new Promise((resolve) => http.close(resolve));
  });

  // attachWebSocket before listen() is the documented order; the policy must still see loopback.
  it('still applies the loopback Origin and Host checks', async () => {
    app = await createFeatureApp();
    http = createServer();
    attachWebSocket(app, { server: http });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as AddressInfo).port;
    expect((await upgrade(port, { Host: `127.0.0.1:${port}`, Origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect((await upgrade(port, { Host: 'evil.example' })).status).toBe(403);
    expect((await upgrade(port, { Host: `localhost:${port}`, Origin: 'http://localhost:5173' })).status).toBe(
      101,
    );
  });
});
