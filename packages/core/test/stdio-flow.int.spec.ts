// The stdio transport's flow control in a real child process (built packages: `npx tsc -b`):
// output backpressure (a client that stops reading stdout holds the handlers back, and past
// `maxQueuedBytes` the connection is closed), and the end of input (in-flight requests are
// answered before the process exits, within `endGraceMs`).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'stdio-flow-server.ts');

const INITIALIZE =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flow-test","version":"1.0.0"}}}\n';
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
const LOG_PREFIX = Buffer.from('{"jsonrpc":"2.0","method":"notifications/message"');

const call = (id: number, name: string, args: object = {}) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })}\n`;

interface Server {
  child: ChildProcessWithoutNullStreams;
  /** Non-log lines the server wrote, parsed, in order. */
  readonly answers: any[];
  /** Log notifications seen on stdout. */
  logs: number;
  stderr(): string;
  /** Resolves once `check` holds, re-checked on every output of the child; fails after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Asks the child for its state (SIGUSR2) and resolves with what it reports. */
  probe(): Promise<{ logged: number; rss: number }>;
  exited: Promise<number | null>;
}

const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill();
});

function start(options: object = {}): Server {
  const child = spawn(process.execPath, ['-r', REGISTER, SERVER], {
    stdio: 'pipe',
    env: { ...process.env, GANTRY_STDIO_OPTIONS: JSON.stringify(options) },
  });
  children.push(child);
  let err = '';
  let partial: Buffer[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const server: Server = {
    child,
    answers: [],
    logs: 0,
    stderr: () => err,
    until(check, what, timeoutMs = 20_000) {
      return new Promise((resolveWait, reject) => {
        const fail = (reason: string) => {
          waiters.delete(test);
          clearTimeout(timer);
          reject(new Error(`${reason} ${what}; stderr:\n${err}`));
        };
        const timer = setTimeout(() => fail('timed out waiting for'), timeoutMs);
        const test = () => {
          if (check()) {
            waiters.delete(test);
            clearTimeout(timer);
            resolveWait();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            fail('the server exited before');
          }
        };
        waiters.add(test);
        test();
      });
    },
    async probe() {
      const from = err.length;
      const pattern = /state logged=(\d+) rss=(\d+)\n/;
      child.kill('SIGUSR2');
      await server.until(() => pattern.test(err.slice(from)), 'a state report');
      const [, logged, rss] = pattern.exec(err.slice(from)) as RegExpExecArray;
      return { logged: Number(logged), rss: Number(rss) };
    },
    exited: new Promise((resolveExit) => child.on('exit', (code) => resolveExit(code))),
  };
  child.on('exit', () => setImmediate(wake));
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    wake();
  });
  // Log lines are counted, not parsed: a flood test moves tens of megabytes.
  child.stdout.on('data', (chunk: Buffer) => {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      const line =
        partial.length > 0
          ? Buffer.concat([...partial, chunk.subarray(start, newline)])
          : chunk.subarray(start, newline);
      partial = [];
      if (line.subarray(0, LOG_PREFIX.length).equals(LOG_PREFIX)) server.logs++;
      else server.answers.push(JSON.parse(line.toString('utf8')));
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
    wake();
  });
  return server;
}

async function handshake(server: Server): Promise<void> {
  server.child.stdin.write(INITIALIZE);
  await server.until(() => server.answers.some((a) => a.id === 0), 'the initialize response');
  server.child.stdin.write(INITIALIZED);
}

const MiB = 1024 * 1024;
const answerOf = (server: Server, id: number) => server.answers.find((a) => a.id === id);

describe('stdio output backpressure: a client that stops reading stdout', () => {
  it('holds a handler that awaits ctx.log, keeps the server small, and loses nothing once read', async () => {
    const server = start();
    await handshake(server);
    const before = await server.probe();
    const count = 32 * 1024;
    const size = 2048; // 64 MiB of log messages in all, four times the default maxQueuedBytes
    server.child.stdout.pause();
    server.child.stdin.write(call(1, 'flood', { count, size }));
    // Each probe is a round trip through the child's event loop; a handler that is not held
    // runs to the end within the first few (every ctx.log settles at once).
    let state = await server.probe();
    for (let i = 0; i < 10_000 && state.logged === 0; i++) state = await server.probe();
    expect(state.logged).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) {
      state = await server.probe();
      expect(state.logged * size).toBeLessThan(16 * MiB);
      expect(state.rss - before.rss).toBeLessThan(32 * MiB);
    }
    expect(answerOf(server, 1)).toBeUndefined();
    server.child.stdout.resume();
    await server.until(() => answerOf(server, 1) !== undefined, 'the flood to finish');
    expect(server.logs).toBe(count);
    expect(answerOf(server, 1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: `logged ${count}` }] },
    });
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it('closes the connection past maxQueuedBytes, says why on stderr, and exits once the pipe is read', async () => {
    const server = start({ maxQueuedBytes: MiB });
    await handshake(server);
    const before = await server.probe();
    server.child.stdout.pause();
    server.child.stdin.write(call(1, 'spray', { count: 32 * 1024, size: 2048 }));
    await server.until(() => server.stderr().includes('application closed'), 'the application to close');
    expect(server.stderr()).toContain(
      'stdio: closing the connection: the client is not reading stdout (more than 1048576 bytes queued; see the maxQueuedBytes option)',
    );
    const after = await server.probe();
    expect(after.logged).toBeLessThan(32 * 1024);
    expect(after.rss - before.rss).toBeLessThan(32 * MiB);
    // What the pipe had accepted is still delivered; then nothing keeps the process.
    server.child.stdout.resume();
    expect(await server.exited).toBe(0);
    expect(answerOf(server, 1)).toBeUndefined();
  });
});

describe('stdio end of input: stdin closes with requests in flight', () => {
  it('answers every request of a conversation written at once, slow tool included, then exits', async () => {
    const server = start();
    server.child.stdin.end(
      INITIALIZE +
        INITIALIZED +
        call(1, 'slow', { ms: 300 }) +
        call(2, 'slow', { ms: 0 }) +
        '{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
    );
    expect(await server.exited).toBe(0);
    expect(server.answers.map((a) => a.id).sort()).toEqual([0, 1, 2, 3]);
    expect(answerOf(server, 1).result).toEqual({ content: [{ type: 'text', text: 'waited 300 ms' }] });
  });

  it('cancels what is still running after endGraceMs, says so on stderr, and exits', async () => {
    const server = start({ endGraceMs: 300 });
    server.child.stdin.end(INITIALIZE + INITIALIZED + call(1, 'forever') + call(2, 'slow', { ms: 0 }));
    expect(await server.exited).toBe(0);
    expect(server.answers.map((a) => a.id).sort()).toEqual([0, 2]);
    expect(server.stderr()).toContain(
      'stdio: stdin ended; 1 request still running after 300 ms (endGraceMs) is cancelled',
    );
  });
});
