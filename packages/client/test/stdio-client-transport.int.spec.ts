import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client, DEFAULT_STDIO_SHUTDOWN_GRACE_MS, StdioClientTransport } from '@gantry/client';
import {
  ConnectionClosedError,
  GantryError,
  InvalidRequestError,
  NotConnectedError,
  ParseError,
  RequestTimeoutError,
  type TransportSink,
} from '@gantry/protocol';

const SDK_SERVER = join(__dirname, 'fixtures', 'sdk-server.cjs');
const STUBBORN_SERVER = join(__dirname, 'fixtures', 'stubborn-server.cjs');
const NODE = process.execPath;
/**
 * The shutdown stages of the tests below, shorter than the 2 s default: long enough for a
 * loaded machine to deliver the end of stdin (or SIGTERM) to the child before the next stage.
 */
const TEST_SHUTDOWN_GRACE_MS = 400;

/** A sink that records what the transport hands over, for tests that drive the transport alone. */
function recordingSink() {
  const messages: unknown[] = [];
  const closings: (Error | undefined)[] = [];
  let onClosed!: (error: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((resolve) => {
    onClosed = resolve;
  });
  const sink: TransportSink = {
    message: (value) => messages.push(value),
    invalid: (error) => messages.push(error),
    closed: (error) => {
      closings.push(error);
      onClosed(error);
    },
  };
  return { sink, messages, closings, closed };
}

/** Collects the piped stderr until it contains `text`; returns everything read so far. */
function stderrUntil(transport: StdioClientTransport, text: string): Promise<string> {
  const stderr = transport.stderr!;
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(text)) {
        stderr.off('data', onData);
        resolve(output);
      }
    };
    stderr.on('data', onData);
    stderr.once('end', () => reject(new Error(`stderr ended without "${text}"; it was: ${output}`)));
  });
}

describe('StdioClientTransport: starting', () => {
  it('rejects with an error naming a command that does not exist', async () => {
    const transport = new StdioClientTransport({ command: 'gantry-no-such-command-4711' });
    const error = await transport.start(recordingSink().sink).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      'Cannot start the MCP server: command "gantry-no-such-command-4711" was not found; check its spelling and PATH, or give an absolute path (spawn gantry-no-such-command-4711 ENOENT)',
    );
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
    expect(transport.pid).toBeUndefined();
    await expect(transport.close()).resolves.toBeUndefined();
  });

  it('names the working directory when it may be the missing part', async () => {
    const transport = new StdioClientTransport({ command: NODE, cwd: '/gantry-no-such-dir-4711' });
    await expect(transport.start(recordingSink().sink)).rejects.toThrow(
      `command "${NODE}" was not found, or the working directory "/gantry-no-such-dir-4711" does not exist`,
    );
  });

  it('makes Client.connect reject with the same error and leaves the client unconnected', async () => {
    const client = new Client({ name: 'c', version: '1' });
    await expect(
      client.connect(new StdioClientTransport({ command: 'gantry-no-such-command-4711' })),
    ).rejects.toThrow('command "gantry-no-such-command-4711" was not found');
    expect(client.isConnected).toBe(false);
    await expect(client.ping()).rejects.toThrow(NotConnectedError);
  });

  it('refuses to start twice', async () => {
    const transport = new StdioClientTransport({ command: NODE, args: ['-e', ''] });
    await transport.start(recordingSink().sink);
    const error = await Promise.resolve(transport.start(recordingSink().sink)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({ code: 'GANTRY_ERR_ALREADY_STARTED' });
    await transport.close();
  });

  it('refuses to start once closed', async () => {
    const transport = new StdioClientTransport({ command: NODE, args: ['-e', ''] });
    await transport.close();
    await expect(transport.start(recordingSink().sink)).rejects.toThrow(
      new NotConnectedError('StdioClientTransport was closed before it started; create a new one'),
    );
    expect(transport.pid).toBeUndefined();
  });

  it('runs the command with the given arguments, environment and working directory', async () => {
    const script =
      'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/env", params: { argv: process.argv.slice(1), marker: process.env.GANTRY_MARKER ?? null, home: process.env.HOME ?? null, cwd: process.cwd() } }) + "\\n")';
    const transport = new StdioClientTransport({
      command: NODE,
      args: ['-e', script, '--', 'two words', '$HOME'],
      env: { GANTRY_MARKER: 'set by the test' },
      cwd: __dirname,
      stderr: 'ignore',
    });
    const recorded = recordingSink();
    await transport.start(recorded.sink);
    await recorded.closed;
    // No shell: arguments arrive verbatim; `env` replaces the environment, as with spawn().
    expect(recorded.messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/env',
        params: { argv: ['two words', '$HOME'], marker: 'set by the test', home: null, cwd: __dirname },
      },
    ]);
  });

  it('rejects sends after close with NotConnectedError', async () => {
    const transport = new StdioClientTransport({ command: NODE, args: [SDK_SERVER], stderr: 'ignore' });
    await transport.start(recordingSink().sink);
    await transport.close();
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(
      NotConnectedError,
    );
  });
});

