import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from '@swc/core';
import { inspectorLaunch } from '../src/dev/inspector-launch';
import { describeSwcSyntaxError } from '../src/dev/swc-syntax-error';
import { findWatchRoots, readTsconfig } from '../src/dev/watch-roots';

describe('gantry dev --inspect <url>: the Inspector command line', () => {
  it('connects the Inspector to the URL and prints a deep link that connects at once', () => {
    const launch = inspectorLaunch({
      target: { kind: 'url', url: 'http://127.0.0.1:3000/mcp' },
      env: {},
      token: 'abc123',
    });
    expect(launch).toEqual({
      command: 'npx',
      args: [
        '-y',
        '@modelcontextprotocol/inspector@2',
        '--transport',
        'http',
        '--server-url',
        'http://127.0.0.1:3000/mcp',
      ],
      env: { MCP_INSPECTOR_API_TOKEN: 'abc123', CLIENT_PORT: '6274' },
      url:
        'http://localhost:6274/?MCP_INSPECTOR_API_TOKEN=abc123' +
        '&serverUrl=http%3A%2F%2F127.0.0.1%3A3000%2Fmcp&transport=http&autoConnect=abc123',
    });
  });

  it('honours GANTRY_INSPECTOR (another command) and CLIENT_PORT (the Inspector’s port)', () => {
    const launch = inspectorLaunch({
      target: { kind: 'stdio', command: 'node', args: ['server.js'] },
      env: { GANTRY_INSPECTOR: 'mcp-inspector --web', CLIENT_PORT: '8080' },
      token: 't',
    });
    expect([launch.command, ...launch.args]).toEqual(['mcp-inspector', '--web', '--', 'node', 'server.js']);
    expect(launch.url).toBe('http://localhost:8080/?MCP_INSPECTOR_API_TOKEN=t');
  });
});

describe('swc syntax errors as a code frame', () => {
  function frameOf(source: string): string | undefined {
    try {
      transformSync(source, { filename: '/p/src/a.ts', jsc: { parser: { syntax: 'typescript' } } });
    } catch (error) {
      return describeSwcSyntaxError(error, '/p/src/a.ts', source, '/p');
    }
    throw new Error('expected a syntax error');
  }

  it('counts a tab as one column, though swc displays it as four spaces', () => {
    expect(frameOf('class X {\n\tm() {\n\t\treturn 1 +;\n\t}\n}\n')).toBe(
      [
        'src/a.ts:3:13: syntax error: Expression expected',
        '  1 | class X {',
        '  2 | \tm() {',
        '> 3 | \t\treturn 1 +;',
        '    | \t\t          ^',
        '  4 | \t}',
        '  5 | }',
        '',
      ].join('\n'),
    );
  });

  it('leaves errors that are not syntax errors to their own message', () => {
    expect(describeSwcSyntaxError(new Error('cannot read .swcrc'), '/p/a.ts', '', '/p')).toBeUndefined();
  });
});

describe('what gantry dev watches', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-roots-'));
    for (const sub of ['src', 'src/tools', 'lib', 'test']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), '');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("watches the entry's directory and the static part of each tsconfig include, nested ones folded", () => {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      '{\n  // comments and trailing commas, as tsc allows\n  "include": ["src/**/*", "src/tools", "lib/*.ts", "missing",],\n}\n',
    );
    expect(findWatchRoots(join(dir, 'src', 'main.ts'))).toEqual({
      directories: [join(dir, 'lib'), join(dir, 'src')],
      tsconfig: join(dir, 'tsconfig.json'),
    });
  });

  it('watches the whole project when the tsconfig has no include, as tsc compiles it all', () => {
    writeFileSync(join(dir, 'tsconfig.json'), '{ "compilerOptions": { "outDir": "dist" } }');
    expect(findWatchRoots(join(dir, 'src', 'main.ts')).directories).toEqual([dir]);
  });

  it('reads a tsconfig as JSON with comments, leaving strings as they are', () => {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      '{\n  /* the build */ "compilerOptions": { "outDir": "out,}", },\n  "include": ["src/**/*",], // sources\n}\n',
    );
    expect(readTsconfig(join(dir, 'tsconfig.json'))).toEqual({
      compilerOptions: { outDir: 'out,}' },
      include: ['src/**/*'],
    });
  });

  it('reads a tsconfig that does not parse as {}, so the whole project is watched', () => {
    writeFileSync(join(dir, 'tsconfig.json'), '{ "include": ["lib"');
    expect(readTsconfig(join(dir, 'tsconfig.json'))).toEqual({});
    expect(findWatchRoots(join(dir, 'src', 'main.ts')).directories).toEqual([dir]);
  });
});
