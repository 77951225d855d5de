// Logging under stdio (child processes, TypeScript through scripts/swc-register.js): whatever the
// logger, stdout carries JSON-RPC lines only and log lines go to stderr.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'logging-stdio-main.ts');

const INPUT = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"logs","version":"1"}}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","arguments":{}}}',
];

/** Runs the server with `logger`, sends the input, and returns its output once it answered id 2 and exited. */
function run(logger: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['-r', REGISTER, SERVER], {
    env: { ...process.env, GANTRY_TEST_LOGGER: logger, LOG_LEVEL: 'debug' },
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    // Answered: end stdin, which closes the server.
    if (stdout.includes('"id":2')) child.stdin.end();
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.write(`${INPUT.join('\n')}\n`);
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

function expectOnlyJsonRpc(stdout: string): void {
  const lines = stdout.split('\n').filter((line) => line !== '');
  expect(lines.map((line) => JSON.parse(line).jsonrpc)).toEqual(['2.0', '2.0']);
  expect(JSON.parse(lines[1])).toEqual({
    jsonrpc: '2.0',
    id: 2,
    result: { content: [{ type: 'text', text: 'done' }] },
  });
}

describe('logging on stdio keeps stdout for the protocol', () => {
  it('with the default logger: stderr lines at LOG_LEVEL, stdout JSON-RPC only', async () => {
    const { code, stdout, stderr } = await run('default');
    expect(code).toBe(0);
    expectOnlyJsonRpc(stdout);
    expect(stderr).toContain('[gantry] debug: debug from a tool {"n":1}');
    expect(stderr).toContain('[gantry] info: listening on stdio');
    expect(stderr).toContain('[gantry] warn: warn from a tool Error: a warning error');
    expect(stderr).toContain('console.log from a tool');
  });

  it('with pinoLogger(pino) writing to stderr: JSON log lines there, stdout JSON-RPC only', async () => {
    const { code, stdout, stderr } = await run('pino-stderr');
    expect(code).toBe(0);
    expectOnlyJsonRpc(stdout);
    const logs = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(logs.find((l) => l.msg === 'debug from a tool')).toMatchObject({ level: 20, details: [{ n: 1 }] });
    expect(logs.find((l) => l.msg === 'warn from a tool')).toMatchObject({
      level: 40,
      err: { type: 'Error', message: 'a warning error' },
    });
    expect(logs.find((l) => l.msg === 'listening on stdio')).toMatchObject({ level: 30 });
  });

  it('refuses a pino logger that writes to stdout, before anything is written there', async () => {
    const { code, stdout, stderr } = await run('pino-stdout');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'failed: stdio(): the application logs with a pino logger that writes to stdout',
    );
  });
});
