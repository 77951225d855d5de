import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StdioClientTransport, StreamableHttpClientTransport } from '@gantry/client';
import { createDevProject, DevProcess } from './support/dev-project';
import { CLI, REGISTER, runCli } from './support/run-cli';

const FIXTURE = resolve(__dirname, 'fixtures/dev-server.ts');

/** Every stdout line must be a JSON-RPC message: anything else would break a stdio client. */
function expectOnlyProtocolLines(lines: readonly string[]): void {
  const strays = lines.filter((line) => {
    try {
      return (JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc !== '2.0';
    } catch {
      return true;
    }
  });
  expect(strays).toEqual([]);
}

describe('gantry dev --no-watch', () => {
  let project: ReturnType<typeof createDevProject>;
  beforeAll(() => {
    project = createDevProject(FIXTURE);
  });
  afterAll(() => project.remove());

  it('serves the TypeScript entry over stdio, with decorator metadata, and nothing else on stdout', async () => {
    const invalidLines: unknown[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'dev', '--no-watch'],
      cwd: project.dir,
      stderr: 'pipe',
      onInvalidLine: (error) => invalidLines.push(error),
    });
    let stderr = '';
    transport.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const client = new Client({ name: 'dev-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      // `@Args() input: Greeting` names no class: the schema exists only because the hook
      // emitted design:paramtypes.
      expect(tools).toEqual([
        {
          name: 'greet',
          description: 'Greets someone by name',
          inputSchema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      ]);
      expect(await client.callTool('greet', { name: 'Ada' })).toEqual({
        content: [{ type: 'text', text: 'hello Ada from version one' }],
      });
    } finally {
      await client.close();
    }
    expect(invalidLines).toEqual([]);
    // The client hung up (stdin closed): the server, then gantry dev, ended cleanly.
    expect(transport.exitCode).toBe(0);
    expect(stderr).toBe('gantry dev: running src/main.ts\ndev fixture ready (version one)\n');
  });
});

/** Replaces the fixture's VERSION line, the way each kind of editor saves. */
const saves = {
  /** JetBrains "safe write": a temporary file beside it, renamed over the original. */
  renameOver(file: string, version: string): void {
    const temporary = `${file}___jb_tmp___`;
    writeFileSync(temporary, withVersion(readFileSync(file, 'utf8'), version));
    renameSync(temporary, file);
  },
  /** vim's default (writebackup): the original renamed to a backup, a new file written, the backup removed. */
  vim(file: string, version: string): void {
    const text = withVersion(readFileSync(file, 'utf8'), version);
    renameSync(file, `${file}~`);
    writeFileSync(file, text);
    rmSync(`${file}~`);
  },
  /** GNU sed -i: a temporary file in the same directory, renamed over the original. */
  sedInPlace(file: string, version: string): void {
    const result = spawnSync('sed', [
      '-i',
      `s/^const VERSION = '[a-z0-9-]*'/const VERSION = '${version}'/`,
      file,
    ]);
    expect(result.status).toBe(0);
  },
};

function withVersion(text: string, version: string): string {
  const changed = text.replace(/^const VERSION = '[a-z0-9-]*'/m, `const VERSION = '${version}'`);
  expect(changed).not.toBe(text);
  return changed;
}

/** Connects a new client (a restarted server is a new server) and calls greet. */
async function greet(dev: DevProcess): Promise<unknown> {
  const client = new Client({ name: 'dev-test', version: '1.0.0' });
  await client.connect(dev.transport());
  try {
    return (await client.callTool('greet', { name: 'Ada' })).content;
  } finally {
    await client.close();
  }
}

const RESTART_LINE =
  /gantry dev: src\/main\.ts changed; restarting the server \(a stdio client must initialize again\)\n/g;

describe('gantry dev (watching)', () => {
  let project: ReturnType<typeof createDevProject>;
  let dev: DevProcess | undefined;
  beforeEach(() => {
    project = createDevProject(FIXTURE);
  });
  afterEach(async () => {
    // SIGTERM, so that gantry dev stops its server too (SIGKILL would leave it behind).
    await dev?.stop();
    dev = undefined;
    project.remove();
  });

  async function startDev(): Promise<DevProcess> {
    const started = new DevProcess(['src/main.ts'], project.dir);
    dev = started;
    await started.waitForStderr(/gantry dev: watching src for changes/);
    await started.waitForStderr(/dev fixture ready \(version one\)/);
    return started;
  }

  it('restarts on every rename-style save (JetBrains, vim, sed -i), several in a row, and serves the new code', async () => {
    const dev = await startDev();
    expect(await greet(dev)).toEqual([{ type: 'text', text: 'hello Ada from version one' }]);

    // node --watch heard the first of these and nothing after it: its watch followed the replaced file.
    const steps: [keyof typeof saves, string][] = [
      ['renameOver', 'two'],
      ['vim', 'three'],
      ['sedInPlace', 'four'],
      ['renameOver', 'five'],
      ['vim', 'six'],
      ['sedInPlace', 'seven'],
    ];
    for (const [index, [save, version]] of steps.entries()) {
      saves[save](project.entry, version);
      await dev.waitForStderr(new RegExp(`dev fixture ready \\(version ${version}\\)`));
      expect(dev.count(RESTART_LINE)).toBe(index + 1);
      expect(await greet(dev)).toEqual([{ type: 'text', text: `hello Ada from version ${version}` }]);
    }

    // Hanging up ends the server, and gantry dev with it.
    expect(await dev.hangUp()).toBe(0);
    expect(dev.stderr).toMatch(/gantry dev: the server exited; stopping\n$/);
    // 7 × (initialize answer + tools/call answer), and nothing else.
    expect(dev.stdoutLines).toHaveLength(14);
    expectOnlyProtocolLines(dev.stdoutLines);
  });

  it('gives one restart for a burst of saves', async () => {
    const dev = await startDev();
    for (let n = 1; n <= 5; n++) saves.renameOver(project.entry, `burst-${n}`);
    await dev.waitForStderr(/dev fixture ready \(version burst-5\)/);
    expect(await greet(dev)).toEqual([{ type: 'text', text: 'hello Ada from version burst-5' }]);

    // A later single save is the second restart: the burst did not leave one behind.
    saves.renameOver(project.entry, 'after');
    await dev.waitForStderr(/dev fixture ready \(version after\)/);
    expect(dev.count(RESTART_LINE)).toBe(2);
    expect(dev.count(/dev fixture ready/g)).toBe(3);
    expect(dev.stderr).not.toMatch(/version burst-[1-4]\)/);
    expectOnlyProtocolLines(dev.stdoutLines);
  });

  it('prints file:line:col and a code frame for a syntax error, and recovers once it is fixed', async () => {
    const dev = await startDev();
    const good = readFileSync(project.entry, 'utf8');
    const lines = good.split('\n');
    const line = lines.findIndex((text) => text.startsWith("const VERSION = 'one'")) + 1;
    lines[line - 1] = "const VERSION = 'broken' +;";
    writeFileSync(`${project.entry}.tmp`, lines.join('\n'));
    renameSync(`${project.entry}.tmp`, project.entry);

    await dev.waitForStderr(/the server exited with code 1; save a file to restart it/);
    // The fixture's VERSION line is line 8.
    expect(line).toBe(8);
    expect(dev.stderr).toContain(
      [
        'src/main.ts:8:27: syntax error: Expression expected',
        '   6 |',
        '   7 | /** The dev test edits this line to see the server restart. */',
        ">  8 | const VERSION = 'broken' +;",
        '     |                           ^',
        '   9 |',
        '  10 | class Greeting {',
        'gantry dev: the server exited with code 1; save a file to restart it, Ctrl+C to stop',
        '',
      ].join('\n'),
    );
    // Not swc's native backtrace, nor a stack through the hook.
    expect(dev.stderr).not.toContain('Stack backtrace');
    expect(dev.stderr).not.toContain('register.js');

    writeFileSync(`${project.entry}.tmp`, withVersion(good, 'fixed'));
    renameSync(`${project.entry}.tmp`, project.entry);
    await dev.waitForStderr(/dev fixture ready \(version fixed\)/);
    expect(await greet(dev)).toEqual([{ type: 'text', text: 'hello Ada from version fixed' }]);
    expectOnlyProtocolLines(dev.stdoutLines);
  });
});

