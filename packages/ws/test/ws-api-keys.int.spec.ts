import type { IncomingMessage } from 'node:http';
import type { GantryApplication } from '@gantry/core';
import WebSocket from 'ws';
import { createWhoamiApp, WritersOnly } from '../../core/test/fixtures/whoami-app';
import { apiKeys, type WebSocketListener, websocket } from '../src';
import { INITIALIZE, RawClient, refusedUpgrade } from './support';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef00';

/** The whoami app on a standalone WebSocket listener that authenticates with `keys`. */
async function serveWhoami(keys: ReturnType<typeof apiKeys>) {
  const app = await createWhoamiApp();
  const listener = websocket({ port: 0, authenticate: keys });
  await app.listen(listener);
  return { app, listener };
}

describe('API keys on the WebSocket upgrade', () => {
  let app: GantryApplication;
  let listener: WebSocketListener;

  beforeAll(async () => {
    ({ app, listener } = await serveWhoami(apiKeys({ keys: { alice: ALICE, bob: BOB } })));
  });
  afterAll(() => app.close());

  async function call(client: RawClient, id: number, name: string) {
    client.sendText(
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
    );
    return client.response(id);
  }

  async function open(headers: Record<string, string>) {
    const client = await RawClient.open(listener.url, ['mcp'], { headers });
    client.sendText(INITIALIZE);
    await client.response(1);
    client.sendText('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    return client;
  }

  it('refuses an upgrade without a key with 401 and a realm challenge', async () => {
    const refused = await refusedUpgrade(listener.url, ['mcp']);
    expect(refused).toEqual({
      status: 401,
      body: 'Authentication required: send an API key as "Authorization: Bearer <key>" or "X-API-Key: <key>"\n',
    });
  });

  it('refuses a wrong key with 401, without echoing it', async () => {
    const wrong = 'wrong-key-0123456789abcdef';
    const refused = await refusedUpgrade(listener.url, ['mcp'], { headers: { 'X-API-Key': wrong } });
    expect(refused).toEqual({ status: 401, body: 'Invalid API key: not recognized\n' });
  });

  it('sends WWW-Authenticate: Bearer realm="mcp" with the 401', async () => {
    const challenge = await new Promise<string | undefined>((resolve, reject) => {
      const socket = new WebSocket(listener.url, ['mcp']);
      socket.once('open', () => reject(new Error('accepted')));
      socket.once('error', () => {});
      socket.once('unexpected-response', (_req, res: IncomingMessage) => {
        res.resume();
        resolve(res.headers['www-authenticate'] as string | undefined);
      });
    });
    expect(challenge).toBe('Bearer realm="mcp"');
  });

  it('accepts a key as Authorization: Bearer and shows its principal to tools and guards', async () => {
    WritersOnly.seen.length = 0;
    const client = await open({ Authorization: `Bearer ${ALICE}` });
    expect(await call(client, 2, 'whoami')).toMatchObject({
      result: { content: [{ type: 'text', text: '{"clientId":"apikey:alice","scopes":[]}' }] },
    });
    expect(await call(client, 3, 'write')).toMatchObject({
      error: { message: "Access denied: tool 'write' is not available to this caller" },
    });
    expect(WritersOnly.seen).toEqual(['apikey:alice']);
    client.close();
  });

  it('accepts a key as X-API-Key', async () => {
    const client = await open({ 'X-API-Key': BOB });
    expect(await call(client, 2, 'whoami')).toMatchObject({
      result: { content: [{ type: 'text', text: '{"clientId":"apikey:bob","scopes":[]}' }] },
    });
    client.close();
  });
});

describe('apiKeys({ verify }) on the WebSocket upgrade', () => {
  const CAROL = 'carol-key-from-the-database';
  let app: GantryApplication;
  let listener: WebSocketListener;

  beforeAll(async () => {
    ({ app, listener } = await serveWhoami(
      apiKeys({
        verify: async (key) => {
          if (key === 'failing-lookup-0123456789') throw new Error('the database is down');
          return key === CAROL ? { name: 'carol', scopes: ['notes:write'] } : undefined;
        },
      }),
    ));
  });
  afterAll(() => app.close());

  it('accepts the key verify knows and shows its identity to tools', async () => {
    const client = await RawClient.open(listener.url, ['mcp'], { headers: { 'X-API-Key': CAROL } });
    client.sendText(INITIALIZE);
    await client.response(1);
    client.sendText('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    client.sendText(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } }),
    );
    expect(await client.response(2)).toMatchObject({
      result: { content: [{ type: 'text', text: '{"clientId":"apikey:carol","scopes":["notes:write"]}' }] },
    });
    client.close();
  });

  it('refuses with 401 a key verify does not know, and with 500 when verify fails', async () => {
    expect(
      await refusedUpgrade(listener.url, ['mcp'], {
        headers: { Authorization: 'Bearer unknown-key-0123456789' },
      }),
    ).toEqual({ status: 401, body: 'Invalid API key: not recognized\n' });
    expect(
      await refusedUpgrade(listener.url, ['mcp'], { headers: { 'X-API-Key': 'failing-lookup-0123456789' } }),
    ).toEqual({ status: 500, body: 'API key verification failed\n' });
  });
});
