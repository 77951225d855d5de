// The Dockerfile `gantry new --transport http` writes, linted with a small parser (Docker is not
// run here): stages, user, probes, the command, and every file it copies from the context.
// Instructions per https://docs.docker.com/reference/dockerfile/.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { http } from '@gantry/fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { ExitCode } from '../src/exit-codes';
import { runInProcess } from './support/run-in-process';

interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** Instructions grouped by stage; `\` continues a line, `#` starts a comment line. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let logical = lines[i];
    while (logical.endsWith('\\') && i + 1 < lines.length) logical = `${logical.slice(0, -1)} ${lines[++i]}`;
    const trimmed = logical.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(trimmed);
    if (!match) throw new Error(`line ${start + 1}: not an instruction: ${JSON.stringify(trimmed)}`);
    const instruction = { keyword: match[1].toUpperCase(), args: match[2].trim(), line: start + 1 };
    if (instruction.keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!from) throw new Error(`line ${start + 1}: bad FROM: ${instruction.args}`);
      stages.push({ image: from[1], name: from[2], instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`line ${start + 1}: ${instruction.keyword} before any FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

/** COPY's flags, sources and destination (shell form only; the generated file uses no JSON form). */
function copyParts(args: string): { from?: string; sources: string[]; destination: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' };
}

/** Whether a COPY source (a path, or a `*` pattern in its last segment) matches something in `dir`. */
function sourceExists(dir: string, source: string): boolean {
  if (!source.includes('*')) return existsSync(join(dir, source));
  const folder = posix.dirname(source);
  const pattern = new RegExp(`^${posix.basename(source).replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
  return readdirSync(join(dir, folder)).some((entry) => pattern.test(entry));
}

/** ENV `KEY=value` pairs of a stage. */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of all(stage, 'ENV')) {
    for (const pair of args.split(/\s+/)) {
      const [key, ...value] = pair.split('=');
      env[key] = value.join('=');
    }
  }
  return env;
}

/** The absolute path `path` names inside a stage whose WORKDIR is `workdir`. */
const inside = (workdir: string, path: string) => posix.normalize(posix.join(workdir, path));

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'gantry-docker-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

async function scaffold(name: string, ...flags: string[]): Promise<string> {
  const dir = join(work, name);
  const result = await runInProcess([
    'new',
    dir,
    '--transport',
    'http',
    '--no-install',
    '--no-git',
    ...flags,
  ]);
  expect(result.code).toBe(ExitCode.Ok);
  return dir;
}

