import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-error';
import { DEFAULT_DEBOUNCE_MS } from '../dev/change-watcher';
import { runDevLoop } from '../dev/dev-loop';
import { type InspectorLaunch, inspectorLaunch, nodeTooOldForInspector } from '../dev/inspector-launch';
import { DEFAULT_STOP_TIMEOUT_MS } from '../dev/server-process';
import { ExitCode } from '../exit-codes';
import type { Io } from '../output';
import { ProcessExit } from '../process-exit';

/** `@gantry/cli/register`: the swc require hook, at the package root beside `dist/`. */
export const REGISTER_PATH = join(__dirname, '..', '..', 'register.js');
/** This CLI's entry, for the command line the Inspector runs. */
const CLI_PATH = join(__dirname, '..', 'main.js');

interface DevOptions {
  watch?: boolean;
  inspect?: boolean | string;
  stopTimeout: number;
  debounce: number;
}

function milliseconds(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(`expected a whole number of milliseconds, got '${text}'`);
  }
  return value;
}

/** `gantry dev [entry]`: runs the server from TypeScript through the swc hook, restarting on change. */
export function registerDevCommand(program: Command, io: Io): void {
  program
    .command('dev')
    .description(
      'Run a server from its TypeScript sources (with decorator metadata), restarting it on change',
    )
    .argument('[entry]', 'the entry file', 'src/main.ts')
    .argument('[args...]', 'arguments for the server; name the entry first: gantry dev src/main.ts -- --http')
    .option('--watch', 'restart the server when a source file changes (the default)')
    .option('--no-watch', 'run the server once, without watching')
    .option(
      '--inspect [url]',
      'also start the MCP Inspector: on stdio it runs this dev loop as its server; with the URL of an HTTP server, it connects to it',
    )
    .option(
      '--stop-timeout <ms>',
      'how long a restarting server may take to stop before it is killed',
      milliseconds,
      DEFAULT_STOP_TIMEOUT_MS,
    )
    .option(
      '--debounce <ms>',
      'quiet time after the last change before restarting',
      milliseconds,
      DEFAULT_DEBOUNCE_MS,
    )
    .addHelpText(
      'after',
      `
The server runs as node -r @gantry/cli/register <entry>: TypeScript is compiled by swc with the
project's .swcrc (looked up from the entry's directory upwards) or, without one, with legacy
decorators and decorator metadata. A syntax error prints file:line:col and the source around it.

gantry dev watches the entry's directory and the directories of the tsconfig.json "include"
(node_modules, .git and the outDir left out), so saves that replace the file (vim, JetBrains
safe write, sed -i) are seen too. A burst of saves gives one restart: SIGTERM, then SIGKILL after
--stop-timeout, then a new process; one line on stderr names the changed file. stdin and stdout
belong to the server, so an MCP client can run "gantry dev" as a stdio server; after a restart
it must initialize again. Every server process of one gantry dev gets the same GANTRY_STATE_KEY
(random, unless you set one), so stateless-era retries survive restarts.

Examples:
  $ gantry dev
  $ gantry dev src/main.ts -- --http --port 3000
  $ gantry dev --inspect
  $ gantry dev --inspect http://127.0.0.1:3000/mcp -- --http --port 3000`,
    )
    .action(async (entry: string, args: string[], options: DevOptions) => {
      const code = await runDev({
        entry,
        args,
        watch: options.watch !== false,
        inspect: options.inspect,
        stopTimeoutMs: options.stopTimeout,
        debounceMs: options.debounce,
        io,
      });
      if (code !== 0) throw new ProcessExit(code);
    });
}

/** Starts the Inspector; tests replace it to see the command line without downloading anything. */
export type InspectorRunner = (launch: InspectorLaunch) => ChildProcess;

const runInspector: InspectorRunner = (launch) =>
  spawn(launch.command, [...launch.args], {
    // Its banner goes to stderr with gantry's own lines: stdout stays free of anything but MCP.
    stdio: ['ignore', 2, 2],
    env: { ...process.env, ...launch.env },
  });

/** Runs the server until it (or, when watching, gantry dev) stops; resolves with the exit code. */
export async function runDev(options: {
  entry: string;
  args: string[];
  watch: boolean;
  io: Io;
  /** true: the Inspector runs this dev loop over stdio; a URL: it connects to the running server. */
  inspect?: boolean | string;
  stopTimeoutMs?: number;
  debounceMs?: number;
  inspectorRunner?: InspectorRunner;
}): Promise<number> {
  const { args, watch, io } = options;
  const entry = resolve(options.entry);
  if (!existsSync(entry)) {
    throw new CliError(
      `cannot find the entry ${options.entry} (${entry}); pass the server's entry file: gantry dev path/to/main.ts`,
      ExitCode.Usage,
    );
  }
  const shown = relative(process.cwd(), entry) || entry;
  const say = (text: string) => io.stderr.write(`gantry dev: ${text}\n`);
  const stopTimeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;

  if (options.inspect === true) {
    // A stdio server has one client: the Inspector. It starts this same dev loop as its server.
    const launch = inspectorLaunch({
      target: {
        kind: 'stdio',
        command: process.execPath,
        args: [
          CLI_PATH,
          'dev',
          entry,
          ...(watch ? [] : ['--no-watch']),
          '--stop-timeout',
          String(stopTimeoutMs),
          '--debounce',
          String(debounceMs),
          ...(args.length > 0 ? ['--', ...args] : []),
        ],
      },
    });
    say(`starting the MCP Inspector, which runs ${shown} through gantry dev as its stdio server`);
    return await inspectorUntilExit(launch, options.inspectorRunner ?? runInspector, say);
  }

  let inspector: ChildProcess | undefined;
  if (typeof options.inspect === 'string') {
    const launch = inspectorLaunch({ target: { kind: 'url', url: options.inspect } });
    inspector = startInspector(launch, options.inspectorRunner ?? runInspector, say);
  }
  say(`running ${shown}`);
  try {
    return await runDevLoop({
      command: process.execPath,
      args: ['--enable-source-maps', '--require', REGISTER_PATH, entry, ...args],
      entry,
      watch,
      say,
      stopTimeoutMs,
      debounceMs,
    });
  } finally {
    if (inspector && inspector.exitCode === null && inspector.signalCode === null) inspector.kill('SIGTERM');
  }
}

function startInspector(
  launch: InspectorLaunch,
  runner: InspectorRunner,
  say: (text: string) => void,
): ChildProcess {
  if (nodeTooOldForInspector()) {
    say(`the MCP Inspector needs Node 22.19 or newer, and this is Node ${process.versions.node}`);
  }
  const child = runner(launch);
  child.once('error', (error) => say(`cannot start the MCP Inspector (${launch.command}): ${error.message}`));
  say(`MCP Inspector: ${launch.url}`);
  return child;
}

async function inspectorUntilExit(
  launch: InspectorLaunch,
  runner: InspectorRunner,
  say: (text: string) => void,
): Promise<number> {
  const child = startInspector(launch, runner, say);
  const forward = (signal: NodeJS.Signals) => {
    if (signal !== 'SIGINT') child.kill(signal); // Ctrl+C reaches the whole group already
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  try {
    return await new Promise<number>((done) => {
      child.once('error', () => done(ExitCode.Connection));
      child.once('exit', (code) => done(code ?? 0));
    });
  } finally {
    for (const signal of signals) process.off(signal, forward);
  }
}
