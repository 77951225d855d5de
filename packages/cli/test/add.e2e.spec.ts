// End to end: a project made with the default stdio transport gets HTTP and then WebSocket
// with `gantry add`, from the @gantry/* tarballs `gantry new` vendored into it, and serves all
// three from one dist/main.js. Slow (one project, three npm installs), so the project is shared.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { childEnv, collect, type Finished, succeeded } from './support/child-process';

const REPO = resolve(__dirname, '../../..');
const CLI = join(REPO, 'packages/cli/dist/main.js');
const MINUTE = 60_000;
const GREETING = { content: [{ type: 'text', text: 'Hello, Ada!' }] };

/** A git identity for the project's first commit, which `gantry new` makes. */
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

function exec(command: string, args: readonly string[], cwd: string): Promise<Finished> {
  return collect(
    spawn(command, args, { cwd, env: childEnv(GIT_IDENTITY), stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

function gantry(cwd: string, ...args: string[]): Promise<Finished> {
  return exec(process.execPath, [CLI, ...args], cwd);
}

/** Starts `node dist/main.js <flag>` on a free port; resolves with the URL it prints on stderr. */
async function serve(
  project: string,
  flag: string,
): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, ['dist/main.js', flag], {
    cwd: project,
    env: childEnv({ PORT: '0' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    let stderr = '';
    exited.then((code) => fail(new Error(`the server exited with code ${code}: ${stderr}`)));
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /^demo is serving MCP on ((?:http|ws):\/\/127\.0\.0\.1:\d+\/mcp)/m.exec(stderr)?.[1];
      if (found) done(found);
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

/** `gantry call <target> greet {"name":"Ada"}`, the result as JSON. */
async function greet(project: string, target: string): Promise<unknown> {
  const called = succeeded(
    await gantry(project, 'call', target, 'greet', '--args', '{"name":"Ada"}', '--json'),
  );
  return JSON.parse(called.stdout);
}

async function build(project: string): Promise<void> {
  succeeded(await exec('npm', ['run', 'build'], project));
}

const readJson = (...path: string[]) => JSON.parse(readFileSync(join(...path), 'utf8'));

describe('gantry new --transport stdio, then gantry add', () => {
  let work: string;
  let project: string;
  let created: Finished;

  beforeAll(async () => {
    // `npm test` builds everything (tsc -b) before Jest runs; a bare `npx jest` may not have.
    if (!existsSync(CLI) || !existsSync(join(REPO, 'packages/ws/dist/index.js'))) {
      succeeded(await exec(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-b'], REPO));
    }
    work = mkdtempSync(join(tmpdir(), 'gantry-add-'));
    project = join(work, 'demo');
    created = await gantry(work, 'new', 'demo', '--transport', 'stdio');
  }, 5 * MINUTE);

  afterAll(() => {
    if (work && !process.env.GANTRY_E2E_KEEP) rmSync(work, { recursive: true, force: true });
  });

  it('vendors every @gantry/* package, committed with the project', async () => {
    succeeded(created);
    expect(created.stdout).toContain('Packed 7 packages into vendor/');
    const tarballs = ['cli', 'client', 'core', 'fastify', 'protocol', 'testing', 'ws'].map(
      (pkg) => `vendor/gantry-${pkg}-0.1.0.tgz`,
    );
    // In the first commit, so a clone installs.
    const committed = succeeded(await exec('git', ['ls-files', 'vendor'], project));
    expect(committed.stdout.trim().split('\n')).toEqual(tarballs);
    expect(readJson(project, 'package.json').dependencies['@gantry/fastify']).toBeUndefined();
  });

  it(
    'reports one error per test, not two, when the module fails to build',
    async () => {
      const moduleFile = join(project, 'src/app.module.ts');
      const original = readFileSync(moduleFile, 'utf8');
      const failing =
        "providers: [{ provide: 'BROKEN', useFactory: () => { throw new Error('the module failed to build'); } }, ";
      writeFileSync(moduleFile, original.replace('providers: [', failing));
      const report = join(work, 'jest.json');
      try {
        const tested = await exec('npx', ['jest', '--json', `--outputFile=${report}`], project);
        expect(tested.code).toBe(1);
      } finally {
        writeFileSync(moduleFile, original);
      }
      const tests = readJson(report).testResults[0].assertionResults as { failureMessages: string[] }[];
      expect(tests).toHaveLength(6);
      for (const test of tests) {
        expect(test.failureMessages).toHaveLength(1);
        expect(test.failureMessages[0]).toMatch(
          /^GantryError: The factory of "BROKEN" in module AppModule threw: the module failed to build/,
        );
      }
    },
    2 * MINUTE,
  );

  it(
    'add http: serves Streamable HTTP with --http, and stdio still without it',
    async () => {
      const added = succeeded(await gantry(project, 'add', 'http'));
      expect(added.stdout).toBe(
        [
          'created src/serve-http.ts',
          'updated package.json: @gantry/fastify file:vendor/gantry-fastify-0.1.0.tgz, fastify ^5.12.8, script start:http',
          'updated src/main.ts: --http serves Streamable HTTP; without it, what it served before',
          'installed dependencies (npm install)',
          '',
          'Serve it over Streamable HTTP on http://127.0.0.1:3000/mcp (PORT and HOST change the address):',
          '  npm run build && node dist/main.js --http',
          '',
        ].join('\n'),
      );
      const manifest = readJson(project, 'package.json');
      expect(manifest.dependencies).toMatchObject({
        '@gantry/fastify': 'file:vendor/gantry-fastify-0.1.0.tgz',
        fastify: '^5.12.8',
      });
      expect(manifest.overrides).toMatchObject({
        '@gantry/fastify': 'file:vendor/gantry-fastify-0.1.0.tgz',
        'light-my-request': '6.6.0',
      });
      expect(manifest.scripts['start:http']).toBe('node dist/main.js --http');
      expect(readJson(project, 'node_modules/fastify/package.json').version).toMatch(/^5\./);

      await build(project);
      const server = await serve(project, '--http');
      try {
        expect(await greet(project, server.url)).toEqual(GREETING);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      expect(await greet(project, 'node dist/main.js')).toEqual(GREETING);
    },
    5 * MINUTE,
  );

  it('add http a second time: refused, nothing changed', async () => {
    const before = readFileSync(join(project, 'package.json'), 'utf8');
    expect(await gantry(project, 'add', 'http')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'gantry: http is in this project already (package.json depends on @gantry/fastify, src/serve-http.ts exists); nothing was changed\n',
    });
    expect(readFileSync(join(project, 'package.json'), 'utf8')).toBe(before);
  });

  it(
    'add ws: serves WebSocket with --ws, next to --http and stdio',
    async () => {
      const added = succeeded(await gantry(project, 'add', 'ws'));
      expect(added.stdout).toContain(
        'updated package.json: @gantry/ws file:vendor/gantry-ws-0.1.0.tgz, ws ^8.23.0, script start:ws\n',
      );
      expect(added.stdout).toContain('updated src/main.ts: --ws serves WebSocket');
      expect(readFileSync(join(project, 'src/main.ts'), 'utf8')).toContain(
        [
          "  if (process.argv.includes('--http')) return serveHttp(app);",
          "  if (process.argv.includes('--ws')) return serveWebSocket(app);",
          '',
        ].join('\n'),
      );
      await build(project);
      const server = await serve(project, '--ws');
      try {
        expect(server.url).toMatch(/^ws:/);
        expect(await greet(project, server.url)).toEqual(GREETING);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const http = await serve(project, '--http');
      try {
        expect(await greet(project, http.url)).toEqual(GREETING);
      } finally {
        await http.stop();
      }
      expect(await greet(project, 'node dist/main.js')).toEqual(GREETING);
    },
    5 * MINUTE,
  );
});

describe('gantry add in a project made before every package was vendored', () => {
  it('says which tarball is missing and the npm pack command that adds it, changing nothing', async () => {
    const old = mkdtempSync(join(tmpdir(), 'gantry-add-old-'));
    try {
      const manifest = `${JSON.stringify({ name: 'old', dependencies: { '@gantry/core': 'file:.gantry-packages/gantry-core-0.1.0.tgz' } }, null, 2)}\n`;
      writeFileSync(join(old, 'package.json'), manifest);
      mkdirSync(join(old, 'src'));
      writeFileSync(join(old, 'src/main.ts'), 'async function main() {\n  await app.listen(stdio());\n}\n');
      const result = await gantry(old, 'add', 'ws', '--no-install');
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'gantry: .gantry-packages/gantry-ws-0.1.0.tgz is missing: the project gets @gantry/* from .gantry-packages/, ' +
          "which has no @gantry/ws. Projects made by an older gantry new have only their transport's packages there " +
          '(gantry new now packs every one into vendor/). Pack it in your Gantry checkout, then run gantry add again:\n' +
          `  npm pack --workspace @gantry/ws --pack-destination ${join(old, '.gantry-packages')}\n`,
      );
      expect(readFileSync(join(old, 'package.json'), 'utf8')).toBe(manifest);
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
