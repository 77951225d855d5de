// Every code block of the repository's README.md is checked here, so the first code a newcomer
// copies works. The ```ts blocks each name the file they are (```ts file=src/main.ts); they are
// written into a temporary project laid out and configured as `gantry new` makes one (its
// tsconfig, its .swcrc, CommonJS), type-checked, compiled, and run: the stdio and HTTP programs
// are started and called, and the Jest test runs here, as tests of this file. The ```sh blocks
// may only use npm scripts and `gantry` commands that exist.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Client, StdioClientTransport, StreamableHttpClientTransport } from '@gantry/client';
import { transformSync } from '@swc/core';
import ts from 'typescript';
import { createProgram as createGantryProgram } from '../../packages/cli/src/program';

const ROOT = resolve(__dirname, '..', '..');
const README = join(ROOT, 'README.md');
const SCAFFOLD = join(ROOT, 'packages', 'cli', 'templates', 'project');

interface CodeBlock {
  /** The language of the fence (`ts`, `sh`). */
  readonly language: string;
  /** What follows the language on the fence line (`file=src/main.ts`). */
  readonly info: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
}

/** The fenced blocks of a Markdown text, in order. */
function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)(.*)$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end === -1) throw new Error(`README.md:${i + 1}: the code block is never closed`);
    blocks.push({
      language: fence[1],
      info: fence[2].trim(),
      line: i + 1,
      code: lines.slice(i + 1, end).join('\n'),
    });
    i = end;
  }
  return blocks;
}

const blocks = codeBlocks(readFileSync(README, 'utf8'));

/** The ```ts blocks, by the project file each one is. */
const files = new Map<string, CodeBlock>();
for (const block of blocks.filter((b) => b.language === 'ts')) {
  const file = /^file=(\S+)$/.exec(block.info)?.[1];
  if (!file)
    throw new Error(`README.md:${block.line}: a \`\`\`ts block must name its file: \`\`\`ts file=src/…`);
  if (files.has(file)) throw new Error(`README.md:${block.line}: ${file} is given twice`);
  files.set(file, block);
}

/** A project as `gantry new` writes it, with node_modules linked to this checkout's. */
const project = mkdtempSync(join(tmpdir(), 'gantry-readme-'));
symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-example', private: true }));
for (const config of ['tsconfig.json', 'test/tsconfig.json', '_swcrc']) {
  const target = join(project, config.replace(/^_/, '.'));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, readFileSync(join(SCAFFOLD, config)));
}
for (const [file, block] of files) {
  mkdirSync(dirname(join(project, file)), { recursive: true });
  // Blank lines first, so a compiler's line numbers are the README's.
  writeFileSync(join(project, file), '\n'.repeat(block.line) + block.code);
}

afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Compiles the project's src/ to dist/ with its .swcrc, as `npm run build` would with tsc. */
function build(): void {
  const swcrc = JSON.parse(readFileSync(join(project, '.swcrc'), 'utf8'));
  delete swcrc.$schema;
  for (const file of [...files.keys()].filter((f) => f.startsWith('src/'))) {
    const { code } = transformSync(readFileSync(join(project, file), 'utf8'), {
      ...swcrc,
      filename: join(project, file),
      swcrc: false,
      configFile: false,
    });
    const out = join(project, 'dist', file.slice('src/'.length).replace(/\.ts$/, '.js'));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
  }
}

function readmeLine(file: string): string {
  return `README.md (${file}, block at line ${files.get(file)?.line})`;
}

