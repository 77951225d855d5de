import { type ChildProcess, spawn } from 'node:child_process';

/** How a server process ended. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when `stop()` ended it (a restart or gantry dev stopping), not the server itself. */
  readonly stopped: boolean;
}

export const DEFAULT_STOP_TIMEOUT_MS = 5_000;

/**
 * One run of the user's server under the swc hook. stdin, stdout and stderr are gantry dev's
 * own (inherited): on stdio they are the MCP channel, and nothing is put between the client and
 * the server, so the server's bytes reach the client unchanged.
 */
export class ServerProcess {
  readonly exited: Promise<ServerExit>;
  private readonly child: ChildProcess;
  private stopping = false;

  constructor(options: { command: string; args: readonly string[]; env: NodeJS.ProcessEnv }) {
    this.child = spawn(options.command, [...options.args], { stdio: 'inherit', env: options.env });
    this.exited = new Promise((done, fail) => {
      this.child.once('error', fail);
      this.child.once('exit', (code, signal) => done({ code, signal, stopped: this.stopping }));
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` to the server without waiting (a forwarded Ctrl+C). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /**
   * Asks the server to stop (SIGTERM, where a Gantry app closes its connections and runs its
   * shutdown hooks), and kills it (SIGKILL) if it is still running after `timeoutMs`.
   */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<ServerExit> {
    this.stopping = true;
    if (!this.running) return this.exited;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((done) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        done();
      }, timeoutMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    return this.exited;
  }
}
