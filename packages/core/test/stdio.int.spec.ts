import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Changes } from '@gantry/testing';

const SERVER = join(__dirname, 'fixtures', 'noisy-server.js');

interface Started {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `check` holds, re-checked whenever the child writes. */
  until(check: () => boolean, what: string): Promise<void>;
}

function start(): Started {
  const child = spawn(process.execPath, [SERVER], { stdio: 'pipe' });
  const changes = new Changes();
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    changes.changed();
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
    changes.changed();
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    until: (check, what) => changes.until(check, { what, timeoutMs: 10_000 }),
  };
}

describe('the stdio transport in a real process', () => {
  it('keeps stdout for protocol messages: console.log and stray writes go to stderr', async () => {
    const { child, stdout, stderr, until } = start();
    child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n',
    );
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout"}}\n');
    await until(() => stdout().split('\n').length >= 3, 'two responses');
    const lines = stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]).result.serverInfo).toEqual({ name: 'noisy', version: '1.0.0' });
    expect(JSON.parse(lines[1])).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'quiet result' }] },
    });
    await until(() => stderr().includes('console.info from a tool'), 'the redirected writes');
    expect(stderr()).toContain('listening (this line goes to stderr)');
    expect(stderr()).toContain('console.log from a tool');
    expect(stderr()).toContain('a raw stdout write from a tool');
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
  });

  it('exits when stdin ends, with a request still running', async () => {
    const { child } = start();
    child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n',
    );
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
  });
});