describe('StdioClientTransport: a child that exits on its own', () => {
  it('fails the handshake with ConnectionClosedError naming the exit code and quoting stderr', async () => {
    const transport = new StdioClientTransport({
      command: NODE,
      args: ['-e', 'process.stderr.write("boom: no config file\\n"); process.exit(3)'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'c', version: '1' });
    const error = await client.connect(transport).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toBe(
      `Connection closed: MCP server "${NODE}" exited with code 3; last stderr output:\nboom: no config file`,
    );
    expect(transport.exitCode).toBe(3);
  });

  it('rejects the pending call with ConnectionClosedError when the server dies mid-call', async () => {
    const transport = new StdioClientTransport({ command: NODE, args: [SDK_SERVER], stderr: 'pipe' });
    const closed: (Error | undefined)[] = [];
    const client = new Client({ name: 'c', version: '1' }, { onClose: (error) => closed.push(error) });
    await client.connect(transport);

    const error = await client.callTool('crash', { code: 7 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toBe(
      `Connection closed: MCP server "${NODE}" exited with code 7; last stderr output:\ncrash: exiting with code 7`,
    );
    expect(transport.exitCode).toBe(7);
    expect(closed).toHaveLength(1);
    expect(closed[0]).toBeInstanceOf(ConnectionClosedError);
    expect(client.isConnected).toBe(false);
    await expect(client.ping()).rejects.toThrow(NotConnectedError);
    await expect(client.close()).resolves.toBeUndefined();
  });

  it('tells the sink once, naming the signal that killed the child', async () => {
    const transport = new StdioClientTransport({
      command: NODE,
      args: ['-e', 'process.kill(process.pid, "SIGKILL")'],
      stderr: 'ignore',
    });
    const recorded = recordingSink();
    await transport.start(recorded.sink);
    const error = await recorded.closed;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error!.message).toBe(`MCP server "${NODE}" was killed by signal SIGKILL`);
    expect(transport.signalCode).toBe('SIGKILL');
    await transport.close();
    expect(recorded.closings).toHaveLength(1);
  });

  it('delivers a message written just before the child exits', async () => {
    const script =
      'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/bye" }) + "\\n")';
    const transport = new StdioClientTransport({ command: NODE, args: ['-e', script], stderr: 'ignore' });
    const recorded = recordingSink();
    await transport.start(recorded.sink);
    const error = await recorded.closed;
    expect(recorded.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/bye' }]);
    expect(error!.message).toBe(`MCP server "${NODE}" exited with code 0`);
  });
});

describe('StdioClientTransport: what arrives on stdout', () => {
  it('drops a line that is not JSON, reports it to onInvalidLine, and keeps the session', async () => {
    // Decision (documented on StdioClientTransport): such a line is not handed to the Peer,
    // which would answer the server with an uncorrelatable −32700 error.
    const invalid: Error[] = [];
    const transport = new StdioClientTransport({
      command: NODE,
      args: [SDK_SERVER],
      stderr: 'ignore',
      onInvalidLine: (error) => invalid.push(error),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(transport);
    try {
      await expect(client.callTool('noise')).resolves.toEqual({
        content: [{ type: 'text', text: 'made some noise' }],
      });
      expect(invalid).toHaveLength(1);
      expect(invalid[0]).toBeInstanceOf(ParseError);
      expect(invalid[0].message).toMatch(/^Parse error: Unexpected token/);
      await expect(client.callTool('add', { a: 1, b: 2 })).resolves.toEqual({
        content: [{ type: 'text', text: '3' }],
      });
    } finally {
      await client.close();
    }
  });

  it('round-trips a 1 MB text, and several at once in order behind the full pipe', async () => {
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StdioClientTransport({ command: NODE, args: [SDK_SERVER], stderr: 'ignore' }));
    try {
      const big = 'a'.repeat(1024 * 1024);
      await expect(client.callTool('echo', { text: big })).resolves.toEqual({
        content: [{ type: 'text', text: big }],
      });

      // Each 1 MB line overflows stdin's buffer, so the later sends wait for 'drain'.
      const texts = ['x', 'y', 'z'].map((letter) => `${letter}${'é'.repeat(512 * 1024)}`);
      const results = await Promise.all([
        ...texts.map((text) => client.callTool('echo', { text })),
        client.callTool('add', { a: 20, b: 22 }),
      ]);
      expect(results).toEqual([
        ...texts.map((text) => ({ content: [{ type: 'text', text }] })),
        { content: [{ type: 'text', text: '42' }] },
      ]);
    } finally {
      await client.close();
    }
  });

  it('reports a line over maxLineBytes, skips it, and reads the lines after it', async () => {
    const invalid: Error[] = [];
    const transport = new StdioClientTransport({
      command: NODE,
      args: [SDK_SERVER],
      stderr: 'ignore',
      maxLineBytes: 64 * 1024,
      onInvalidLine: (error) => invalid.push(error),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(transport);
    try {
      // The response is the oversized line, so nothing answers the call: it times out.
      const error = await client
        .callTool('echo', { text: 'b'.repeat(100 * 1024) }, { timeoutMs: 1_000 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(invalid).toHaveLength(1);
      expect(invalid[0]).toBeInstanceOf(InvalidRequestError);
      expect(invalid[0].message).toBe('Message too large: a line may hold at most 65536 bytes');
      await expect(client.ping()).resolves.toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('StdioClientTransport: shutdown (2025-11-25 lifecycle)', () => {
  it('sends SIGTERM to a child that outlives the end of its stdin', async () => {
    const transport = new StdioClientTransport({
      command: NODE,
      args: [STUBBORN_SERVER, 'ignore-eof'],
      stderr: 'pipe',
      shutdownGraceMs: TEST_SHUTDOWN_GRACE_MS,
    });
    const ready = stderrUntil(transport, 'ready\n');
    const recorded = recordingSink();
    await transport.start(recorded.sink);
    await ready;
    const eofSeen = stderrUntil(transport, 'stdin closed; staying up');

    await transport.close();

    await expect(eofSeen).resolves.toContain('stdin closed; staying up');
    expect(transport.signalCode).toBe('SIGTERM');
    expect(transport.exitCode).toBeNull();
    expect(() => process.kill(transport.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    // A close we asked for is not an error.
    expect(recorded.closings).toEqual([undefined]);
  });

  it('sends SIGKILL to a child that also ignores SIGTERM', async () => {
    const transport = new StdioClientTransport({
      command: NODE,
      args: [STUBBORN_SERVER, 'ignore-sigterm'],
      stderr: 'pipe',
      shutdownGraceMs: TEST_SHUTDOWN_GRACE_MS,
    });
    const ready = stderrUntil(transport, 'ready\n');
    const recorded = recordingSink();
    await transport.start(recorded.sink);
    await ready;
    const sigtermSeen = stderrUntil(transport, 'SIGTERM ignored');

    await transport.close();

    await expect(sigtermSeen).resolves.toContain('SIGTERM ignored');
    expect(transport.signalCode).toBe('SIGKILL');
    expect(() => process.kill(transport.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(recorded.closings).toEqual([undefined]);
  });

  it('waits shutdownGraceMs after closing stdin before SIGTERM, and as long again before SIGKILL', async () => {
    const grace = 10_000;
    const transport = new StdioClientTransport({
      command: NODE,
      args: [STUBBORN_SERVER, 'ignore-sigterm'],
      stderr: 'pipe',
      shutdownGraceMs: grace,
    });
    const ready = stderrUntil(transport, 'ready\n');
    await transport.start(recordingSink().sink);
    await ready;
    // A fake clock for the stage timers only; the child, its pipes and its signals stay real.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const kill = jest.spyOn(ChildProcess.prototype, 'kill');
    try {
      const eofSeen = stderrUntil(transport, 'stdin closed; staying up');
      const closed = transport.close();
      await eofSeen;
      await jest.advanceTimersByTimeAsync(grace - 1);
      expect(kill.mock.calls).toEqual([]);
      const sigtermSeen = stderrUntil(transport, 'SIGTERM ignored');
      await jest.advanceTimersByTimeAsync(1);
      expect(kill.mock.calls).toEqual([['SIGTERM']]);
      await sigtermSeen;
      await jest.advanceTimersByTimeAsync(grace - 1);
      expect(kill.mock.calls).toEqual([['SIGTERM']]);
      await jest.advanceTimersByTimeAsync(1);
      expect(kill.mock.calls).toEqual([['SIGTERM'], ['SIGKILL']]);
      await closed;
      expect(transport.signalCode).toBe('SIGKILL');
    } finally {
      kill.mockRestore();
      jest.useRealTimers();
    }
  });

  it('keeps 2 s per stage by default', () => {
    expect(DEFAULT_STDIO_SHUTDOWN_GRACE_MS).toBe(2_000);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, '100'])('refuses shutdownGraceMs %p', (value) => {
    expect(
      () => new StdioClientTransport({ command: NODE, shutdownGraceMs: value as unknown as number }),
    ).toThrow(
      new TypeError(
        `StdioClientTransport: \`shutdownGraceMs\` must be a non-negative number of milliseconds, got ${String(value)}`,
      ),
    );
  });

  it('resolves close() of a transport that never started', async () => {
    const transport = new StdioClientTransport({ command: NODE });
    await expect(transport.close()).resolves.toBeUndefined();
    expect(transport.pid).toBeUndefined();
  });
});
