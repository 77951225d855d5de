import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CliError } from '../src/cli-error';
import { ExitCode } from '../src/exit-codes';
import { createProject, type NewProjectOptions } from '../src/scaffold/create-project';
import { initGit } from '../src/scaffold/git-init';
import { packageNameProblem, toPackageName } from '../src/scaffold/package-name';
import { plainReporter } from '../src/scaffold/reporter';
import type { RunCommand } from '../src/scaffold/run-command';
import {
  HTTP_DEPENDENCIES,
  HTTP_OVERRIDES,
  PROJECT_DEPENDENCIES,
  PROJECT_DEV_DEPENDENCIES,
  WS_DEPENDENCIES,
} from '../src/scaffold/versions';
import { runInProcess } from './support/run-in-process';

const REPO = resolve(__dirname, '../../..');

const gantry = (...args: string[]) => runInProcess(args);

/** Every file under `dir`, relative, sorted (`node_modules` and `.git` left out). */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((file) => !file.startsWith('node_modules') && !file.startsWith('.git/'))
    .sort();
}

const read = (...path: string[]) => readFileSync(join(...path), 'utf8');

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'gantry-new-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const PROJECT_FILES = [
  '.gitignore',
  '.swcrc',
  'README.md',
  'jest.config.ts',
  'package.json',
  'src/app.module.ts',
  'src/greeter.prompt.ts',
  'src/greeter.resource.ts',
  'src/greeter.tool.ts',
  'src/greeting.service.ts',
  'src/main.ts',
  'test/app.spec.ts',
  'test/tsconfig.json',
  'tsconfig.json',
];

describe('gantry new, stdio, from the registry', () => {
  it('writes a complete project with the name substituted', async () => {
    const dir = join(work, 'my-server');
    const result = await gantry('new', dir, '--no-install', '--no-git', '--no-link');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(ExitCode.Ok);
    expect(filesUnder(dir)).toEqual(PROJECT_FILES);
    for (const file of PROJECT_FILES) expect(read(dir, file)).not.toContain('{{');
    // Nothing left beside it: the temporary directory was renamed into place.
    expect(readdirSync(work)).toEqual(['my-server']);

    const manifest = JSON.parse(read(dir, 'package.json'));
    expect(manifest).toEqual({
      name: 'my-server',
      version: '0.1.0',
      private: true,
      description: 'An MCP server built with Gantry',
      main: 'dist/main.js',
      scripts: {
        build: 'tsc -p tsconfig.json',
        start: 'node dist/main.js',
        dev: 'gantry dev src/main.ts',
        test: 'jest',
        typecheck: 'tsc -p test/tsconfig.json',
      },
      engines: { node: '>=20.19' },
      dependencies: {
        '@gantry/core': '^0.1.0',
        'class-transformer': '^0.5.1',
        'class-validator': '^0.15.1',
        'reflect-metadata': '^0.2.2',
      },
      devDependencies: {
        '@gantry/cli': '^0.1.0',
        '@gantry/client': '^0.1.0',
        '@gantry/testing': '^0.1.0',
        '@swc/core': '1.16.22',
        '@swc/jest': '0.2.39',
        '@types/jest': '30.0.0',
        '@types/node': '^20.19.0',
        esbuild: '0.28.2',
        'esbuild-register': '3.6.0',
        jest: '30.5.2',
        typescript: '6.0.3',
      },
    });

    const main = read(dir, 'src/main.ts');
    expect(main).toContain("GantryFactory.create(AppModule, { name: 'my-server', version: '0.1.0' })");
    expect(main).toContain('await app.listen(stdio());');
    expect(main).not.toContain('@gantry/fastify');

    const tsconfig = JSON.parse(read(dir, 'tsconfig.json')).compilerOptions;
    expect(tsconfig).toMatchObject({
      module: 'node20',
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      types: ['node', 'jest'],
      rootDir: 'src',
      outDir: 'dist',
    });
    expect(JSON.parse(read(dir, '.swcrc')).jsc.transform).toEqual({
      legacyDecorator: true,
      decoratorMetadata: true,
    });
    expect(read(dir, 'jest.config.ts')).toMatch(/^\/\*\* @jest-config-loader esbuild-register \*\/\n/);
    expect(read(dir, '.gitignore').split('\n')).toEqual(expect.arrayContaining(['node_modules/', 'dist/']));
    expect(read(dir, 'test/app.spec.ts')).toContain(
      'Test.createTestingModule({ imports: [AppModule] }).compile()',
    );
    expect(read(dir, 'src/app.module.ts')).toContain(
      'providers: [GreetingService, GreeterTool, GreeterResource, GreeterPrompt]',
    );
  });

  it('puts the exact client configurations for stdio in the README', async () => {
    const dir = join(work, 'my-server');
    await gantry('new', dir, '--no-install', '--no-git', '--no-link');
    const readme = read(dir, 'README.md');
    const entry = join(dir, 'dist/main.js');
    expect(readme).toMatch(/^# my-server\n/);
    expect(readme).toContain(`claude mcp add my-server -- node ${entry}\n`);
    expect(readme).toContain(`npx @modelcontextprotocol/inspector node ${entry}\n`);
    const snippets = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]));
    expect(snippets).toEqual([
      { mcpServers: { 'my-server': { type: 'stdio', command: 'node', args: [entry] } } },
      { mcpServers: { 'my-server': { command: 'node', args: [entry] } } },
    ]);
    expect(readme).toContain('claude_desktop_config.json');
    expect(readme).toContain('.mcp.json');
  });

  it('ends with the next steps', async () => {
    const dir = join(work, 'my-server');
    const { stdout } = await gantry('new', dir, '--no-install', '--no-git', '--no-link');
    expect(stdout).toContain(
      `Creating my-server in ${dir} (stdio transport, @gantry/* ^0.1.0 from the npm registry)\n`,
    );
    expect(stdout).toContain(`Created my-server in ${dir}: 14 files\n`);
    expect(stdout).toContain(
      [
        'Next steps:',
        `  cd ${dir}`,
        '  npm install              install the dependencies',
        '  npm test                 run the tests (in memory: no process, no port)',
        '  npm run build            compile to dist/, which clients run',
      ].join('\n'),
    );
    expect(stdout).toContain(
      '  npx gantry install claude-code      (or claude-desktop, cursor, vscode, gemini-cli, goose)\n',
    );
    expect(stdout).toContain(`  claude mcp add my-server -- node ${join(dir, 'dist/main.js')}\n`);
  });
});

