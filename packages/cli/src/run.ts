import { HttpStatusError, httpStatusOf } from '@gantry/client';
import { GantryError, LocalErrorCode, McpError } from '@gantry/protocol';
import { CommanderError } from 'commander';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { type Io, processIo } from './output';
import { ProcessExit } from './process-exit';
import { createProgram } from './program';

/** Local errors that mean the connection or the protocol failed, not the tool. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  LocalErrorCode.ConnectionClosed,
  LocalErrorCode.NotConnected,
  LocalErrorCode.RequestTimeout,
  LocalErrorCode.ProtocolViolation,
  LocalErrorCode.MessageTooLarge,
]);

/**
 * Runs `gantry` with `args` (without `node` and the script) and resolves with the exit code.
 * Errors are reported here, as `gantry: <message>` on stderr; nothing is thrown.
 *
 * @example
 * process.exitCode = await run(process.argv.slice(2));
 */
export async function run(args: readonly string[], io: Io = processIo()): Promise<number> {
  try {
    await createProgram(io).parseAsync([...args], { from: 'user' });
    return ExitCode.Ok;
  } catch (error) {
    // Commander has already printed its own message (and help where it applies).
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    const message = error instanceof Error ? error.message : String(error);
    if (message) io.stderr.write(`gantry: ${message}\n`);
    return exitCodeOf(error);
  }
}

/**
 * The exit code for an error: a `CliError`'s own; 3 when the connection or the protocol failed
 * (closed connection, spawn failure, HTTP status, timeout); 1 otherwise, a JSON-RPC error included.
 */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError || error instanceof ProcessExit) return error.exitCode;
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  if (error instanceof GantryError && CONNECTION_CODES.has(error.code)) return ExitCode.Connection;
  if (error instanceof HttpStatusError) return ExitCode.Connection;
  if (error instanceof McpError)
    return httpStatusOf(error) === undefined ? ExitCode.ToolError : ExitCode.Connection;
  if (isSpawnFailure(error)) return ExitCode.Connection;
  return ExitCode.ToolError;
}

/** StdioClientTransport's "Cannot start the MCP server" error wraps the spawn's errno error. */
function isSpawnFailure(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return typeof cause?.syscall === 'string' && cause.syscall.startsWith('spawn');
}
