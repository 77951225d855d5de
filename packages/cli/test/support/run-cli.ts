import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { collect, type Finished } from './child-process';

/** The built command (`npm test` builds it with `tsc -b` before Jest runs). */
export const CLI = resolve(__dirname, '../../dist/main.js');
/** The swc require hook `gantry dev` uses, for fixture servers written in TypeScript. */
export const REGISTER = resolve(__dirname, '../../register.js');
/** The example server: stdio by default, `--http --port 0` for HTTP. */
export const NOTES = resolve(__dirname, '../../../../apps/notes/dist/main.js');

/** How a run of the CLI ended, with what it printed. */
export type CliRun = Finished;

/** A command line for a target: `node <file>` with paths quoted, as a user would type it. */
export function nodeTarget(...args: string[]): string {
  return ['node', ...args].map((arg) => `'${arg}'`).join(' ');
}

/** Runs `node dist/main.js …args` to completion; stdin is closed. */
export function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child);
}

/** Starts `apps/notes` with `--http --port 0` and resolves with its URL once it listens. */
export function startNotesHttp(env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): Promise<void> }> {
  return startNotes(env, ['--http'], /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
}

/** Starts `apps/notes` with `--ws --port 0` (WebSocket only) and resolves with its ws:// URL. */
export function startNotesWs(env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): Promise<void> }> {
  return startNotes(env, ['--ws'], /serving MCP on (ws:\/\/127\.0\.0\.1:\d+\/mcp)/);
}

async function startNotes(
  env: NodeJS.ProcessEnv,
  transport: string[],
  printed: RegExp,
): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [NOTES, ...transport, '--port', '0'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let stderr = '';
    child.once('exit', (code) => fail(new Error(`notes exited with code ${code}: ${stderr}`)));
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = printed.exec(stderr)?.[1];
      if (found) done(found);
    });
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
