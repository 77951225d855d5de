import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../src/cli-error';
import { ExitCode } from '../src/exit-codes';
import {
  describeTarget,
  parseEnvAssignments,
  parseHeaders,
  parseTarget,
  schemelessUrl,
  splitCommandLine,
} from '../src/target';

/** The CliError `fn` throws, for its message and exit code. */
function failure(fn: () => unknown): CliError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected a CliError');
}

describe('splitCommandLine', () => {
  it('splits on blanks, collapsing runs of them', () => {
    expect(splitCommandLine('  node   dist/main.js\t--http \n --port 3000 ')).toEqual([
      'node',
      'dist/main.js',
      '--http',
      '--port',
      '3000',
    ]);
  });

  it('keeps single-quoted text literally, backslashes and double quotes included', () => {
    expect(splitCommandLine(`node -e 'console.log("a\\nb")'`)).toEqual([
      'node',
      '-e',
      'console.log("a\\nb")',
    ]);
  });

  it('joins quoted and unquoted parts of one word', () => {
    expect(splitCommandLine(`--name='a b'"c d"e`)).toEqual(['--name=a bc de']);
  });

  it('in double quotes, escapes only \\ " $ and backquote', () => {
    expect(splitCommandLine(String.raw`"a \" b \\ c \$ d \n e"`)).toEqual([String.raw`a " b \ c $ d \n e`]);
  });

  it('outside quotes, a backslash escapes any character, a blank included', () => {
    expect(splitCommandLine(String.raw`my\ server.js \'x\' \|`)).toEqual(['my server.js', "'x'", '|']);
  });

  it('drops a backslash-newline (line continuation)', () => {
    expect(splitCommandLine('node \\\nmain.js')).toEqual(['node', 'main.js']);
  });

  it('keeps empty quoted words', () => {
    expect(splitCommandLine(`node main.js '' ""`)).toEqual(['node', 'main.js', '', '']);
  });

  it('expands nothing: variables, globs and tildes stay as typed', () => {
    expect(splitCommandLine('node $HOME/*.js ~/x')).toEqual(['node', '$HOME/*.js', '~/x']);
  });

  it('refuses an unterminated quote, with exit code 2', () => {
    const single = failure(() => splitCommandLine(`node -e 'oops`));
    expect(single.exitCode).toBe(ExitCode.Usage);
    expect(single.message).toBe(`the target "node -e 'oops" has an unterminated single quote`);
    expect(failure(() => splitCommandLine('node "oops')).message).toBe(
      'the target "node \\"oops" has an unterminated double quote',
    );
  });

  it('refuses a lone trailing backslash', () => {
    expect(failure(() => splitCommandLine('node main.js \\')).message).toMatch(/ends with a lone backslash/);
  });

  it('refuses unquoted shell operators, which would silently become arguments', () => {
    const error = failure(() => splitCommandLine('node main.js > log.txt'));
    expect(error.exitCode).toBe(ExitCode.Usage);
    expect(error.message).toMatch(/shell operator ">", but it is run without a shell/);
    expect(failure(() => splitCommandLine('a && b')).message).toMatch(/"&&"/);
    // Quoted or escaped, the same characters are arguments.
    expect(splitCommandLine(`grep '|' \\>`)).toEqual(['grep', '|', '>']);
  });
});

describe('parseTarget', () => {
  it('reads a command line as a stdio target', () => {
    expect(parseTarget(`node "dist/main.js" --http`)).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['dist/main.js', '--http'],
      text: 'node "dist/main.js" --http',
    });
  });

  it('runs a lone .js file with this Node', () => {
    expect(parseTarget('dist/main.js --verbose')).toMatchObject({
      kind: 'stdio',
      command: process.execPath,
      args: ['dist/main.js', '--verbose'],
    });
  });

  it('reads http and https URLs as HTTP targets', () => {
    const target = parseTarget('http://127.0.0.1:3000/mcp');
    expect(target.kind).toBe('http');
    expect(target.kind === 'http' && target.url.href).toBe('http://127.0.0.1:3000/mcp');
    expect(parseTarget('HTTPS://example.com/mcp').kind).toBe('http');
  });

  it('refuses a malformed URL', () => {
    expect(failure(() => parseTarget('http://exa mple.com')).message).toBe(
      'the target "http://exa mple.com" is not a valid URL',
    );
  });

  it('reads ws and wss URLs as WebSocket targets', () => {
    const target = parseTarget('ws://127.0.0.1:3000/mcp');
    expect(target.kind).toBe('ws');
    expect(target.kind === 'ws' && target.url.href).toBe('ws://127.0.0.1:3000/mcp');
    expect(parseTarget(' WSS://example.com/mcp ').kind).toBe('ws');
    expect(describeTarget(parseTarget('wss://example.com/mcp'))).toBe('wss://example.com/mcp');
    expect(failure(() => parseTarget('ws://exa mple.com')).message).toBe(
      'the target "ws://exa mple.com" is not a valid URL',
    );
  });

  it('refuses other URL schemes', () => {
    expect(failure(() => parseTarget('ftp://example.com/mcp')).message).toMatch(
      /^unsupported target scheme ftp:\/\//,
    );
  });

  it('refuses an empty target', () => {
    expect(failure(() => parseTarget('  ')).message).toMatch(/^the target is empty/);
  });

  it('points a leading KEY=value to --env, since no shell reads it', () => {
    const error = failure(() => parseTarget('NOTES_DIR=/tmp node main.js'));
    expect(error.exitCode).toBe(ExitCode.Usage);
    expect(error.message).toMatch(/environment assignment "NOTES_DIR=\/tmp"; .* --env NOTES_DIR=…$/);
  });
});

