// Starting the fixture server (or the notes app) as a real child process, built from dist, and
// watching it: its ready line, its stderr (always drained, so the pipe never blocks it), its
// exit, and its RSS read from the outside (/proc, else `ps`) so a stuck event loop can be measured.
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LaneFigures } from './results';

export const ROOT = resolve(__dirname, '..', '..', '..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const FIXTURE = join(ROOT, 'test', 'reliability', 'fixtures', 'reliability-server.ts');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process with its stderr collected and its exit remembered. */
export class ChildServer {
  /** The last 64 KiB of stderr, for failure messages. */
  stderrTail = '';
  exit?: Exit;
  readonly exited: Promise<Exit>;
  private readonly lineWaiters: Array<{ test: RegExp; resolve: (match: RegExpMatchArray) => void }> = [];
  private partial = '';

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-65_536);
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        for (const waiter of [...this.lineWaiters]) {
          const match = line.match(waiter.test);
          if (match) {
            this.lineWaiters.splice(this.lineWaiters.indexOf(waiter), 1);
            waiter.resolve(match);
          }
        }
      }
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** Resolves with the first later stderr line matching `test`; rejects if the process exits first or after `timeoutMs`. */
  waitForLine(test: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve: (match: RegExpMatchArray) => settle(() => resolve(match)) };
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(new Error(`no stderr line ${test} within ${timeoutMs} ms; stderr:\n${this.stderrTail}`)),
          ),
        timeoutMs,
      );
      const onExit = () =>
        settle(() =>
          reject(
            new Error(
              `the server exited (${JSON.stringify(this.exit)}) before ${test}; stderr:\n${this.stderrTail}`,
            ),
          ),
        );
      const settle = (then: () => void) => {
        clearTimeout(timer);
        const index = this.lineWaiters.indexOf(waiter);
        if (index >= 0) this.lineWaiters.splice(index, 1);
        this.child.off('exit', onExit);
        then();
      };
      this.lineWaiters.push(waiter);
      this.child.once('exit', onExit);
    });
  }

  /** Resident set size in bytes, read from outside the process. */
  rss(): number {
    return rssOf(this.pid);
  }

  /** Stops the process (SIGKILL after `graceMs`) and waits for it; safe to call twice. */
  async stop(graceMs = 3000): Promise<Exit> {
    if (!this.exit) {
      this.child.stdin.destroy();
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    return this.exit as Exit;
  }
}

/** Counts a server that exited while a lane ran against it as a crash, with the end of its stderr. */
export function countExitAsCrash(figures: LaneFigures, server: ChildServer): void {
  if (!server.exit) return;
  figures.crashes++;
  figures.examples.push(
    `the server process exited ${JSON.stringify(server.exit)}: ${server.stderrTail.slice(-2000)}`,
  );
}

export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = status.match(/^VmRSS:\s+(\d+)\s+kB/m);
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux: ask ps
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
}

export interface FixtureOptions {
  transport: 'stdio' | 'http' | 'ws';
  env?: Record<string, string>;
}

/** Starts the fixture server; for HTTP and WebSocket resolves once it listens, with its URL. */
export async function startFixture(options: FixtureOptions): Promise<{ server: ChildServer; url: string }> {
  const child = spawn(process.execPath, ['--expose-gc', '-r', REGISTER, FIXTURE, options.transport], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const server = new ChildServer(child);
  const ready = await server.waitForLine(/^REL-READY (\S+)/);
  return { server, url: ready[1] };
}

/** Starts `apps/notes/dist/main.js` on stdio with `NOTES_DIR=dir`. */
export function startNotes(dir: string): ChildServer {
  const child = spawn(process.execPath, [join(ROOT, 'apps', 'notes', 'dist', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, NOTES_DIR: dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new ChildServer(child);
}
