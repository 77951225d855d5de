// End to end: `gantry new` from this checkout packs the workspace, installs from the tarballs
// and the npm registry, and the new projects test, build and serve as their README says.
// Slow (two npm installs), so both projects are made once, side by side, and shared.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { childEnv, collect, type Finished, succeeded } from './support/child-process';

const REPO = resolve(__dirname, '../../..');
const CLI = join(REPO, 'packages/cli/dist/main.js');
const MINUTE = 60_000;

/** Runs a program to completion, stdin closed. */
function exec(command: string, args: readonly string[], cwd: string, env = childEnv()): Promise<Finished> {
  return collect(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** `gantry …args`, the built CLI of this checkout. */
function gantry(cwd: string, ...args: string[]): Promise<Finished> {
  return exec(process.execPath, [CLI, ...args], cwd);
}

/** `npm run <script>` in a project; fails the test with npm's output when it fails. */
async function npmRun(project: string, script: string): Promise<string> {
  const result = await exec('npm', ['run', script], project);
  if (result.code !== 0)
    throw new Error(`npm run ${script} failed in ${project}:\n${result.stdout}\n${result.stderr}`);
  return `${result.stdout}${result.stderr}`;
}

/** Starts the built HTTP project on a free port; resolves with the URL it prints on stderr. */
async function serveHttp(project: string): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: project,
    env: childEnv({ PORT: '0' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`no URL on stderr within 20 s: ${stderr}`)), 20_000);
    exited.then((code) => fail(new Error(`the server exited with code ${code}: ${stderr}`)));
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /^http-server is serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)?.[1];
      if (found) {
        clearTimeout(timer);
        done(found);
      }
    });
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

const GREETING = { content: [{ type: 'text', text: 'Hello, Ada!' }] };

describe('gantry new, end to end, from this checkout', () => {
  let work: string;
  let stdioProject: string;
  let httpProject: string;
  let created: Finished[];

  beforeAll(async () => {
    // `npm test` builds everything (tsc -b) before Jest runs; a bare `npx jest` may not have.
    if (!existsSync(CLI) || !existsSync(join(REPO, 'packages/fastify/dist/index.js'))) {
      succeeded(await exec(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-b'], REPO));
    }
    work = mkdtempSync(join(tmpdir(), 'gantry-e2e-'));
    stdioProject = join(work, 'stdio-server');
    httpProject = join(work, 'http-server');
    created = await Promise.all([
      gantry(work, 'new', 'stdio-server', '--transport', 'stdio', '--no-git'),
      gantry(work, 'new', 'http-server', '--transport', 'http', '--no-git'),
    ]);
  }, 10 * MINUTE);

  afterAll(() => {
    if (work && !process.env.GANTRY_E2E_KEEP) rmSync(work, { recursive: true, force: true });
  });

  it('packs the workspace and installs from the tarballs', () => {
    for (const [result, project] of [
      [created[0], stdioProject],
      [created[1], httpProject],
    ] as const) {
      succeeded(result);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('packed from the checkout at');
      expect(result.stdout).toMatch(/^Installed dependencies \(\d+\.\d s\)$/m);
      expect(result.stdout).toContain('\nNext steps:\n');
      const core = JSON.parse(readFileSync(join(project, 'node_modules/@gantry/core/package.json'), 'utf8'));
      expect(core.version).toBe('0.1.0');
      expect(existsSync(join(project, 'package-lock.json'))).toBe(true);
      expect(existsSync(join(project, 'node_modules/@gantry/cli/templates/README.md'))).toBe(true);
    }
    expect(existsSync(join(httpProject, 'node_modules/@gantry/fastify/package.json'))).toBe(true);
    expect(existsSync(join(stdioProject, 'node_modules/@gantry/fastify'))).toBe(false);
    const lightMyRequest = join(httpProject, 'node_modules/light-my-request/package.json');
    expect(JSON.parse(readFileSync(lightMyRequest, 'utf8')).version).toBe('6.6.0');
  });

  it(
    'stdio: npm test, build and typecheck pass, and gantry call gets the answer',
    async () => {
      expect(await npmRun(stdioProject, 'test')).toMatch(/Tests: +6 passed, 6 total/);
      await npmRun(stdioProject, 'build');
      await npmRun(stdioProject, 'typecheck');
      const called = succeeded(
        await gantry(
          stdioProject,
          'call',
          'node dist/main.js',
          'greet',
          '--args',
          '{"name":"Ada"}',
          '--json',
        ),
      );
      expect(JSON.parse(called.stdout)).toEqual(GREETING);
      // The project's own gantry, installed from the packed @gantry/cli, does the same.
      const own = succeeded(
        await exec(
          'npx',
          ['gantry', 'call', 'node dist/main.js', 'greet', '--args', '{"name":"Ada"}'],
          stdioProject,
        ),
      );
      expect(own.stdout).toBe('Hello, Ada!\n');
    },
    5 * MINUTE,
  );

  it(
    'http: npm test and build pass, and gantry call gets the answer over HTTP',
    async () => {
      expect(await npmRun(httpProject, 'test')).toMatch(/Tests: +6 passed, 6 total/);
      await npmRun(httpProject, 'build');
      const server = await serveHttp(httpProject);
      try {
        const called = succeeded(
          await gantry(httpProject, 'call', server.url, 'greet', '--args', '{"name":"Ada"}', '--json'),
        );
        expect(JSON.parse(called.stdout)).toEqual(GREETING);
      } finally {
        // SIGTERM closes the app and exits 0 (main.ts).
        expect(await server.stop()).toBe(0);
      }
    },
    5 * MINUTE,
  );

  it(
    'gantry generate adds a tool, a resource and a prompt that test, build and are listed',
    async () => {
      for (const [kind, name] of [
        ['tool', 'weather'],
        ['resource', 'forecast'],
        ['prompt', 'review'],
      ]) {
        const generated = succeeded(await gantry(stdioProject, 'generate', kind, name));
        expect(generated.stdout).toContain(`updated src/app.module.ts: `);
      }
      expect(await npmRun(stdioProject, 'test')).toMatch(/Test Suites: +4 passed, 4 total/);
      await npmRun(stdioProject, 'build');
      await npmRun(stdioProject, 'typecheck');
      const listed = JSON.parse(
        succeeded(await gantry(stdioProject, 'list', 'node dist/main.js', '--all', '--json')).stdout,
      );
      expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(['greet', 'weather']);
      expect(
        listed.resourceTemplates.map((template: { uriTemplate: string }) => template.uriTemplate).sort(),
      ).toEqual(['forecast://{id}', 'greeting://{name}']);
      expect(listed.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['introduce', 'review']);
      const called = succeeded(
        await gantry(stdioProject, 'call', 'node dist/main.js', 'weather', '--args', '{"input":"Paris"}'),
      );
      expect(called.stdout).toBe('weather: Paris\n');
    },
    5 * MINUTE,
  );
});
