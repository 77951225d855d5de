// `@gantry/*` is not on the npm registry yet. Projects that would get it from there (gantry run
// with --no-link, or from an installed @gantry/cli, not a checkout) get a message with the
// commands that work instead of npm's bare 404. The registry is a local server that answers
// 404 to everything, as the real one does for @gantry/*, so no network is needed.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExitCode } from '../src/exit-codes';
import { runInProcess } from './support/run-in-process';

const REPO = resolve(__dirname, '../../..');

let work: string;
let registry: Server;
let requested: string[];
let previousRegistry: string | undefined;

beforeAll(async () => {
  requested = [];
  registry = createServer((request, response) => {
    requested.push(request.url ?? '');
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  await new Promise<void>((done) => registry.listen(0, '127.0.0.1', done));
  previousRegistry = process.env.npm_config_registry;
  process.env.npm_config_registry = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  if (previousRegistry === undefined) delete process.env.npm_config_registry;
  else process.env.npm_config_registry = previousRegistry;
  await new Promise((done) => registry.close(done));
});

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'gantry-unpublished-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const gantry = (...args: string[]) => runInProcess(args);

describe('@gantry/* not on the registry', () => {
  it('gantry new --no-link, from a checkout: says so, writes nothing, and says to drop --no-link', async () => {
    const dir = join(work, 'demo');
    const result = await gantry('new', dir, '--no-link', '--no-git');
    expect(result).toEqual({
      code: ExitCode.Usage,
      stdout: `Creating demo in ${dir} (stdio transport, @gantry/* ^0.1.0 from the npm registry)\n`,
      stderr: [
        'gantry: @gantry/* is not published on the npm registry yet (npm view @gantry/core@^0.1.0: E404), ' +
          'so a project that gets it from there cannot install. Nothing was written.',
        `This gantry runs from the checkout at ${REPO}; run it there without --no-link:`,
        `  cd ${REPO} && npm run build && npm run gantry -- new ${dir} --name demo --transport stdio`,
        '',
      ].join('\n'),
    });
    expect(result.stderr).not.toContain('--no-install');
    expect(readdirSync(work)).toEqual([]);
    expect(requested).toContain('/@gantry%2fcore');
  });

  it('gantry new from an installed @gantry/cli (no checkout): gives the commands from a clone', async () => {
    // The CLI as npx would install it: its package outside any checkout, its dependencies beside it.
    const cli = join(work, 'node_modules', '@gantry', 'cli');
    mkdirSync(cli, { recursive: true });
    for (const entry of ['dist', 'templates', 'package.json', 'register.js']) {
      cpSync(join(REPO, 'packages/cli', entry), join(cli, entry), { recursive: true });
    }
    symlinkSync(join(REPO, 'node_modules'), join(cli, 'node_modules'));
    const dir = join(work, 'weather');
    const child = spawn(process.execPath, [join(cli, 'dist/main.js'), 'new', dir, '--transport', 'http'], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((done) => child.once('close', done));
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toBe(
      [
        'gantry: @gantry/* is not published on the npm registry yet (npm view @gantry/core@^0.1.0: E404), ' +
          'so a project that gets it from there cannot install. Nothing was written.',
        'Create the project from a Gantry checkout, which packs them into the project (vendor/):',
        '  git clone <the Gantry repository> gantry',
        '  cd gantry && npm ci && npm run build',
        `  npm run gantry -- new ${dir} --name weather --transport http`,
        '',
      ].join('\n'),
    );
    expect(readdirSync(work)).toEqual(['node_modules']);
  });

  it('gantry add, in a project that gets @gantry/* from the registry: refused, nothing changed', async () => {
    const dir = join(work, 'demo');
    expect((await gantry('new', dir, '--no-link', '--no-git', '--no-install')).code).toBe(ExitCode.Ok);
    const before = readFileSync(join(dir, 'package.json'), 'utf8');
    const cwd = process.cwd();
    process.chdir(dir);
    let result: Awaited<ReturnType<typeof gantry>>;
    try {
      result = await gantry('add', 'http');
    } finally {
      process.chdir(cwd);
    }
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toMatch(
      /^gantry: @gantry\/\* is not published on the npm registry yet, and this project gets it from there \(package.json: "@gantry\/core": "\^0\.1\.0"\), so it cannot install; nothing was changed\./,
    );
    expect(result.stderr).toContain('  npm run gantry -- new <new directory> --name demo\n');
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(before);
    expect(readdirSync(join(dir, 'src'))).not.toContain('serve-http.ts');
  });
});
