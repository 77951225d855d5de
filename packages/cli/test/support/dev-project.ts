import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Transport, TransportSink } from '@gantry/protocol';
import { encodeLine } from '@gantry/protocol';
import { CLI } from './run-cli';

const ROOT = resolve(__dirname, '../../../..');

/**
 * A throwaway project outside the repository (so no `.swcrc` is found above it): the
 * fixture as `src/main.ts`, and the repository's node_modules linked in for its imports.
 */
export function createDevProject(fixture: string): { dir: string; entry: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-dev-'));
  mkdirSync(join(dir, 'src'));
  const entry = join(dir, 'src', 'main.ts');
  copyFileSync(fixture, entry);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, entry, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * One long-running `gantry dev` process whose stdio several clients use in turn: a server
 * restarted by `--watch` needs a new `initialize`, hence a new client on the same pipes.
 * Every stdout line is kept, to check that nothing but protocol messages came out.
 */
export class DevProcess {
  readonly child: ChildProcess;
  readonly stdoutLines: string[] = [];
  stderr = '';
  private sink?: TransportSink;
  private partial = '';
  private readonly stderrWaiters = new Set<() => void>();

  constructor(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, [CLI, 'dev', ...args], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (text: string) => this.onStdout(text));
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
      for (const waiter of [...this.stderrWaiters]) waiter();
    });
  }

  /** Resolves once stderr matches `pattern` (the test's own timeout bounds the wait). */
  waitForStderr(pattern: RegExp): Promise<void> {
    return new Promise((done) => {
      const check = () => {
        if (!pattern.test(this.stderr)) return;
        this.stderrWaiters.delete(check);
        done();
      };
      this.stderrWaiters.add(check);
      check();
    });
  }

  /** How many times `pattern` (a global regex) matches stderr so far. */
  count(pattern: RegExp): number {
    return this.stderr.match(pattern)?.length ?? 0;
  }

  /** A transport over the process's stdio; closing it leaves the process running. */
  transport(): Transport {
    return {
      start: (sink) => {
        this.sink = sink;
      },
      send: (message) =>
        new Promise<void>((done, fail) =>
          this.child.stdin!.write(encodeLine(message), (error) => (error ? fail(error) : done())),
        ),
      close: async () => {
        const sink = this.sink;
        this.sink = undefined;
        sink?.closed();
      },
    };
  }

  /** Ends stdin, as a client that hangs up does, and resolves with the exit code. */
  async hangUp(): Promise<number | null> {
    const exited = new Promise<number | null>((done) => this.child.once('exit', (code) => done(code)));
    this.child.stdin!.end();
    return exited;
  }

  /** Stops gantry dev as a terminal or a supervisor would (SIGTERM), and resolves with its exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((done) => this.child.once('exit', (code) => done(code)));
    this.child.kill('SIGTERM');
    return exited;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private onStdout(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop()!;
    for (const line of parts) {
      this.stdoutLines.push(line);
      try {
        this.sink?.message(JSON.parse(line));
      } catch {
        // Not JSON: stdoutLines has it, and the test fails on it.
      }
    }
  }
}