describe('gantry new --transport http', () => {
  it('serves Streamable HTTP on $PORT, with @gantry/fastify and the light-my-request override', async () => {
    const dir = join(work, 'weather');
    const result = await gantry(
      'new',
      dir,
      '--transport',
      'http',
      '--name',
      '@acme/weather',
      '--no-install',
      '--no-git',
      '--no-link',
    );
    expect(result.code).toBe(ExitCode.Ok);
    // An HTTP server also gets a Dockerfile (linted in dockerfile.int.spec.ts).
    expect(filesUnder(dir)).toEqual(['.dockerignore', 'Dockerfile', ...PROJECT_FILES].sort());

    const manifest = JSON.parse(read(dir, 'package.json'));
    expect(manifest.name).toBe('@acme/weather');
    expect(manifest.dependencies).toEqual({
      '@gantry/core': '^0.1.0',
      '@gantry/fastify': '^0.1.0',
      'class-transformer': '^0.5.1',
      'class-validator': '^0.15.1',
      fastify: '^5.12.8',
      'reflect-metadata': '^0.2.2',
    });
    expect(manifest.overrides).toEqual({ 'light-my-request': '6.6.0' });

    const main = read(dir, 'src/main.ts');
    expect(main).toContain("import { http } from '@gantry/fastify';");
    expect(main).toContain('port: Number(process.env.PORT ?? 3000),');
    expect(main).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the template literal in the generated main.ts
      'onListening: (url) => process.stderr.write(`weather is serving MCP on ${url}\\n`),',
    );
    expect(main).not.toContain('stdio()');

    const readme = read(dir, 'README.md');
    expect(readme).toMatch(/^# @acme\/weather\n/);
    expect(readme).toContain('claude mcp add --transport http weather http://127.0.0.1:3000/mcp\n');
    const snippets = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]));
    expect(snippets).toEqual([
      { mcpServers: { weather: { type: 'http', url: 'http://127.0.0.1:3000/mcp' } } },
      {
        mcpServers: { weather: { command: 'npx', args: ['-y', 'mcp-remote', 'http://127.0.0.1:3000/mcp'] } },
      },
    ]);
    expect(readme).toContain('"Streamable HTTP"');
    expect(result.stdout).toContain('  npx gantry install claude-code --url http://127.0.0.1:3000/mcp\n');
    expect(result.stdout).toContain('  claude mcp add --transport http weather http://127.0.0.1:3000/mcp\n');
  });
});

