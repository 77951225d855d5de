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

describe('apps/notes behind a proxy (--trust-proxy)', () => {
  /** Starts notes with `flags`, sends one POST as a proxy would, and returns the request's log line. */
  async function loggedAddress(flags: string[]): Promise<unknown> {
    const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-proxy-'));
    const child = spawn(process.execPath, [MAIN, '--http', '--port', '0', ...flags], {
      env: { ...process.env, NOTES_DIR: dir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const waiters: (() => void)[] = [];
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      for (const wake of waiters.splice(0)) wake();
    });
    child.once('exit', () => {
      for (const wake of waiters.splice(0)) wake();
    });
    const until = async <T>(find: () => T | undefined, what: string): Promise<T> => {
      for (;;) {
        const found = find();
        if (found !== undefined) return found;
        if (child.exitCode !== null) throw new Error(`notes exited before ${what}: ${stderr}`);
        await new Promise<void>((wake) => waiters.push(wake));
      }
    };
    try {
      const url = await until(
        () => /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1],
        'its URL',
      );
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-forwarded-for': '203.0.113.7',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(response.status).toBeLessThan(500);
      await response.arrayBuffer();
      const line = await until(
        () =>
          stderr
            .split('\n')
            .filter((text) => text.startsWith('{'))
            .map((text) => JSON.parse(text) as { msg?: string; req?: { remoteAddress?: string } })
            .find((entry) => entry.msg === 'incoming request'),
        'the request line',
      );
      return line.req?.remoteAddress;
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('logs the client X-Forwarded-For names when the proxy is trusted', async () => {
    expect(await loggedAddress(['--trust-proxy', 'loopback'])).toBe('203.0.113.7');
  });

  it('logs the socket address, ignoring the header, without the flag', async () => {
    expect(await loggedAddress([])).toBe('127.0.0.1');
  });
});
