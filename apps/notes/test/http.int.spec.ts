import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NOTES_TOOLS } from './support/notes-processes';

const MAIN = resolve(__dirname, '../dist/main.js');

describe('apps/notes over HTTP (--http --port 0)', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-http-'));
    child = spawn(process.execPath, [MAIN, '--http', '--port', '0'], {
      env: { ...process.env, NOTES_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((done, fail) => {
      let stderr = '';
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
    await new Promise((done) => child.on('exit', done));
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints how to connect, and serves the official SDK client', async () => {
    const client = new Client({ name: 'notes-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(NOTES_TOOLS);
    const created = await client.callTool({
      name: 'create_note',
      arguments: { title: 'Over HTTP', body: 'it works' },
    });
    expect((created.content as { text: string }[])[0].text).toMatch(/^Created note [0-9a-f]{8}: Over HTTP$/);
    const found = await client.callTool({ name: 'search_notes', arguments: { query: 'works' } });
    expect(found.structuredContent).toMatchObject({ count: 1, notes: [{ title: 'Over HTTP' }] });
    await client.close();
  });
});