describe('gantry new from a Gantry checkout', () => {
  // Jest runs the CLI from packages/cli/src of this checkout, which is what is detected.
  it('packs every workspace package into vendor/ and depends on the tarballs, with overrides', async () => {
    const dir = join(work, 'linked');
    const result = await gantry('new', dir, '--transport', 'http', '--no-install', '--no-git');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(ExitCode.Ok);
    expect(result.stdout).toContain(`(http transport, @gantry/* packed from the checkout at ${REPO})`);
    const tarball = (pkg: string) => `file:vendor/gantry-${pkg}-0.1.0.tgz`;
    // Every package, not only those of the transport: nothing is published, so gantry add
    // can only wire in what is there.
    expect(readdirSync(join(dir, 'vendor')).sort()).toEqual(
      ['cli', 'client', 'core', 'fastify', 'protocol', 'testing', 'ws'].map(
        (pkg) => `gantry-${pkg}-0.1.0.tgz`,
      ),
    );
    expect(result.stdout).toContain('Packed 7 packages into vendor/');
    const manifest = JSON.parse(read(dir, 'package.json'));
    expect(manifest.dependencies['@gantry/core']).toBe(tarball('core'));
    expect(manifest.dependencies['@gantry/fastify']).toBe(tarball('fastify'));
    expect(manifest.devDependencies['@gantry/cli']).toBe(tarball('cli'));
    expect(manifest.overrides).toEqual({
      '@gantry/cli': tarball('cli'),
      '@gantry/client': tarball('client'),
      '@gantry/core': tarball('core'),
      '@gantry/fastify': tarball('fastify'),
      '@gantry/protocol': tarball('protocol'),
      '@gantry/testing': tarball('testing'),
      '@gantry/ws': tarball('ws'),
      'light-my-request': '6.6.0',
    });
  }, 180_000);

  it('--link refuses a directory that is not a checkout', async () => {
    const result = await gantry('new', join(work, 'x'), '--link', work, '--no-install', '--no-git');
    expect(result).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: `gantry: --link ${work}: not a Gantry checkout (no package.json named "gantry-monorepo" in ${work})\n`,
    });
    expect(readdirSync(work)).toEqual([]);
  });
});

