/** Exit codes scripts can rely on. */
export const ExitCode = {
  /** Success. */
  Ok: 0,
  /** The tool ran and reported an error (`isError: true`), or the server answered with a JSON-RPC error. */
  ToolError: 1,
  /** Bad usage: unknown command or option, invalid arguments, invalid project name, non-empty directory. */
  Usage: 2,
  /** Could not connect, the server exited early, or the protocol broke down. */
  Connection: 3,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
