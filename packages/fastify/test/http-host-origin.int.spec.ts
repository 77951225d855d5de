import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { featureServer } from './support';

const INITIALIZE_BODY =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}';

/** POSTs initialize over a real loopback socket with the given Host and Origin. */
function post(port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        setHost: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE_BODY);
  });
}

describe('Streamable HTTP on a loopback socket: Host and Origin (the policy shared with WebSocket)', () => {
  let server: Awaited<ReturnType<typeof featureServer>>;
  let port: number;
  beforeAll(async () => {
    server = await featureServer();
    await server.fastify.listen({ port: 0, host: '127.0.0.1' });
    port = (server.fastify.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    'http://127.0.0.1.evil.com',
    'https://127.attacker.example',
    'http://127.0.0.1.nip.io:8080',
    'http://localhost.evil.com',
  ])('403: Origin %s is not loopback', async (origin) => {
    const response = await post(port, { host: `127.0.0.1:${port}`, origin });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `Invalid Origin: ${origin}` },
    });
  });

  it.each(['http://127.0.0.1:5173', 'http://localhost', 'http://[::1]:8080'])(
    '200: the loopback Origin %s',
    async (origin) => {
      expect((await post(port, { host: `localhost:${port}`, origin })).status).toBe(200);
    },
  );

  it('403: a foreign Host names the allowedHosts option', async () => {
    const response = await post(port, { host: '127.0.0.1.evil.com' });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body).error.message).toBe(
      'Invalid Host: 127.0.0.1.evil.com (allowed on loopback: localhost, 127.0.0.0/8, [::1]; set the allowedHosts option to accept others)',
    );
  });
});