describe('gantry new refuses', () => {
  it('a non-empty directory, unless --force', async () => {
    const dir = join(work, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const result = await gantry('new', dir, '--no-install', '--no-git', '--no-link');
    expect(result).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr:
        `gantry: ${dir} is not empty (notes.txt); choose a new directory, or pass --force to write the ` +
        'project into it (files with the same names are replaced, other files are kept)\n',
    });
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(readdirSync(work)).toEqual(['taken']);
  });

  it('nothing with --force: the project is merged in, other files kept', async () => {
    const dir = join(work, 'taken');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    writeFileSync(join(dir, 'src', 'extra.ts'), 'export const extra = 1;\n');
    writeFileSync(join(dir, 'README.md'), 'old readme');
    const result = await gantry('new', dir, '--force', '--no-install', '--no-git', '--no-link');
    expect(result.code).toBe(ExitCode.Ok);
    expect(filesUnder(dir)).toEqual([...PROJECT_FILES, 'notes.txt', 'src/extra.ts'].sort());
    expect(read(dir, 'notes.txt')).toBe('mine');
    expect(read(dir, 'README.md')).toMatch(/^# taken\n/);
    expect(readdirSync(work)).toEqual(['taken']);
  });

  it('an empty directory is fine', async () => {
    const dir = join(work, 'empty');
    mkdirSync(dir);
    const inode = statSync(dir).ino;
    expect((await gantry('new', dir, '--no-install', '--no-git', '--no-link')).code).toBe(ExitCode.Ok);
    expect(filesUnder(dir)).toEqual(PROJECT_FILES);
    // Filled, not replaced: a shell inside it (`gantry new .`) is still in the project.
    expect(statSync(dir).ino).toBe(inode);
  });

  it.each([
    ['Bad', 'npm package names must not contain capital letters', 'bad'],
    ['.hidden', "npm package names must not start with '.' or '_'", 'hidden'],
    [
      'my server',
      'npm package names must contain only URL-safe characters (letters, digits, - . _)',
      'my-server',
    ],
    ['fs', 'npm package names must not be the name of a Node.js core module', 'mcp-server'],
    ['@acme', 'scoped npm package names have the form @scope/name', 'acme'],
  ])('an invalid --name %j, naming the rule', async (name, rule, suggestion) => {
    const result = await gantry(
      'new',
      join(work, 'x'),
      '--name',
      name,
      '--no-install',
      '--no-git',
      '--no-link',
    );
    expect(result).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: `gantry: invalid project name "${name}": ${rule}; pass a valid name with --name, e.g. --name ${suggestion}\n`,
    });
    expect(readdirSync(work)).toEqual([]);
  });

  it('a directory whose name is not a package name, without --name', async () => {
    const result = await gantry('new', join(work, 'My Server'), '--no-install', '--no-git', '--no-link');
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toBe(
      'gantry: invalid project name "My Server" (taken from the directory name): npm package names must not ' +
        'contain capital letters; pass a valid name with --name, e.g. --name my-server\n',
    );
    expect(
      (
        await gantry(
          'new',
          join(work, 'My Server'),
          '--name',
          'my-server',
          '--no-install',
          '--no-git',
          '--no-link',
        )
      ).code,
    ).toBe(ExitCode.Ok);
    expect(JSON.parse(read(work, 'My Server', 'package.json')).name).toBe('my-server');
  });

  it('an unknown transport or package manager', async () => {
    expect(await gantry('new', join(work, 'x'), '--transport', 'ws', '--no-link')).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: 'gantry: --transport ws: choose stdio or http\n',
    });
    expect((await gantry('new', join(work, 'x'), '--package-manager', 'pnpm', '--no-link')).stderr).toBe(
      'gantry: --package-manager pnpm: only npm is supported for now\n',
    );
    expect(readdirSync(work)).toEqual([]);
  });
});

describe('a failure half way', () => {
  const options = (directory: string): NewProjectOptions => ({
    directory,
    name: 'half',
    transport: 'stdio',
    install: true,
    git: false,
    force: false,
    source: { kind: 'registry', range: '^0.1.0' },
  });
  const quiet = plainReporter(() => {});

  /** npm as the registry would answer it: `npm view` finds @gantry/core, `npm install` gives `install`. */
  const npm =
    (install: { code: number; output: string }, calls: string[] = []): RunCommand =>
    async (command, args, { cwd }) => {
      calls.push(`${command} ${args.join(' ')}`);
      if (args[0] === 'view') return { code: 0, stdout: '"0.1.0"\n', output: '"0.1.0"\n' };
      // The files are all there, in the temporary directory beside the target, when npm installs.
      expect(existsSync(join(cwd, 'src', 'main.ts'))).toBe(true);
      expect(cwd.startsWith(join(work, '.half.gantry-'))).toBe(true);
      return { ...install, stdout: '' };
    };

  it('removes the temporary directory and leaves no project when npm install fails', async () => {
    const calls: string[] = [];
    const failing = npm({ code: 1, output: 'npm error code ECONNRESET\nnpm error network aborted\n' }, calls);
    const failure = createProject(options(join(work, 'half')), quiet, failing);
    await expect(failure).rejects.toThrow(CliError);
    // From the registry, --no-install is not offered: the project installs from nowhere else.
    await expect(failure).rejects.toThrow(
      'npm install failed (exit code 1); nothing was written. Its output ends with:\n' +
        '  npm error code ECONNRESET\n  npm error network aborted\n' +
        'Fix the cause and run gantry new again.',
    );
    expect(calls).toEqual([
      'npm view @gantry/core@^0.1.0 version --json',
      'npm install --no-audit --no-fund',
    ]);
    expect(readdirSync(work)).toEqual([]);
  });

  it('says @gantry/* is not published when npm install ends in its 404', async () => {
    const notFound = npm({
      code: 1,
      output:
        'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@gantry%2fcore\n',
    });
    const failure = createProject(options(join(work, 'half')), quiet, notFound);
    await expect(failure).rejects.toThrow(
      /^@gantry\/\* is not published on the npm registry yet \(npm view @gantry\/core@\^0\.1\.0: E404\)/,
    );
    await expect(failure).rejects.not.toThrow('--no-install');
    expect(readdirSync(work)).toEqual([]);
  });

  it('leaves an existing directory as it was with --force', async () => {
    const dir = join(work, 'half');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep.txt'), 'keep');
    const crash: RunCommand = async () => {
      throw new Error('spawn npm ENOENT');
    };
    await expect(createProject({ ...options(dir), force: true }, quiet, crash)).rejects.toThrow(
      'could not run npm: spawn npm ENOENT',
    );
    expect(readdirSync(work)).toEqual(['half']);
    expect(readdirSync(dir)).toEqual(['keep.txt']);
  });
});

