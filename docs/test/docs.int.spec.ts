// Every page in docs/ carries one runnable example (a fenced block opened with ```ts example).
// This spec extracts each one, compiles it as the repository compiles TypeScript (@swc/core with
// .swcrc: legacy decorators + decorator metadata), runs it in a fresh Node process from the
// repository root (so `@gantry/*` resolves to the built packages), and expects exit code 0.
// It also type-checks the examples against the built declarations, so a page cannot drift from
// the API without failing here.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { transformSync } from '@swc/core';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');
const DOCS = resolve(__dirname, '..');
const RUN_TIMEOUT_MS = 20_000;

/** What an example may import: the framework, its peers, and Node's own modules. */
const ALLOWED_IMPORT =
  /^(?:reflect-metadata|@gantry\/[a-z-]+|class-validator|class-transformer|fastify|node:[a-z/_]+)$/;

interface Example {
  /** The page, relative to the repository root (`docs/tools.md`). */
  readonly page: string;
  /** The TypeScript source, padded with blank lines so its line numbers are the page's. */
  readonly source: string;
}

const pages = readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .sort();

const swcOptions = (() => {
  const config = JSON.parse(readFileSync(join(ROOT, '.swcrc'), 'utf8'));
  delete config.$schema;
  return config;
})();

/** The ```ts example blocks of a page. */
function examplesOf(page: string): Example[] {
  const markdown = readFileSync(join(DOCS, page), 'utf8');
  const lines = markdown.split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts example\s*$/.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end === -1) throw new Error(`docs/${page}:${i + 1}: the example block is never closed`);
    // i + 1 blank lines: the first code line keeps its line number in the page.
    found.push({ page: `docs/${page}`, source: '\n'.repeat(i + 1) + lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return found;
}

function onlyExample(page: string): Example {
  const examples = examplesOf(page);
  if (examples.length !== 1) {
    throw new Error(
      `docs/${page} has ${examples.length} \`\`\`ts example blocks; each page needs exactly one`,
    );
  }
  return examples[0];
}

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom\s+|\bimport\s+|\brequire\(\s*)['"]([^'"]+)['"]/g)) {
    specifiers.push(match[1]);
  }
  return specifiers;
}

/**
 * The `node -e` program: compiles the example as a CommonJS module named after its page, so
 * `--enable-source-maps` maps stack traces to the page's own line numbers.
 */
const LOADER = `
const Module = require('node:module');
const [file, code] = process.argv.splice(1, 2);
const example = new Module(file, null);
example.filename = file;
example.paths = Module._nodeModulePaths(require('node:path').dirname(file));
example._compile(code, file);
`;

function run(example: Example): Promise<{ code: number | null; stderr: string }> {
  const file = join(ROOT, example.page);
  const { code } = transformSync(example.source, {
    ...swcOptions,
    filename: file,
    swcrc: false,
    configFile: false,
  });
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--enable-source-maps', '-e', LOADER, file, code],
      { cwd: ROOT, timeout: RUN_TIMEOUT_MS, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        if (!error) return done({ code: 0, stderr });
        const killed = error.killed ? `\n(killed after ${RUN_TIMEOUT_MS} ms)` : '';
        done({ code: typeof error.code === 'number' ? error.code : null, stderr: stderr + killed });
      },
    );
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('the pages', () => {
  it('are all listed in docs/README.md', () => {
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    const unlisted = pages.filter((page) => page !== 'README.md' && !index.includes(`](${page})`));
    expect(unlisted).toEqual([]);
  });

  it('link to pages and headings that exist', () => {
    const anchors = new Map(
      pages.map((page) => {
        const headings = readFileSync(join(DOCS, page), 'utf8').match(/^#{1,6} .+$/gm) ?? [];
        return [page, new Set(headings.map((h) => anchorOf(h.replace(/^#+ /, ''))))];
      }),
    );
    const broken: string[] = [];
    for (const page of pages) {
      const markdown = readFileSync(join(DOCS, page), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target) || target.startsWith('../')) continue;
        const [file, anchor] = target.split('#');
        const linked = file === '' ? page : file;
        if (!anchors.has(linked) || (anchor !== undefined && !anchors.get(linked)?.has(anchor))) {
          broken.push(`docs/${page}: ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the example of each page', () => {
  it.each(pages.filter((page) => page !== 'README.md'))(
    'docs/%s runs to completion with exit code 0',
    async (page) => {
      const example = onlyExample(page);
      const disallowed = importsOf(example.source).filter((s) => !ALLOWED_IMPORT.test(s));
      expect(disallowed).toEqual([]);
      const result = await run(example);
      if (result.code !== 0) {
        throw new Error(`docs/${page}: the example exited with ${result.code}\n${result.stderr}`);
      }
      expect(result.code).toBe(0);
    },
  );
});

describe('the examples', () => {
  it('type-check against the built packages (strict)', () => {
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node20,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    };
    // Each example becomes a virtual file beside its page, so module resolution starts in docs/.
    const virtual = new Map(
      pages
        .filter((page) => page !== 'README.md')
        .map((page) => [join(DOCS, `${page}.example.ts`), onlyExample(page).source]),
    );
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
    host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
    host.getSourceFile = (file, language, ...rest) => {
      const source = virtual.get(file);
      return source === undefined
        ? getSourceFile.call(host, file, language, ...rest)
        : ts.createSourceFile(file, source, language, true);
    };
    const program = ts.createProgram([...virtual.keys()], options, host);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return message;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${relative(ROOT, d.file.fileName).replace(/\.example\.ts$/, '')}:${line + 1}: ${message}`;
    });
    expect(problems).toEqual([]);
  });
});
