// NOTES_API_KEYS on the built app (`npx tsc -b` first): HTTP and WebSocket on one port need a key.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, WebSocketClientTransport } from '@gantry/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket from 'ws';

const MAIN = resolve(__dirname, '../dist/main.js');
const KEY_A = 'notes-key-a-0123456789abcdef';
const KEY_B = 'notes-key-b-0123456789abcdef';

/** The HTTP status of a refused WebSocket upgrade (rejects when the upgrade is accepted). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((done, fail) => {
    const socket = new WebSocket(url, ['mcp'], { headers });
    socket.once('open', () => {
      socket.terminate();
      fail(new Error('the upgrade was accepted'));
    });
    socket.once('error', () => {});
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
  });
}

describe('apps/notes with NOTES_API_KEYS (--http --ws --port 0)', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let stderr = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-keys-'));
    child = spawn(process.execPath, [MAIN, '--http', '--ws', '--port', '0'], {
      env: { ...process.env, NOTES_DIR: dir, NOTES_API_KEYS: `${KEY_A}, ${KEY_B}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL printed: ${stderr}`)), 10_000);
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
        if (found) {
          clearTimeout(timer);
          done(found);
        }
      });
    });
  });

  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
  });

  it('says that clients need a key', () => {
    expect(stderr).toContain('Clients need one of the NOTES_API_KEYS');
  });

  it('refuses HTTP without a key (401, Bearer realm) and serves the SDK client with one', async () => {
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');

    const client = new SdkClient({ name: 'notes-keys', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${KEY_B}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('create_note');
    await client.close();
  });

  it('refuses a WebSocket upgrade without a key or with a wrong one (401) and accepts one with a key', async () => {
    const wsUrl = url.replace(/^http:/, 'ws:');
    expect(await upgradeStatus(wsUrl)).toBe(401);
    expect(await upgradeStatus(wsUrl, { 'X-API-Key': 'wrong-key-0123456789abcdef' })).toBe(401);
    const client = new Client({ name: 'notes-keys-ws', version: '1.0.0' });
    await client.connect(new WebSocketClientTransport({ url: wsUrl, headers: { 'X-API-Key': KEY_A } }));
    expect((await client.listTools()).map((tool) => tool.name)).toContain('search_notes');
    await client.close();
  });
});

describe('apps/notes with a bad NOTES_API_KEYS', () => {
  it.each([
    [
      'a short key',
      'short',
      'NOTES_API_KEYS: Invalid API key options: keys (comma-separated) entry 1 is 5 characters long',
    ],
    ['an empty value', '', "NOTES_API_KEYS: Invalid API key options: 'keys' lists no key"],
  ])('refuses to start with %s', async (_name, keys, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-keys-'));
    const run = spawn(process.execPath, [MAIN, '--http', '--port', '0'], {
      env: { ...process.env, NOTES_DIR: dir, NOTES_API_KEYS: keys },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    run.stderr?.on('data', (chunk) => (err += chunk));
    const code = await new Promise((done) => run.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(err).toContain(`gantry-notes failed to start: ${message}`);
    expect(err).not.toContain('serving MCP');
  });
});