describe('git', () => {
  const fakeGit =
    (answers: Record<string, { code: number; stdout?: string; output?: string }>): RunCommand =>
    async (_command, args) => {
      const answer = answers[args[0]] ?? { code: 0 };
      return { code: answer.code, stdout: answer.stdout ?? '', output: answer.output ?? '' };
    };

  it('makes a repository with a first commit', async () => {
    const dir = join(work, 'repo');
    const previous = { ...process.env };
    // A git identity, so that the commit works on machines without one.
    Object.assign(process.env, {
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    });
    try {
      const result = await gantry('new', dir, '--no-install', '--no-link');
      expect(result.code).toBe(ExitCode.Ok);
      expect(result.stdout).toContain('Initialized a git repository with a first commit\n');
    } finally {
      process.env = previous;
    }
    expect(existsSync(join(dir, '.git', 'HEAD'))).toBe(true);
  });

  it('says so, and goes on, when git is missing or cannot commit', async () => {
    const missing: RunCommand = async () => {
      throw Object.assign(new Error('spawn git ENOENT'), { code: 'ENOENT' });
    };
    expect(await initGit(work, missing)).toEqual({ kind: 'skipped', reason: 'git is not installed' });
    expect(await initGit(work, fakeGit({ 'rev-parse': { code: 0, stdout: 'true\n' } }))).toEqual({
      kind: 'skipped',
      reason: 'the directory is inside a git repository already',
    });
    const noIdentity = fakeGit({
      'rev-parse': { code: 128, output: 'fatal: not a git repository' },
      commit: { code: 128, output: 'Author identity unknown\n\n*** Please tell me who you are.' },
    });
    expect(await initGit(work, noIdentity)).toEqual({
      kind: 'initialized',
      reason: 'no first commit: Author identity unknown',
    });
  });
});

describe('package names', () => {
  it.each(['my-server', '@acme/weather', 'a.b_c-1', 'x'])('accepts %j', (name) => {
    expect(packageNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'npm package names must not be empty'],
    [' x', 'npm package names must not start or end with spaces'],
    ['_x', "npm package names must not start with '.' or '_'"],
    ['a!', "npm package names must not contain any of ~ ' ! ( ) *"],
    ['@a/b/c', 'scoped npm package names have the form @scope/name'],
    ['a/b', 'npm package names must contain only URL-safe characters (letters, digits, - . _)'],
    ['node_modules', 'npm reserves the name "node_modules"'],
    ['http', 'npm package names must not be the name of a Node.js core module'],
  ])('refuses %j: %s', (name, problem) => {
    expect(packageNameProblem(name)).toBe(problem);
  });

  it('refuses names longer than 214 characters', () => {
    expect(packageNameProblem('x'.repeat(214))).toBeUndefined();
    expect(packageNameProblem('x'.repeat(215))).toBe('npm package names must be at most 214 characters long');
  });

  it('suggests a valid name from any text', () => {
    expect(toPackageName('My Server!')).toBe('my-server');
    expect(toPackageName('__Weather__App')).toBe('weather__app');
    expect(toPackageName('!!!')).toBe('mcp-server');
  });
});

describe('versions', () => {
  it('are the ones this repository builds and tests with', () => {
    const root = JSON.parse(read(REPO, 'package.json'));
    for (const [name, version] of Object.entries(PROJECT_DEV_DEPENDENCIES)) {
      expect([name, version]).toEqual([name, root.devDependencies[name]]);
    }
    for (const [name, range] of Object.entries({
      ...PROJECT_DEPENDENCIES,
      ...HTTP_DEPENDENCIES,
      ...WS_DEPENDENCIES,
    })) {
      expect([name, range]).toEqual([name, `^${root.devDependencies[name]}`]);
    }
    expect(HTTP_OVERRIDES).toEqual(root.overrides);
  });
});
