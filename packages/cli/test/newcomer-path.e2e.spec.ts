// The newcomer's first hour as one script: a fresh clone of this repository, `npm ci`, `npm start`
// (the example server over HTTP), `gantry new demo`, `gantry install claude-code` into a
// temporary HOME, `gantry add http`, and the demo's build and tests, each step timed.
//
// It clones the committed HEAD (`git clone --no-local`), so commit before running it:
// uncommitted changes are not in the clone. It installs from the npm registry (npm's cache
// first), so it takes minutes. `GANTRY_E2E_KEEP=1` keeps the temporary directory.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { childEnv, collect, type Finished } from './support/child-process';

const REPO = resolve(__dirname, '../../..');
const MINUTE = 60_000;
/** Where the table of step times is written; outside the temporary directory, so it stays. */
const TIMINGS_FILE = join(tmpdir(), 'gantry-newcomer-path-timings.txt');

/** Processes still running (servers), each the leader of its own process group. */
const running = new Set<ChildProcess>();

/** Runs a program to completion (stdin closed) and fails with its output unless it exits 0. */
async function exec(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = childEnv(),
): Promise<Finished> {
  const result = await collect(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited with ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

interface Server {
  url: string;
  /** SIGTERM to the whole process group (npm, its shell and node); resolves with the leader's exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts a server in its own process group and resolves with the URL it prints once it listens
 * (the first group of `listening`, matched against stderr); fails with its output when it exits first.
 */
function startServer(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  listening: RegExp,
): Promise<Server> {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      running.delete(child);
      done(code);
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) killGroup(child, 'SIGTERM');
    return exited;
  };
  let output = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((done, fail) => {
    child.once('error', fail);
    exited.then((code) =>
      fail(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}\n${stderr}`)),
    );
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      output += chunk;
      const url = listening.exec(stderr)?.[1];
      if (url) done({ url, stop });
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** `npx gantry call|list …` of a project prints JSON with `--json`. */
function parsed(result: Finished): unknown {
  return JSON.parse(result.stdout);
}

/** A table of the steps and their seconds ("not run" after a failed step), and the total. */
function timingTable(timings: readonly { step: string; seconds: number | undefined }[]): string {
  const width = Math.max(...timings.map(({ step }) => step.length), 'total'.length) + 2;
  const row = (name: string, seconds: number | undefined) =>
    `${name.padEnd(width)}${seconds === undefined ? 'not run' : seconds.toFixed(1).padStart(7)}`;
  const total = timings.reduce((sum, { seconds }) => sum + (seconds ?? 0), 0);
  return [
    `${'step'.padEnd(width)}seconds`,
    ...timings.map(({ step, seconds }) => row(step, seconds)),
    row('total', total),
  ].join('\n');
}

const GREETING = { content: [{ type: 'text', text: 'Hello, Ada!' }] };

describe('the newcomer path: clone → npm ci → npm start → gantry new → install → add http → npm test', () => {
  const timings: { step: string; seconds: number | undefined }[] = [];
  let failedStep: string | undefined;
  let work: string;
  let clone: string;
  let demo: string;
  let home: string;
  let npmCache: string;
  let notes: Server | undefined;
  let demoHttp: Server | undefined;

  /** One timed step; after a failed one, the next ones fail at once, naming it. */
  function step(name: string, timeout: number, body: () => Promise<void>): void {
    it(
      name,
      async () => {
        if (failedStep !== undefined) {
          timings.push({ step: name, seconds: undefined });
          throw new Error(`not run: the step "${failedStep}" failed`);
        }
        const started = performance.now();
        try {
          await body();
        } catch (error) {
          failedStep = name;
          throw error;
        } finally {
          timings.push({ step: name, seconds: (performance.now() - started) / 1000 });
        }
      },
      timeout,
    );
  }

  beforeAll(async () => {
    // realpath: macOS's tmpdir is a symbolic link, and the commands print resolved paths.
    work = realpathSync(mkdtempSync(join(tmpdir(), 'gantry-newcomer-')));
    clone = join(work, 'gantry');
    demo = join(work, 'demo');
    home = join(work, 'home');
    mkdirSync(home);
    // The temporary HOME would otherwise give npm an empty cache.
    npmCache = (await exec('npm', ['config', 'get', 'cache'], work)).stdout.trim();
  }, MINUTE);

  afterAll(async () => {
    await Promise.all([notes?.stop(), demoHttp?.stop()]);
    for (const child of running) killGroup(child, 'SIGKILL');
    const table = timingTable(timings);
    writeFileSync(TIMINGS_FILE, `${table}\n`);
    process.stderr.write(`\nThe newcomer path, step by step (also in ${TIMINGS_FILE}):\n${table}\n\n`);
    if (work && !process.env.GANTRY_E2E_KEEP) rmSync(work, { recursive: true, force: true });
  });

  step('git clone --no-local (committed HEAD)', MINUTE, async () => {
    const head = (await exec('git', ['rev-parse', 'HEAD'], REPO)).stdout.trim();
    const dirty = (await exec('git', ['status', '--porcelain', '--untracked-files=no'], REPO)).stdout;
    if (dirty) process.stderr.write(`note: uncommitted changes are not in the clone:\n${dirty}`);
    await exec('git', ['clone', '-q', '--no-local', REPO, clone], work);
    await exec('git', ['checkout', '-q', '--detach', head], clone);
    expect((await exec('git', ['rev-parse', 'HEAD'], clone)).stdout.trim()).toBe(head);
  });

  step('npm ci', 15 * MINUTE, async () => {
    await exec('npm', ['ci'], clone);
    expect(existsSync(join(clone, 'node_modules/typescript/package.json'))).toBe(true);
  });

  step('npm start (tsc -b, then notes on HTTP)', 15 * MINUTE, async () => {
    notes = await startServer(
      'npm',
      ['start', '--', '--port', '0'],
      clone,
      childEnv({ NOTES_DIR: join(work, 'notes-data') }),
      /^gantry-notes is serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp) /m,
    );
  });

  step('gantry list against npm start, then stop it', 2 * MINUTE, async () => {
    if (!notes) throw new Error('npm start did not start');
    const listed = await exec('npm', ['run', '--silent', 'gantry', '--', 'list', notes.url, '--json'], clone);
    expect((parsed(listed) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual([
      'create_note',
      'get_note',
      'search_notes',
      'move_note',
      'delete_note',
      'export_notes',
      'import_notes',
    ]);
    await notes.stop();
    notes = undefined;
  });

  step('npm run gantry -- new demo', 10 * MINUTE, async () => {
    const created = await exec('npm', ['run', 'gantry', '--', 'new', demo, '--transport', 'stdio'], clone);
    expect(created.stdout).toContain('packed from the checkout at');
    expect(created.stdout).toMatch(/^Installed dependencies \(\d+\.\d s\)$/m);
    // Every @gantry/* package is vendored, so a transport can be added later without the registry.
    expect(readdirSync(join(demo, 'vendor')).sort()).toEqual(
      ['cli', 'client', 'core', 'fastify', 'protocol', 'testing', 'ws'].map(
        (name) => `gantry-${name}-0.1.0.tgz`,
      ),
    );
  });

  step('npm run build && npx gantry install claude-code', 5 * MINUTE, async () => {
    await exec('npm', ['run', 'build'], demo);
    const entry = join(demo, 'dist/main.js');
    const claudeJson = join(home, '.claude.json');
    const installed = await exec(
      'npx',
      ['gantry', 'install', 'claude-code'],
      demo,
      childEnv({ HOME: home, USERPROFILE: home, npm_config_cache: npmCache }),
    );
    expect(installed).toEqual({
      code: 0,
      stdout: `Added server "demo" in Claude Code (user scope): ${claudeJson}\nCheck it with: claude mcp list\n`,
      stderr: '',
    });
    expect(readFileSync(claudeJson, 'utf8')).toBe(
      `{\n  "mcpServers": {\n    "demo": {\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        ${JSON.stringify(entry)}\n      ]\n    }\n  }\n}\n`,
    );
    expect(readdirSync(home)).toEqual(['.claude.json']);
    // Started as Claude Code would start it, the server answers.
    const called = await exec(
      'npx',
      ['gantry', 'call', `node ${entry}`, 'greet', '--args', '{"name":"Ada"}', '--json'],
      demo,
    );
    expect(parsed(called)).toEqual(GREETING);
  });

  step('npx gantry add http', 5 * MINUTE, async () => {
    const added = await exec('npx', ['gantry', 'add', 'http'], demo);
    expect(added.stdout).toContain('created src/serve-http.ts\n');
    expect(added.stdout).toContain('installed dependencies (npm install)\n');
    expect(readFileSync(join(demo, 'src/main.ts'), 'utf8')).toContain(
      "if (process.argv.includes('--http')) return serveHttp(app);",
    );
    expect(existsSync(join(demo, 'node_modules/@gantry/fastify/package.json'))).toBe(true);
  });

  step('npm run build (demo)', 5 * MINUTE, async () => {
    await exec('npm', ['run', 'build'], demo);
    expect(existsSync(join(demo, 'dist/serve-http.js'))).toBe(true);
  });

  step('npm test (demo)', 5 * MINUTE, async () => {
    const tested = await exec('npm', ['test'], demo);
    expect(`${tested.stdout}${tested.stderr}`).toMatch(/^Tests: +(\d+) passed, \1 total$/m);
  });

  step('node dist/main.js --http, gantry call greet', 2 * MINUTE, async () => {
    demoHttp = await startServer(
      process.execPath,
      ['dist/main.js', '--http'],
      demo,
      childEnv({ PORT: '0' }),
      /^demo is serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m,
    );
    const called = await exec(
      'npx',
      ['gantry', 'call', demoHttp.url, 'greet', '--args', '{"name":"Ada"}', '--json'],
      demo,
    );
    expect(parsed(called)).toEqual(GREETING);
    // SIGTERM closes the app and exits 0 (serve-http.ts).
    expect(await demoHttp.stop()).toBe(0);
    demoHttp = undefined;
    // Without the flag it serves stdio, as the Claude Code entry expects.
    const stdio = await exec(
      'npx',
      ['gantry', 'call', 'node dist/main.js', 'greet', '--args', '{"name":"Ada"}', '--json'],
      demo,
    );
    expect(parsed(stdio)).toEqual(GREETING);
  });
});
