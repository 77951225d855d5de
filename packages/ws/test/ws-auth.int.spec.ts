import type { AuthInfo } from '@gantry/protocol';
import { RawClient, refusedUpgrade, serve } from './support';

function bearer(expiresAt?: number) {
  return (request: { headers: { authorization?: string } }): AuthInfo => {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) throw new Error('Missing bearer token');
    const token = header.slice(7);
    if (token === 'forbidden') throw Object.assign(new Error('Insufficient scope'), { status: 403 });
    if (token !== 'good') throw new Error('Invalid token');
    return { token, scopes: ['mcp'], subject: 'alice', expiresAt };
  };
}

describe('MCP over WebSocket: authenticating the upgrade', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  afterEach(async () => {
    await server?.app.close();
  });

  it('refuses missing or bad tokens with 401 and scope failures with 403', async () => {
    server = await serve({ authenticate: bearer() });
    const missing = await refusedUpgrade(server.url, ['mcp']);
    expect(missing).toEqual({ status: 401, body: 'Missing bearer token\n' });
    expect(
      (await refusedUpgrade(server.url, ['mcp'], { headers: { Authorization: 'Bearer bad' } })).status,
    ).toBe(401);
    expect(
      (await refusedUpgrade(server.url, ['mcp'], { headers: { Authorization: 'Bearer forbidden' } })).status,
    ).toBe(403);
  });

  it('hands the AuthInfo to the session', async () => {
    server = await serve({ authenticate: bearer() });
    const client = await RawClient.open(server.url, ['mcp'], { headers: { Authorization: 'Bearer good' } });
    client.sendText(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}',
    );
    await client.response(1);
    const [session] = [...server.app.server.sessions];
    expect(session.auth).toMatchObject({ token: 'good', subject: 'alice' });
    client.close();
  });

  it('closes the socket with 1008 when the token expires', async () => {
    server = await serve({ authenticate: bearer(Date.now() / 1000 + 0.1) });
    const client = await RawClient.open(server.url, ['mcp'], { headers: { Authorization: 'Bearer good' } });
    expect(await client.closed).toEqual({ code: 1008, reason: 'Access token expired' });
  });

  it('still applies the Origin check before authenticating', async () => {
    server = await serve({ authenticate: bearer() });
    const refused = await refusedUpgrade(server.url, ['mcp'], {
      origin: 'https://evil.example',
      headers: { Authorization: 'Bearer good' },
    });
    expect(refused.status).toBe(403);
  });
});
