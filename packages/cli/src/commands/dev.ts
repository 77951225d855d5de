import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { Io } from '../output';
import { ProcessExit } from '../process-exit';
import { type WatchEvent, WatchOutputFilter } from '../watch-output-filter';

/** `@gantry/cli/register`: the swc require hook, at the package root beside `dist/`. */
export const REGISTER_PATH = join(__dirname, '..', '..', 'register.js');

/** A SIGINT that reached only `gantry dev` (not the terminal's whole group) is passed on after this. */
const SIGINT_FORWARD_DELAY_MS = 1_000;

interface DevOptions {
  watch?: boolean;
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
    .option('--watch', 'restart the server when a file it loaded changes (the default)')
    .option('--no-watch', 'run the server once, without watching')
    .addHelpText(
      'after',
      `
The server runs as node --watch -r @gantry/cli/register <entry>: TypeScript is compiled by swc
with the project's .swcrc (looked up from the entry's directory upwards) or, without one,
with legacy decorators and decorator metadata. stdin and stdout belong to the server, so an
MCP client can run "gantry dev" as a stdio server; gantry's own messages go to stderr. After a
restart a stdio client must initialize again.

Examples:
  $ gantry dev
  $ gantry dev src/main.ts -- --http --port 3000
  $ npx @modelcontextprotocol/inspector npx gantry dev`,
    )
    .action(async (entry: string, args: string[], options: DevOptions) => {
      const code = await runDev({ entry, args, watch: options.watch !== false, io });
      if (code !== 0) throw new ProcessExit(code);
    });
}

/** Runs the server until it (or, when watching, the watcher) exits; resolves with its exit code. */
export async function runDev(options: {
  entry: string;
  args: string[];
  watch: boolean;
  io: Io;
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

  // node --watch restarts on a change to any file the server loaded (its module graph).
  const nodeArgs = [
    ...(watch ? ['--watch'] : []),
    '--enable-source-maps',
    '--require',
    REGISTER_PATH,
    entry,
    ...args,
  ];
  const child = spawn(process.execPath, nodeArgs, {
    // Without --watch the server owns stdout outright; with it, the watcher's own status lines
    // are taken out of the stream on their way through (see WatchOutputFilter).
    stdio: ['inherit', watch ? 'pipe' : 'inherit', 'inherit'],
  });
  say(`running ${shown}${watch ? ', restarting when a file changes (Ctrl+C to stop)' : ''}`);

  /** False while the watcher waits for a change after the server exited. */
  let serverRunning = true;
  let stopping = false;
  if (child.stdout) {
    const stdout = child.stdout;
    const filter = new WatchOutputFilter(
      (chunk) => {
        if (!process.stdout.write(chunk)) {
          stdout.pause();
          process.stdout.once('drain', () => stdout.resume());
        }
      },
      (event: WatchEvent) => {
        if (event === 'restarting') {
          serverRunning = true;
          say('a file changed; restarting the server (a stdio client must initialize again)');
        } else if (event === 'waiting') {
          say('waiting for the server to stop');
        } else if (event === 'failed') {
          serverRunning = false;
          say('the server exited with an error; save a file to restart it, Ctrl+C to stop');
        } else if (event === 'completed') {
          // A stdio server ends when its input does: the client is gone, so dev mode ends too.
          serverRunning = false;
          stopping = true;
          say('the server exited; stopping');
          stopWatcher();
        }
      },
    );
    stdout.on('data', (chunk: Buffer) => filter.push(chunk));
    stdout.on('end', () => filter.end());
  }

  // Node 20's watcher waits for its child's exit before exiting on a signal, and never hears it
  // once the child is gone: with no server running, nothing is left to clean up, so kill it.
  const stopWatcher = (signal: NodeJS.Signals = 'SIGTERM') => {
    child.kill(watch && !serverRunning ? 'SIGKILL' : signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stopping = true;
    if (signal !== 'SIGINT') return stopWatcher(signal);
    // Ctrl+C in a terminal reaches the whole process group, the server included; pass it on
    // only if it was sent to gantry alone, so the server is not interrupted twice.
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) stopWatcher('SIGINT');
    }, SIGINT_FORWARD_DELAY_MS).unref();
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);

  try {
    return await new Promise<number>((done, fail) => {
      child.once('error', (error) =>
        fail(new CliError(`cannot start node: ${error.message}`, ExitCode.Connection)),
      );
      child.once('close', (code, signal) => {
        if (watch && stopping && !serverRunning) done(0);
        else if (signal) done(128 + (constants.signals[signal] ?? 0));
        else done(code ?? 0);
      });
    });
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}
