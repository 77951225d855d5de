// Rate limits over HTTP on a real loopback listener: the transport-level `rateLimit` option
// (429 + Retry-After before the body is read) and a tool-level @RateLimit({ by: 'ip' }), whose
// key is the request's remote address.
import { Client, StreamableHttpClientTransport } from '@gantry/client';
import { createAddressApp } from '../../core/test/fixtures/address-app';
import { headersFor, listenOn, rpc } from './stateless-support';

const app = () => createAddressApp('rl');

async function call(url: string, id: number, name: string) {
  const body = rpc(id, 'tools/call', { name });
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(body),
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  };
}

it('answers 429 with Retry-After and a JSON-RPC error body once a client spent its POSTs', async () => {
  const server = await app();
  const http = await listenOn(server, { rateLimit: { points: 2, duration: 30 } });
  try {
    expect((await call(http.url, 1, 'where_from')).status).toBe(200);
    expect((await call(http.url, 2, 'where_from')).status).toBe(200);
    const refused = await call(http.url, 3, 'where_from');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(30);
    expect(refused.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32029,
        message: expect.stringMatching(/^Too Many Requests: at most 2 requests per 30 s; retry in \d+ s$/),
        data: { retryAfterMs: expect.any(Number) },
      },
    });
  } finally {
    await http.fastify.close();
    await server.close();
  }
});

it('gives tools the remote address: ctx.remoteAddress and by: ip rate limits', async () => {
  const server = await app();
  const http = await listenOn(server);
  try {
    const where = await call(http.url, 1, 'where_from');
    expect(where.body.result.content[0].text).toBe('127.0.0.1');
    expect((await call(http.url, 2, 'once')).body.result.isError).toBeUndefined();
    const refused = await call(http.url, 3, 'once');
    expect(refused.status).toBe(200);
    expect(refused.body.result.isError).toBe(true);
    expect(refused.body.result._meta['io.gantry/retryAfterMs']).toBeGreaterThan(0);
  } finally {
    await http.fastify.close();
    await server.close();
  }
});

it('session era over HTTP: ctx.remoteAddress, and by: ip shared by two sessions from one address', async () => {
  const server = await app();
  const http = await listenOn(server);
  const clients: Client[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const client = new Client({ name: `c${i}`, version: '1' });
      await client.connect(new StreamableHttpClientTransport({ url: http.url }), { era: 'session' });
      clients.push(client);
    }
    const [first, second] = clients;
    expect(await first.callTool('where_from')).toMatchObject({ content: [{ text: '127.0.0.1' }] });
    expect((await first.callTool('once')).isError).toBeUndefined();
    expect((await second.callTool('once')).isError).toBe(true);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await http.fastify.close();
    await server.close();
  }
});

it('by: principal counts each authenticated caller on its own', async () => {
  const tokens: Record<string, { token: string; subject: string; scopes: string[] }> = {
    alice: { token: 'alice', subject: 'alice', scopes: [] },
    bob: { token: 'bob', subject: 'bob', scopes: [] },
  };
  const server = await app();
  const http = await listenOn(server, {
    rateLimit: { points: 1, duration: 60, by: 'principal' },
    auth: {
      verify: (token: string) => tokens[token],
      metadata: { authorizationServers: ['https://auth.example.com'] },
    },
  });
  const post = async (token: string, id: number) => {
    const body = rpc(id, 'tools/call', { name: 'where_from' });
    const response = await fetch(http.url, {
      method: 'POST',
      headers: { ...headersFor(body), authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  try {
    expect(await post('alice', 1)).toBe(200);
    expect(await post('alice', 2)).toBe(429);
    expect(await post('bob', 3)).toBe(200);
  } finally {
    await http.fastify.close();
    await server.close();
  }
});
