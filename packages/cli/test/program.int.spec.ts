import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../src/exit-codes';
import { run } from '../src/run';
import { runCli } from './support/run-cli';

const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;

/** Runs the program in this process, with stdout and stderr captured. */
async function gantry(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

describe('gantry --version and --help', () => {
  it('prints the version of @gantry/cli', async () => {
    expect(await gantry('--version')).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect((await gantry('-V')).stdout).toBe(`${VERSION}\n`);
  });

  it('lists the commands, the target forms and the exit codes', async () => {
    const { code, stdout, stderr } = await gantry('--help');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: gantry \[options\] \[command\]\n/);
    for (const command of [
      'dev [options] [entry] [args...]',
      'list [options] <target>',
      'call [options] <target> <tool>',
      'read [options] <target> <uri>',
      'prompt [options] <target> <name>',
    ]) {
      expect(stdout).toContain(`  ${command}`);
    }
    expect(stdout).toContain('http://127.0.0.1:3000/mcp    Streamable HTTP');
    expect(stdout).toContain('ws://127.0.0.1:3000/mcp      WebSocket (subprotocol "mcp")');
    expect(stdout).toContain('  2  usage: unknown command or option, missing or invalid arguments');
  });

  it('has help for each command, with its options', async () => {
    const call = await gantry('call', '--help');
    expect(call.code).toBe(0);
    expect(call.stdout).toMatch(/^Usage: gantry call \[options\] <target> <tool>\n/);
    for (const option of [
      '--args <json>',
      '-a, --arg <key=value>',
      '--json',
      '-H, --header <header>',
      '--token <token>',
      '-e, --env <KEY=VALUE>',
      '--cwd <dir>',
      '--timeout <ms>',
    ]) {
      expect(call.stdout).toContain(option);
    }
    expect(call.stdout).toContain('-a filter.tag=work           dots nest');

    const list = await gantry('help', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^Usage: gantry list \[options\] <target>\n/);
    expect(list.stdout).toContain('--all');

    const dev = await gantry('dev', '--help');
    expect(dev.stdout).toMatch(/^Usage: gantry dev \[options\] \[entry\] \[args\.\.\.\]\n/);
    expect(dev.stdout).toContain('--no-watch');
    expect(dev.stdout).toContain('(default: "src/main.ts")');
  });
});

describe('usage errors exit with code 2', () => {
  it('an unknown command', async () => {
    const { code, stdout, stderr } = await gantry('lsit', 'node x.js');
    expect(code).toBe(ExitCode.Usage);
    expect(stdout).toBe('');
    expect(stderr).toBe("gantry: unknown command 'lsit'\n(Did you mean list?)\n(add --help for usage)\n");
  });

  it('an unknown option', async () => {
    const { code, stderr } = await gantry('list', 'node x.js', '--bogus');
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toMatch(/^gantry: unknown option '--bogus'\n/);
  });

  it('a missing argument', async () => {
    expect(await gantry('call', 'node x.js')).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: "gantry: missing required argument 'tool'\n(add --help for usage)\n",
    });
    expect((await gantry('list')).stderr).toMatch(/^gantry: missing required argument 'target'\n/);
  });

  it('too many arguments', async () => {
    const { code, stderr } = await gantry('read', 'node x.js', 'notes://a', 'extra');
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toMatch(/^gantry: too many arguments for 'read'/);
  });

  it('no command at all, with the help on stderr', async () => {
    const { code, stdout, stderr } = await gantry();
    expect(code).toBe(ExitCode.Usage);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^Usage: gantry \[options\] \[command\]\n/);
  });

  it('an invalid --timeout', async () => {
    const { code, stderr } = await gantry('list', 'node x.js', '--timeout', '-5');
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toMatch(
      /^gantry: option '--timeout <ms>' argument '-5' is invalid\. expected a positive whole number/,
    );
  });

  it('invalid JSON in --args, before any server is started', async () => {
    const { code, stderr } = await gantry('call', 'no-such-command-for-gantry', 'add', '--args', '{"a": 1,}');
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toMatch(/^gantry: --args is not valid JSON \(.*\): \{"a": 1,\}\n$/);
  });

  it('a malformed -a pair', async () => {
    expect(await gantry('call', 'node x.js', 'add', '-a', 'a')).toEqual({
      code: ExitCode.Usage,
      stdout: '',
      stderr: 'gantry: -a needs key=value, got "a"\n',
    });
  });

  it('options that do not fit the target kind', async () => {
    expect((await gantry('list', 'node x.js', '--header', 'X-A: 1')).stderr).toBe(
      'gantry: --header applies to an http(s):// or ws(s):// target only\n',
    );
    expect((await gantry('list', 'http://127.0.0.1:1/mcp', '--env', 'A=1')).stderr).toBe(
      'gantry: --env applies to a stdio (command line) target only\n',
    );
    expect((await gantry('list', 'http://127.0.0.1:1/mcp', '--header', 'nope')).code).toBe(ExitCode.Usage);
  });

  it('a dev entry that does not exist', async () => {
    const { code, stderr } = await gantry('dev', 'no/such/entry.ts', '--no-watch');
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toMatch(
      /^gantry: cannot find the entry no\/such\/entry\.ts \(.*\); pass the server's entry file/,
    );
  });
});

describe('the built gantry binary', () => {
  it('prints its version', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('exits with 2 on an unknown command', async () => {
    const { code, stdout, stderr } = await runCli(['nope']);
    expect(code).toBe(ExitCode.Usage);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^gantry: unknown command 'nope'\n/);
  });
});
