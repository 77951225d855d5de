import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stdioBanner } from '../src/stdio-banner';

const MAIN = resolve(__dirname, '../dist/main.js');

describe('the stdio banner', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'notes-banner-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is one line when an MCP client starts the server (stdin is a pipe, not a terminal)', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, NOTES_DIR: dir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    // The server writes its line once it serves; then the client hangs up.
    await new Promise<void>((done) =>
      child.stderr.on('data', (text: string) => {
        stderr += text;
        if (stderr.includes('\n')) done();
      }),
    );
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toBe(`gantry-notes is serving MCP on stdio (notes in ${join(dir, 'notes.json')}).\n`);
  });

  it('tells a person at a terminal how to connect a client', () => {
    expect(stdioBanner({ entry: '/app/dist/main.js', store: '/data/notes.json', interactive: true })).toBe(
      [
        'gantry-notes is serving MCP on stdio (notes in /data/notes.json).',
        'It is meant to be started by an MCP client. To connect one:',
        '  Claude Code:     claude mcp add notes -- node /app/dist/main.js',
        '  MCP Inspector:   npx @modelcontextprotocol/inspector node /app/dist/main.js',
        '  .mcp.json:       { "mcpServers": { "notes": { "command": "node", "args": ["/app/dist/main.js"] } } }',
        'Press Ctrl+D (end of input) to stop.',
        '',
      ].join('\n'),
    );
  });
});
