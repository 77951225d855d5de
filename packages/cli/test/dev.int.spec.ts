import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StdioClientTransport } from '@gantry/client';
import { createDevProject, DevProcess } from './support/dev-project';
import { CLI, REGISTER } from './support/run-cli';

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

describe('gantry dev --watch', () => {
  let project: ReturnType<typeof createDevProject>;
  let dev: DevProcess | undefined;
  beforeAll(() => {
    project = createDevProject(FIXTURE);
  });
  afterAll(() => {
    dev?.kill();
    project.remove();
  });

  it('restarts the server when its source changes, keeping stdout to protocol lines', async () => {
    dev = new DevProcess(['src/main.ts', '--watch'], project.dir);
    await dev.waitForStderr(/dev fixture ready \(version one\)/);

    const first = new Client({ name: 'dev-test', version: '1.0.0' });
    await first.connect(dev.transport());
    expect((await first.callTool('greet', { name: 'Ada' })).content).toEqual([
      { type: 'text', text: 'hello Ada from version one' },
    ]);
    await first.close();

    const changed = readFileSync(project.entry, 'utf8').replace(
      "const VERSION = 'one'",
      "const VERSION = 'two'",
    );
    const restarting = dev.waitForStderr(/gantry dev: a file changed; restarting the server/);
    // The watcher learns of the file over IPC as the server loads it; should a write slip in
    // before that, writing again is noticed.
    let seen = false;
    restarting.then(() => {
      seen = true;
    });
    while (!seen) {
      writeFileSync(project.entry, changed);
      await Promise.race([restarting, new Promise((done) => setTimeout(done, 2_000))]);
    }
    await dev.waitForStderr(/dev fixture ready \(version two\)/);

    // A new server process: a new session.
    const second = new Client({ name: 'dev-test', version: '1.0.0' });
    await second.connect(dev.transport());
    expect((await second.callTool('greet', { name: 'Ada' })).content).toEqual([
      { type: 'text', text: 'hello Ada from version two' },
    ]);
    await second.close();

    // Hanging up ends the server, and gantry dev with it.
    expect(await dev.hangUp()).toBe(0);
    expect(dev.stderr).toMatch(/gantry dev: the server exited; stopping\n$/);
    // Two initialize and two tools/call answers; node's "Restarting …" lines went to stderr.
    expect(dev.stdoutLines).toHaveLength(4);
    expectOnlyProtocolLines(dev.stdoutLines);
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