describe('a target that looks like a URL without its scheme', () => {
  it.each([
    ['localhost:3000/mcp', 'http://localhost:3000/mcp', 'https://localhost:3000/mcp'],
    ['localhost:3000', 'http://localhost:3000', 'https://localhost:3000'],
    ['127.0.0.1:8080/mcp', 'http://127.0.0.1:8080/mcp', 'https://127.0.0.1:8080/mcp'],
    ['[::1]:8080/mcp', 'http://[::1]:8080/mcp', 'https://[::1]:8080/mcp'],
    ['example.com/mcp', 'https://example.com/mcp', 'http://example.com/mcp'],
    [
      'mcp.example.com:8443/v1/mcp?x=1',
      'https://mcp.example.com:8443/v1/mcp?x=1',
      'http://mcp.example.com:8443/v1/mcp?x=1',
    ],
    ['10.0.0.5:3000', 'https://10.0.0.5:3000', 'http://10.0.0.5:3000'],
  ])('%s is refused with %s to write instead', (word, preferred, other) => {
    expect(schemelessUrl(word)).toEqual({ preferred, other });
    const error = failure(() => parseTarget(word));
    expect(error.exitCode).toBe(ExitCode.Usage);
    expect(error.message).toBe(
      `the target ${JSON.stringify(word)} looks like a URL without its scheme, and no file of that name exists; write ${preferred} (or ${other}): a target without :// is run as a command over stdio`,
    );
  });

  it.each([
    ['node server.js', 'node'],
    ['./server', './server'],
    ['npx foo', 'npx'],
    ['npx -y @modelcontextprotocol/server-everything', 'npx'],
    ['uvx mcp-server-fetch', 'uvx'],
    ['python3.11 -m server', 'python3.11'],
    ['docker run -i --rm mcp/fetch', 'docker'],
    ['/usr/local/bin/server --stdio', '/usr/local/bin/server'],
    ['bin/server', 'bin/server'],
    ['../server.sh', '../server.sh'],
    ['deploy.sh', 'deploy.sh'],
    ['example.com', 'example.com'],
    ['localhost', 'localhost'],
  ])('%s stays a command line', (text, command) => {
    expect(schemelessUrl(command)).toBeUndefined();
    expect(parseTarget(text)).toMatchObject({ kind: 'stdio', command });
  });

  it('runs a .js file whose directory looks like a host (node is the command)', () => {
    expect(parseTarget('node example.com/server.js')).toMatchObject({ kind: 'stdio', command: 'node' });
  });

  it('runs a URL-shaped path when that file exists, looked up in --cwd', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gantry-target-'));
    try {
      mkdirSync(join(dir, 'example.com'));
      writeFileSync(join(dir, 'example.com', 'mcp'), '#!/bin/sh\n');
      expect(parseTarget('example.com/mcp --stdio', { cwd: dir })).toMatchObject({
        kind: 'stdio',
        command: 'example.com/mcp',
        args: ['--stdio'],
      });
      // Without the cwd that holds it, it is a URL again.
      expect(failure(() => parseTarget('example.com/mcp --stdio')).message).toMatch(
        /write https:\/\/example.com\/mcp/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseHeaders', () => {
  it("reads 'Name: value' and trims the value", () => {
    expect(parseHeaders(['X-Tenant:  acme ', 'Accept-Language: fr'], undefined)).toEqual({
      'X-Tenant': 'acme',
      'Accept-Language': 'fr',
    });
  });

  it('keeps colons in the value', () => {
    expect(parseHeaders(['X-Url: http://a:1'], undefined)).toEqual({ 'X-Url': 'http://a:1' });
  });

  it('turns --token into a bearer Authorization header', () => {
    expect(parseHeaders([], 'secret')).toEqual({ Authorization: 'Bearer secret' });
  });

  it('refuses a header without a colon or with a bad name', () => {
    expect(failure(() => parseHeaders(['X-Tenant acme'], undefined)).message).toBe(
      `--header needs 'Name: value', got "X-Tenant acme"`,
    );
    expect(failure(() => parseHeaders(['Bad Name: x'], undefined)).exitCode).toBe(ExitCode.Usage);
  });

  it('refuses --token with an explicit Authorization header', () => {
    expect(failure(() => parseHeaders(['authorization: Basic x'], 't')).message).toBe(
      'give either --token or an Authorization --header, not both',
    );
  });
});

describe('parseEnvAssignments', () => {
  it('reads KEY=VALUE, keeping = in the value and allowing it empty', () => {
    expect(parseEnvAssignments(['A=1', 'B=x=y', 'C='])).toEqual({ A: '1', B: 'x=y', C: '' });
  });

  it('refuses a missing = or an empty key', () => {
    expect(failure(() => parseEnvAssignments(['A'])).message).toBe('--env needs KEY=VALUE, got "A"');
    expect(failure(() => parseEnvAssignments(['=1'])).exitCode).toBe(ExitCode.Usage);
  });
});