describe('README.md', () => {
  it('starts with the two commands: start the example, run every test', () => {
    const first = blocks[0];
    expect(first.language).toBe('sh');
    expect(first.code.split('\n').map((line) => line.replace(/\s+#.*$/, ''))).toEqual([
      'npm ci && npm start',
      'npm ci && npm test',
    ]);
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    // Every project: unit in a run of its own (see jest.config.ts), then integration and e2e;
    // Debian's chromium (browser test) and redis-server (@gantry/redis) are installed first when
    // missing.
    expect(scripts.test).toBe(
      'tsc -b && node scripts/ensure-system-packages.js && jest --selectProjects unit && jest --selectProjects integration e2e',
    );
    expect(scripts.start).toMatch(/^tsc -b && node apps\/notes\/dist\/main\.js/);
  });

  it('has only ts and sh blocks, so none goes unchecked', () => {
    const unknown = blocks.filter((b) => b.language !== 'ts' && b.language !== 'sh');
    expect(unknown.map((b) => `README.md:${b.line}: \`\`\`${b.language}`)).toEqual([]);
    expect([...files.keys()].sort()).toEqual([
      'src/http.ts',
      'src/main.ts',
      'src/notes.module.ts',
      'test/notes.spec.ts',
    ]);
  });

  it('uses only npm scripts and gantry commands that exist in its sh blocks', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts);
    const commands = createGantryProgram().commands.map((command) => command.name());
    const unknown: string[] = [];
    for (const block of blocks.filter((b) => b.language === 'sh')) {
      for (const [, script] of block.code.matchAll(/\bnpm run ([\w:-]+)/g)) {
        if (!scripts.includes(script)) unknown.push(`npm run ${script}`);
      }
      for (const [, command] of block.code.matchAll(/\bgantry(?: --)? ([a-z]+)/g)) {
        if (!commands.includes(command)) unknown.push(`gantry ${command}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('links to docs pages and headings that exist', () => {
    const markdown = readFileSync(README, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
    const broken: string[] = [];
    for (const [, target] of markdown.matchAll(/\]\((docs\/[^)\s]+)\)/g)) {
      const [file, anchor] = target.split('#');
      let page: string;
      try {
        page = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        broken.push(target);
        continue;
      }
      const headings = (page.match(/^#{1,6} .+$/gm) ?? []).map((h) => anchorOf(h.replace(/^#+ /, '')));
      if (anchor !== undefined && !headings.includes(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });

  it('type-checks as a scaffolded project (strict, CommonJS)', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(project, 'test', 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('the scaffold tsconfig could not be read');
    const program = ts.createProgram(config.fileNames, config.options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return message;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `README.md:${line + 1} (${relative(project, d.file.fileName)}): ${message}`;
    });
    expect(problems).toEqual([]);
  });

  describe('run', () => {
    let server: ChildProcess | undefined;
    beforeAll(build);
    afterEach(async () => {
      if (server && server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await once(server, 'exit');
      }
      server = undefined;
    });

    it(`${readmeLine('src/main.ts')} serves search_notes over stdio and exits when stdin ends`, async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(project, 'dist', 'main.js')],
        cwd: project,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'readme-test', version: '1.0.0' });
      await client.connect(transport, { era: 'session' });
      expect(await client.callTool('search_notes', { query: 'Gantry' })).toEqual({
        content: [{ type: 'text', text: '[{"id":"1","title":"Gantry serves MCP"}]' }],
      });
      await client.close();
      expect({ code: transport.exitCode, signal: transport.signalCode }).toEqual({ code: 0, signal: null });
    });

    it(`${readmeLine('src/http.ts')} serves search_notes over Streamable HTTP on $PORT`, async () => {
      server = spawn(process.execPath, [join(project, 'dist', 'http.js')], {
        cwd: project,
        env: { ...process.env, PORT: '0' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const url = await new Promise<string>((found, failed) => {
        let stderr = '';
        server!.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          const match = /listening on (http:\/\/[^\s"]+)/.exec(stderr);
          if (match) found(match[1]);
        });
        server!.once('exit', (code) => failed(new Error(`src/http.ts exited with ${code}:\n${stderr}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = new Client({ name: 'readme-test', version: '1.0.0' });
      await client.connect(new StreamableHttpClientTransport({ url }));
      expect(await client.callTool('search_notes', { query: 'MCP' })).toEqual({
        content: [{ type: 'text', text: '[{"id":"1","title":"Gantry serves MCP"}]' }],
      });
      await client.close();
    });
  });

  // The README's own Jest test, run as tests of this file.
  describe(readmeLine('test/notes.spec.ts'), () => {
    require(join(project, 'test', 'notes.spec.ts'));
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}
