import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { ChangeWatcher } from './change-watcher';
import { DEFAULT_STOP_TIMEOUT_MS, type ServerExit, ServerProcess } from './server-process';
import { findWatchRoots, readTsconfig } from './watch-roots';

/** A SIGINT that reached only `gantry dev` (not the terminal's whole group) is passed on after this. */
const SIGINT_FORWARD_DELAY_MS = 1_000;

export interface DevLoopOptions {
  /** The server's command (node) and its arguments (the hook, the entry, the server's own). */
  command: string;
  args: readonly string[];
  /** The entry file, absolute: where the watched directories are found from. */
  entry: string;
  watch: boolean;
  /** gantry dev's own lines; never stdout, which may be the MCP channel. */
  say: (text: string) => void;
  /** The server's environment; gantry dev adds GANTRY_STATE_KEY when it is not set. */
  env?: NodeJS.ProcessEnv;
  /** How long a stopping server may take before it is killed, in ms; default 5000. */
  stopTimeoutMs?: number;
  /** Quiet time after the last change before restarting, in ms; default 150. */
  debounceMs?: number;
}

/**
 * The server's environment for one dev session. The stateless era (2026-07-28) signs
 * `requestState` with GANTRY_STATE_KEY; without one every server process makes a random key
 * and its HTTP or WebSocket listener warns about it, which under gantry dev would be on every
 * restart, and an `input_required` retry sent across a restart would be refused. One random
 * key per dev session, handed to each server process, fixes both.
 */
export function devServerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.GANTRY_STATE_KEY) return { ...env };
  return { ...env, GANTRY_STATE_KEY: randomBytes(32).toString('base64url') };
}

/** `src/main.ts`, or `src/main.ts and 2 other files`. */
function describeChanges(files: readonly string[]): string {
  const first = relative(process.cwd(), files[0]) || files[0];
  const others = files.length - 1;
  return others === 0 ? first : `${first} and ${others} other file${others === 1 ? '' : 's'}`;
}

function exitCodeOf(exit: ServerExit): number {
  if (exit.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  return exit.code ?? 0;
}

/**
 * Runs the server and, when watching, restarts it on every burst of changes: stop (SIGTERM,
 * then SIGKILL past `stopTimeoutMs`), wait for the exit, start again. Resolves with gantry dev's
 * exit code: the server's own without watching; when watching, 0 once the server ends by itself
 * with 0 (a stdio server whose client hung up) or gantry dev is stopped by a signal.
 */
export async function runDevLoop(options: DevLoopOptions): Promise<number> {
  const { say, watch } = options;
  const env = devServerEnv(options.env);
  const stopTimeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  const start = () => new ServerProcess({ command: options.command, args: options.args, env });

  let server: ServerProcess | undefined = start();
  let watcher: ChangeWatcher | undefined;
  let finish!: (code: number) => void;
  let fail!: (error: Error) => void;
  const finished = new Promise<number>((done, reject) => {
    finish = done;
    fail = reject;
  });
  let stopping = false;
  /** Changes seen while a restart is under way: they get one more restart after it. */
  let queued: string[] = [];
  let restarting = false;

  const follow = (current: ServerProcess) => {
    current.exited.then(
      (exit) => {
        if (exit.stopped && !stopping) return; // a restart: the next process is followed
        if (server === current) server = undefined;
        if (stopping) return finish(watch ? 0 : exitCodeOf(exit));
        if (!watch) return finish(exitCodeOf(exit));
        if (exit.code === 0) {
          // A stdio server ends when its input does: the client is gone, so dev mode ends too.
          say('the server exited; stopping');
          stopping = true;
          return finish(0);
        }
        const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
        say(`the server ${how}; save a file to restart it, Ctrl+C to stop`);
      },
      (error: Error) => fail(new Error(`cannot start the server: ${error.message}`)),
    );
  };

  const restart = async (files: string[]) => {
    if (stopping) return;
    if (restarting) {
      queued.push(...files);
      return;
    }
    restarting = true;
    try {
      let batch = files;
      while (batch.length > 0 && !stopping) {
        say(
          `${describeChanges(batch)} changed; restarting the server (a stdio client must initialize again)`,
        );
        const previous = server;
        server = undefined;
        await previous?.stop(stopTimeoutMs);
        if (stopping) return;
        server = start();
        follow(server);
        batch = queued;
        queued = [];
      }
    } finally {
      restarting = false;
    }
  };

  follow(server);
  if (watch) {
    const roots = findWatchRoots(options.entry);
    const outDir = roots.tsconfig ? outDirOf(roots.tsconfig) : undefined;
    watcher = new ChangeWatcher({
      directories: roots.directories,
      ignoreDirectories: outDir ? [outDir] : [],
      debounceMs: options.debounceMs,
      onChange: (files) => void restart([...new Set(files)]),
      onError: (error) => say(`watching failed: ${error.message}`),
    });
    const shown = roots.directories.map((dir) => relative(process.cwd(), dir) || '.').join(', ');
    watcher.whenReady().then(() => {
      if (!stopping) say(`watching ${shown} for changes (Ctrl+C to stop)`);
    });
  }

  const stopAll = async (signal: NodeJS.Signals) => {
    stopping = true;
    await watcher?.close();
    const current = server;
    if (!current) return finish(watch ? 0 : 128 + (constants.signals[signal] ?? 0));
    if (signal === 'SIGINT') {
      // Ctrl+C in a terminal reaches the whole process group, the server included; stop it
      // only if the signal was sent to gantry alone, so the server is not interrupted twice.
      const timer = setTimeout(() => void current.stop(stopTimeoutMs), SIGINT_FORWARD_DELAY_MS);
      current.exited.finally(() => clearTimeout(timer));
    } else {
      current.signal(signal);
      await current.stop(stopTimeoutMs);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => void stopAll(signal);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  try {
    return await finished;
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    await watcher?.close();
    if (server?.running) await server.stop(stopTimeoutMs);
  }
}

/** The build's output directory, left out of the watch (a `tsc -w` beside gantry dev). */
function outDirOf(tsconfig: string): string | undefined {
  const options = readTsconfig(tsconfig).compilerOptions as Record<string, unknown> | undefined;
  const outDir = options?.outDir;
  return typeof outDir === 'string' ? resolve(dirname(tsconfig), outDir) : undefined;
}