/** Every check on a scaffolded project's Dockerfile; returns the stages for more. */
function lint(dir: string): Stage[] {
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  const stages = parseDockerfile(read('Dockerfile'));
  expect(stages.length).toBeGreaterThanOrEqual(2);
  for (const stage of stages) expect(stage.name).toMatch(/^[a-z][a-z0-9-]*$/);
  const build = stages[0];
  const runtime = stages.at(-1) as Stage;
  expect(runtime.image).toBe('node:20-slim');

  // The build stage compiles with the project's own build script.
  const manifest = JSON.parse(read('package.json'));
  const outDir = JSON.parse(read('tsconfig.json')).compilerOptions.outDir as string;
  expect(manifest.scripts.build).toBeDefined();
  expect(all(build, 'RUN').map((r) => r.args)).toEqual(expect.arrayContaining(['npm ci', 'npm run build']));

  // Installs are reproducible: `npm ci` everywhere, never `npm install`.
  for (const stage of stages)
    for (const run of all(stage, 'RUN')) expect(run.args).not.toMatch(/\bnpm\s+(install|i)\b/);
  expect(all(runtime, 'RUN').some((r) => /^npm ci --omit=dev\b/.test(r.args))).toBe(true);
  expect(envOf(runtime).NODE_ENV).toBe('production');

  // Every COPY from the build context names files the project has.
  for (const stage of stages) {
    for (const copy of all(stage, 'COPY')) {
      const { from, sources } = copyParts(copy.args);
      if (from !== undefined) continue;
      for (const source of sources) {
        expect([source, sourceExists(dir, source)]).toEqual([source, true]);
      }
    }
  }

  // The runtime stage takes the compiled output from the build stage, and runs it.
  const workdir = (stage: Stage) => all(stage, 'WORKDIR').at(-1)?.args ?? '/';
  const fromBuild = all(runtime, 'COPY')
    .map((c) => copyParts(c.args))
    .filter((c) => c.from === build.name);
  expect(fromBuild).toHaveLength(1);
  expect(fromBuild[0].sources).toEqual([inside(workdir(build), outDir)]);
  const copiedTo = inside(workdir(runtime), fromBuild[0].destination);

  const [cmd, ...extra] = all(runtime, 'CMD');
  expect(extra).toEqual([]);
  // Exec form (a JSON array): no shell in between, so node is PID 1 and receives SIGTERM itself.
  const argv = JSON.parse(cmd.args) as string[];
  expect(argv[0]).toBe('node');
  expect(argv[1]).toBe(manifest.main);
  expect(inside(workdir(runtime), argv[1])).toBe(posix.join(copiedTo, 'main.js'));
  expect(manifest.scripts.start).toBe(`node ${manifest.main}`);

  // Not root: USER names someone else, after which nothing runs as root.
  const users = all(runtime, 'USER');
  expect(users).toHaveLength(1);
  expect(users[0].args).not.toMatch(/^(root|0)(:|$)/);
  expect(
    runtime.instructions.slice(runtime.instructions.indexOf(users[0])).map((i) => i.keyword),
  ).not.toContain('RUN');

  // The server listens where EXPOSE and the health check say: src/main.ts reads HOST and PORT.
  const main = read('src/main.ts');
  expect(main).toContain('host: process.env.HOST');
  expect(main).toContain('port: Number(process.env.PORT');
  const env = envOf(runtime);
  expect(env.HOST).toBe('0.0.0.0');
  const [expose] = all(runtime, 'EXPOSE');
  expect(expose.args).toBe(env.PORT);
  const [healthcheck] = all(runtime, 'HEALTHCHECK');
  expect(healthcheck.args).toMatch(/\bCMD node -e "fetch\('http:\/\/127\.0\.0\.1:(\d+)\/healthz'\)/);
  expect(/127\.0\.0\.1:(\d+)/.exec(healthcheck.args)?.[1]).toBe(env.PORT);
  expect(all(runtime, 'STOPSIGNAL').map((s) => s.args)).toEqual(['SIGTERM']);

  // What the host built or installed stays out of the context.
  const ignored = read('.dockerignore').split('\n');
  expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist']));
  return stages;
}

describe('the Dockerfile of gantry new --transport http', () => {
  it('from the registry: two stages, non-root, probes, exec-form command', async () => {
    const dir = await scaffold('weather', '--no-link');
    const stages = lint(dir);
    // Nothing vendored: the packages come from the registry.
    for (const stage of stages)
      for (const copy of all(stage, 'COPY')) expect(copyParts(copy.args).sources).not.toContain('vendor');
  });

  it('from a checkout: vendor/ is copied before npm ci in both stages', async () => {
    const dir = await scaffold('linked');
    const stages = lint(dir);
    expect(readdirSync(join(dir, 'vendor')).length).toBeGreaterThan(0);
    for (const stage of [stages[0], stages.at(-1) as Stage]) {
      const keywords = stage.instructions.map((i) => `${i.keyword} ${i.args}`);
      const vendor = keywords.indexOf('COPY vendor ./vendor');
      expect(vendor).toBeGreaterThanOrEqual(0);
      expect(vendor).toBeLessThan(keywords.findIndex((k) => k.startsWith('RUN npm ci')));
    }
  });

  it('a stdio project gets none: nothing listens on a port', async () => {
    const dir = join(work, 'local');
    expect((await runInProcess(['new', dir, '--no-install', '--no-git', '--no-link'])).code).toBe(
      ExitCode.Ok,
    );
    expect(existsSync(join(dir, 'Dockerfile'))).toBe(false);
    expect(existsSync(join(dir, '.dockerignore'))).toBe(false);
  });
});

/** Runs a HEALTHCHECK's `CMD` as Docker does (`/bin/sh -c`); resolves with its exit code. */
function runHealthcheck(command: string): Promise<number> {
  return new Promise((done) => {
    execFile('/bin/sh', ['-c', command], (error) => done(error ? Number(error.code ?? 1) : 0));
  });
}

describe('the health check command', () => {
  it('passes while http() serves /healthz, and fails once the server is gone', async () => {
    const dir = await scaffold('weather', '--no-link');
    const runtime = parseDockerfile(readFileSync(join(dir, 'Dockerfile'), 'utf8')).at(-1) as Stage;
    const [healthcheck] = all(runtime, 'HEALTHCHECK');
    const command = healthcheck.args.replace(/^.*?\bCMD /, '');
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {} });
    await app.listen(listener);
    const { port } = new URL(listener.url as string);
    // The image's port is 3000; here the listener has a free one.
    const probe = command.replace('127.0.0.1:3000', `127.0.0.1:${port}`);
    expect(probe).not.toBe(command);
    try {
      expect(await runHealthcheck(probe)).toBe(0);
    } finally {
      await app.close();
    }
    expect(await runHealthcheck(probe)).toBe(1);
  });
});

describe('docs/deploy.md', () => {
  it('shows the Dockerfile gantry new writes for a registry project', async () => {
    const dir = await scaffold('weather', '--no-link');
    const page = readFileSync(join(__dirname, '../../../docs/deploy.md'), 'utf8');
    const blocks = [...page.matchAll(/^```dockerfile\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks).toEqual([readFileSync(join(dir, 'Dockerfile'), 'utf8')]);
  });
});

describe('the Dockerfile parser', () => {
  it('refuses a line that is no instruction, and instructions before FROM', () => {
    expect(() => parseDockerfile('FROM node AS a\n!!\n')).toThrow(/line 2: not an instruction/);
    expect(() => parseDockerfile('RUN true\n')).toThrow(/line 1: RUN before any FROM/);
  });
});