/** A port that was free a moment ago: the HTTP fixture must listen on the same one after a restart. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

describe('gantry dev and the requestState key', () => {
  let project: ReturnType<typeof createDevProject>;
  let dev: DevProcess | undefined;
  beforeAll(() => {
    project = createDevProject(resolve(__dirname, 'fixtures/dev-http-server.ts'));
  });
  afterAll(async () => {
    await dev?.stop();
    project.remove();
  });

  it('gives every restart one key: no warning, and a stateless-era retry is accepted by the restarted server', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
    delete env.GANTRY_STATE_KEY;
    dev = new DevProcess(['src/main.ts'], project.dir, env);
    const running = dev;
    await running.waitForStderr(/gantry dev: watching src for changes/);
    await running.waitForStderr(/dev http fixture ready on .* \(version one\)/);

    const client = new Client(
      { name: 'dev-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    // The server asks for a name (input_required, with its signed requestState); while the
    // question is open, the source changes and the server restarts; the retry reaches the new process.
    client.setRequestHandler('elicitation/create', async () => {
      saves.renameOver(project.entry, 'two');
      await running.waitForStderr(/dev http fixture ready on .* \(version two\)/);
      return { action: 'accept', content: { name: 'Ines' } };
    });
    await client.connect(new StreamableHttpClientTransport({ url: `http://127.0.0.1:${port}/mcp` }), {
      era: 'stateless',
    });
    try {
      expect(client.era).toBe('stateless');
      expect((await client.callTool('ask', {})).content).toEqual([
        { type: 'text', text: 'hello Ines from version two' },
      ]);
    } finally {
      await client.close();
    }
    expect(running.count(RESTART_LINE)).toBe(1);
    // SIGTERM stops the server and gantry dev with it.
    expect(await running.stop()).toBe(0);
    // Two server processes, two HTTP listeners, and not one warning about a random key.
    expect(running.stderr).not.toContain('requestState key');
  });
});

describe('gantry dev --inspect', () => {
  let project: ReturnType<typeof createDevProject>;
  beforeAll(() => {
    project = createDevProject(FIXTURE);
  });
  afterAll(() => project.remove());

  it('starts the Inspector with this dev loop as its stdio server, and prints its URL with the token', async () => {
    const out = join(project.dir, 'inspector.json');
    const fake = resolve(__dirname, 'fixtures/fake-inspector.js');
    const run = await runCli(['dev', '--inspect'], {
      cwd: project.dir,
      env: {
        ...process.env,
        GANTRY_INSPECTOR: `'${process.execPath}' '${fake}'`,
        FAKE_INSPECTOR_OUT: out,
        CLIENT_PORT: '',
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const record = JSON.parse(readFileSync(out, 'utf8')) as {
      args: string[];
      token: string;
      port: string;
      answer: unknown;
    };
    expect(record.token).toMatch(/^[0-9a-f]{64}$/);
    expect(record.port).toBe('6274');
    expect(run.stderr).toContain(
      `gantry dev: MCP Inspector: http://localhost:6274/?MCP_INSPECTOR_API_TOKEN=${record.token}\n`,
    );
    expect(record.args).toEqual([
      '--',
      process.execPath,
      CLI,
      'dev',
      project.entry,
      '--stop-timeout',
      '5000',
      '--debounce',
      '150',
    ]);
    // The Inspector's client reached the server through the inner gantry dev.
    expect(record.answer).toEqual([{ type: 'text', text: 'hello Inspector from version one' }]);
  });
});

describe('@gantry/cli/register', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-register-'));
    mkdirSync(join(dir, 'project', 'src'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function runNode(entry: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['-r', REGISTER, entry], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
  }

  // Prints the constructor parameter types TypeScript recorded, if any.
  const metadataProbe = `
function Service(): ClassDecorator { return () => {}; }
class Clock {}
@Service()
class Greeter { constructor(readonly clock: Clock, readonly name: string) {} }
const types: Function[] | undefined = (Reflect as any).getMetadata?.('design:paramtypes', Greeter);
console.log(JSON.stringify(types?.map((type) => type.name) ?? null));
`;

  it('emits decorator metadata with its built-in settings when no .swcrc is found', async () => {
    const entry = join(dir, 'project', 'src', 'probe.ts');
    writeFileSync(entry, `require('${require.resolve('reflect-metadata')}');\n${metadataProbe}`);
    expect(await runNode(entry)).toEqual({ code: 0, stdout: '["Clock","String"]\n', stderr: '' });
  });

  it("uses the project's .swcrc, looked up from the entry's directory upwards", async () => {
    const entry = join(dir, 'project', 'src', 'probe-swcrc.ts');
    writeFileSync(entry, `require('${require.resolve('reflect-metadata')}');\n${metadataProbe}`);
    writeFileSync(
      join(dir, 'project', '.swcrc'),
      JSON.stringify({
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: false },
        },
        module: { type: 'es6' },
      }),
    );
    try {
      // decoratorMetadata off: no types recorded; module es6 is still run as CommonJS.
      expect(await runNode(entry)).toEqual({ code: 0, stdout: 'null\n', stderr: '' });
    } finally {
      rmSync(join(dir, 'project', '.swcrc'));
    }
  });

  it('maps stack traces to the TypeScript source (inline source maps)', async () => {
    const entry = join(dir, 'project', 'src', 'throws.ts');
    writeFileSync(
      entry,
      [
        'interface Unused {', // types vanish from the output, so its line numbers differ
        '  a: string;',
        '  b: number;',
        '}',
        'type Also = Unused;',
        'const value: Also | undefined = undefined;',
        "if (value === undefined) throw new Error('thrown on line 7');",
      ].join('\n'),
    );
    const { code, stderr } = await runNode(entry);
    expect(code).toBe(1);
    expect(stderr).toContain(`${entry}:7`);
  });
});
