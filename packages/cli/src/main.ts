#!/usr/bin/env node
// Entry point of the `gantry` command; the commands are wired in ./program.
import { run } from './run';

export { CliError } from './cli-error';
export { ExitCode } from './exit-codes';
export type { Io } from './output';
export { ProcessExit } from './process-exit';
export { createProgram } from './program';
export { exitCodeOf, run } from './run';

/** Lingering handles (a keep-alive socket) may not hold the process past this once the command ended. */
const EXIT_GRACE_MS = 2_000;

if (require.main === module) {
  // `gantry list … | head` closes stdout early: stop quietly rather than crash on EPIPE.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  run(process.argv.slice(2)).then((code) => {
    // exitCode rather than exit(): output still in flight is written before the process ends.
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  });
}
