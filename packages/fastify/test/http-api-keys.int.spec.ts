import type { GantryApplication } from '@gantry/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createWhoamiApp, WritersOnly } from '../../core/test/fixtures/whoami-app';
import { apiKeys, type HttpListener, http } from '../src';
import { headersFor, rpc } from './stateless-support';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef00';
const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'keys', version: '1' } },
};

describe('API keys over Streamable HTTP (http() on a real port)', () => {
  let app: GantryApplication;
  let listener: HttpListener;
  let url: string;

  beforeAll(async () => {
    app = await createWhoamiApp();
    listener = http({
      port: 0,
      logger: false,
      onListening: () => {},
      auth: apiKeys({
        keys: [
          { key: ALICE, name: 'alice', scopes: ['notes:write'] },
          { key: BOB, name: 'bob' },
        ],
      }),
    });
    await app.listen(listener);
    url = listener.url as string;
  });
  afterAll(() => app.close());

  const post = (body: object, headers: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
    });

  /** Opens a session with `key` (as X-API-Key) and returns a caller bound to it. */
  async function session(key: string) {
    const init = await post(INITIALIZE, { 'x-api-key': key });
    expect(init.status).toBe(200);
    const id = init.headers.get('mcp-session-id') as string;
    const call = (body: object, other = key) =>
      post(body, { 'x-api-key': other, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
    expect((await call({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    return { id, call };
  }

  it('refuses a request without a key with 401, a realm challenge and a JSON-RPC error naming the headers', async () => {
    const response = await post(INITIALIZE, {});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'Authentication required: send an API key as "Authorization: Bearer <key>" or "X-API-Key: <key>"',
      },
    });
  });

  it('refuses a wrong key with 401 "Invalid API key", never echoing it', async () => {
    const wrong = 'wrong-key-0123456789abcdef';
    const response = await post(INITIALIZE, { authorization: `Bearer ${wrong}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    const text = await response.text();
    expect(JSON.parse(text).error.message).toBe('Invalid API key: not recognized');
    expect(text).not.toContain(wrong);
  });

  it('serves no OAuth protected-resource metadata', async () => {
    const base = new URL(url).origin;
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      expect((await fetch(`${base}${path}`)).status).toBe(404);
    }
  });

  it('accepts a key as Authorization: Bearer and as X-API-Key', async () => {
    const bearer = await post(INITIALIZE, { authorization: `Bearer ${ALICE}` });
    expect(bearer.status).toBe(200);
    expect(((await bearer.json()) as any).result.serverInfo.name).toBe('whoami');
    const header = await post(INITIALIZE, { 'x-api-key': BOB });
    expect(header.status).toBe(200);
  });

  it("shows the key's principal to a tool as ctx.auth", async () => {
    const { call } = await session(ALICE);
    const response = await call({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    });
    expect(((await response.json()) as any).result.content).toEqual([
      { type: 'text', text: '{"clientId":"apikey:alice","scopes":["notes:write"]}' },
    ]);
  });

  it('lets guards see the principal and its scopes', async () => {
    WritersOnly.seen.length = 0;
    const alice = await session(ALICE);
    const allowed = await alice.call({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'write', arguments: {} },
    });
    expect(((await allowed.json()) as any).result.content).toEqual([{ type: 'text', text: 'written' }]);
    const bob = await session(BOB);
    const refused = await bob.call({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'write', arguments: {} },
    });
    expect(((await refused.json()) as any).error.message).toBe(
      "Access denied: tool 'write' is not available to this caller",
    );
    expect(WritersOnly.seen).toEqual(['apikey:alice', 'apikey:bob']);
  });

  it('refuses a session to another key as if it did not exist (404), and keeps it for its own', async () => {
    const { call } = await session(ALICE);
    const stolen = await call({ jsonrpc: '2.0', id: 3, method: 'ping' }, BOB);
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as any).error.message).toMatch(/^Session not found/);
    const own = await call({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await own.json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('authenticates stateless-era (2026-07-28) requests the same way', async () => {
    const body = rpc(7, 'tools/call', { name: 'whoami', arguments: {} });
    const refused = await fetch(url, {
      method: 'POST',
      headers: headersFor(body),
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    const accepted = await fetch(url, {
      method: 'POST',
      headers: headersFor(body, { authorization: `Bearer ${BOB}` }),
      body: JSON.stringify(body),
    });
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as any).result.content).toEqual([
      { type: 'text', text: '{"clientId":"apikey:bob","scopes":[]}' },
    ]);
  });

  it('authenticates the legacy HTTP+SSE endpoints (2024-11-05)', async () => {
    const base = new URL(url).origin;
    const refused = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    const controller = new AbortController();
    const opened = await fetch(`${base}/sse`, {
      headers: { accept: 'text/event-stream', 'x-api-key': ALICE },
      signal: controller.signal,
    });
    expect(opened.status).toBe(200);
    const reader = (opened.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text)?.[1] as string;
    expect(endpoint).toMatch(/^\/messages\?sessionId=/);
    // Another key cannot post into alice's legacy session.
    const stolen = await fetch(`${base}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': BOB },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(stolen.status).toBe(404);
    controller.abort();
  });

  it('serves the official SDK client that sends the key in requestInit.headers', async () => {
    const client = new Client({ name: 'sdk-keys', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'X-API-Key': BOB } } }),
    );
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: '{"clientId":"apikey:bob","scopes":[]}' }]);
    await client.close();

    const anonymous = new Client({ name: 'sdk-anonymous', version: '1.0.0' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(
      /Authentication required: send an API key/,
    );
  });
});

describe('apiKeys as gantryMcp auth: checked at register time', () => {
  it('refuses an empty key list before anything listens', async () => {
    const app = await createWhoamiApp();
    expect(() => http({ auth: apiKeys({ keys: process.env.GANTRY_TEST_UNSET_KEYS }) })).toThrow(
      "Invalid API key options: 'keys' is undefined and there is no 'verify'",
    );
    await app.close();
  });
});

describe('apiKeys({ verify }) over Streamable HTTP: keys looked up elsewhere', () => {
  const CAROL = 'carol-key-from-the-database';
  let app: GantryApplication;
  let url: string;
  const asked: string[] = [];

  beforeAll(async () => {
    app = await createWhoamiApp();
    const listener = http({
      port: 0,
      logger: false,
      onListening: () => {},
      auth: apiKeys({
        // As a lookup in a database would: asynchronous, and told the request.
        verify: async (key, request) => {
          asked.push(String(request.headers['x-api-key'] ?? request.headers.authorization));
          if (key === 'failing-lookup-0123456789') throw new Error('the database is down');
          return key === CAROL ? { name: 'carol', scopes: ['notes:write'] } : undefined;
        },
      }),
    });
    await app.listen(listener);
    url = listener.url as string;
  });
  afterAll(() => app.close());

  const initialize = (headers: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify(INITIALIZE),
    });

  it('accepts the key verify knows, and shows its identity to tools as ctx.auth', async () => {
    const client = new Client({ name: 'verified', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-api-key': CAROL } } }),
    );
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: '{"clientId":"apikey:carol","scopes":["notes:write"]}' },
    ]);
    expect(asked).toContain(CAROL);
    await client.close();
  });

  it('refuses with 401 a key verify does not know', async () => {
    const refused = await initialize({ authorization: 'Bearer unknown-key-0123456789' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
  });

  it('answers 500, not 401, when verify itself fails', async () => {
    const failed = await initialize({ 'x-api-key': 'failing-lookup-0123456789' });
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('the database is down');
  });
});
