import { run } from '../../src/run';

/** How one in-process run of the CLI ended, with what it printed. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `gantry <args>` in this process, from this checkout's sources, in `cwd` when given (the
 * working directory is restored afterwards). Output is captured both from the `Io` the
 * commands get and from `process.stdout`, where `new`, `generate` and `add` write.
 */
export async function runInProcess(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const previous = process.cwd();
  if (options.cwd !== undefined) process.chdir(options.cwd);
  try {
    const io = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    };
    const code = await run(args, io);
    return { code, stdout, stderr };
  } finally {
    process.chdir(previous);
    spy.mockRestore();
  }
}
