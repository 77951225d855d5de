import { spawn } from 'node:child_process';

/** How a child process ended, with what it printed. */
export interface CommandResult {
  code: number | null;
  /** What it wrote to stdout. */
  stdout: string;
  /** stdout and stderr interleaved (the tail, past 64 KiB): what a person would have seen. */
  output: string;
}

/** Runs a program and collects its output; injected so tests can make a step fail. */
export type RunCommand = (
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
) => Promise<CommandResult>;

/** Most output kept from one command, for error messages: its tail is what explains a failure. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/**
 * Spawns `command` without a shell (on Windows `npm` is a `.cmd` script, which needs one) and
 * resolves when it exits, with stdout and stderr interleaved. Rejects only when it cannot be
 * started (`ENOENT` when the program is not installed).
 */
export const runCommand: RunCommand = (command, args, { cwd, env }) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    });
    let stdout = '';
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > MAX_OUTPUT_CHARS) output = output.slice(-MAX_OUTPUT_CHARS);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      collect(chunk);
    });
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, output }));
  });

/** The last lines of a command's output, indented, to quote in an error message. */
export function outputTail(output: string, lines = 15): string {
  const tail = output.trimEnd().split(/\r?\n/).slice(-lines);
  return tail.map((line) => `  ${line}`).join('\n');
}
