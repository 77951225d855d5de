import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, WebSocketClientTransport } from '@gantry/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NOTES_TOOLS } from './support/notes-processes';

const MAIN = resolve(__dirname, '../dist/main.js');

/** Starts the built app with `args`; resolves once stderr shows every pattern, with their first groups. */
async function start(args: string[], patterns: RegExp[]) {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-ws-'));
  const child: ChildProcess = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, NOTES_DIR: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const urls = await new Promise<string[]>((done, fail) => {
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`no URL printed: ${stderr}`)), 10_000);
    child.once('exit', (code) => fail(new Error(`notes exited with code ${code}: ${stderr}`)));
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = patterns.map((pattern) => pattern.exec(stderr)?.[1]);
      if (found.every((url) => url !== undefined)) {
        clearTimeout(timer);
        done(found as string[]);
      }
    });
  });
  return {
    urls,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('apps/notes over WebSocket', () => {
  it('--ws --port 0 serves ws://127.0.0.1:<port>/mcp to the Gantry client', async () => {
    const notes = await start(['--ws', '--port', '0'], [/serving MCP on (ws:\/\/127\.0\.0\.1:\d+\/mcp) /]);
    const client = new Client({ name: 'notes-ws', version: '1.0.0' });
    try {
      await client.connect(new WebSocketClientTransport({ url: notes.urls[0] }));
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(NOTES_TOOLS);
      const created = await client.callTool('create_note', {
        title: 'Over a socket',
        body: 'one frame each',
      });
      expect((created.content[0] as { text: string }).text).toMatch(
        /^Created note [0-9a-f]{8}: Over a socket$/,
      );
      const found = await client.callTool('search_notes', { query: 'frame' });
      expect(found.structuredContent).toMatchObject({ count: 1, notes: [{ title: 'Over a socket' }] });
    } finally {
      await client.close();
      await notes.stop();
    }
  });

  it('--http --ws serves Streamable HTTP and WebSocket on one port, on one store', async () => {
    const notes = await start(
      ['--http', '--ws', '--port', '0'],
      [
        /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp) /,
        /over WebSocket on (ws:\/\/127\.0\.0\.1:\d+\/mcp) /,
      ],
    );
    const [httpUrl, wsUrl] = notes.urls;
    expect(wsUrl).toBe(httpUrl.replace('http:', 'ws:'));
    const overWs = new Client({ name: 'notes-ws', version: '1.0.0' });
    const overHttp = new SdkClient({ name: 'notes-http', version: '1.0.0' });
    try {
      await overWs.connect(new WebSocketClientTransport({ url: wsUrl }));
      await overHttp.connect(new StreamableHTTPClientTransport(new URL(httpUrl)));
      await overWs.callTool('create_note', { title: 'Written over WebSocket', body: 'read over HTTP' });
      const found = await overHttp.callTool({ name: 'search_notes', arguments: { query: 'HTTP' } });
      expect(found.structuredContent).toMatchObject({
        count: 1,
        notes: [{ title: 'Written over WebSocket' }],
      });
    } finally {
      await overWs.close();
      await overHttp.close();
      await notes.stop();
    }
  });
});
