import { httpStatusOf } from '@gantry/client';
import { McpError } from '@gantry/protocol';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';

/** Names listed in an "unknown …" message before it says how many more there are. */
const MAX_LISTED = 30;

/** True for a JSON-RPC error the server answered, as opposed to a failed HTTP exchange. */
export function isJsonRpcError(error: unknown): error is McpError {
  return error instanceof McpError && httpStatusOf(error) === undefined;
}

/** A JSON-RPC error answered to `what` (`tools/call "add"`), as a message with exit code 1; `hint` follows it. */
export function rpcFailure(what: string, error: McpError, hint = ''): CliError {
  const data = error.data === undefined ? '' : `; data: ${JSON.stringify(error.data)}`;
  return new CliError(
    `${what} failed: ${error.message} (JSON-RPC error ${error.code})${data}${hint}`,
    ExitCode.ToolError,
  );
}

/**
 * "unknown tool "x"; the server's tools are: a, b, c": for a name the server answered an
 * error to and that its list does not contain.
 */
export function unknownName(kind: string, name: string, known: readonly string[]): CliError {
  const shown = known.slice(0, MAX_LISTED).join(', ');
  const more = known.length > MAX_LISTED ? ` and ${known.length - MAX_LISTED} more` : '';
  const listed =
    known.length === 0 ? `the server has no ${kind}s` : `the server's ${kind}s are: ${shown}${more}`;
  return new CliError(`unknown ${kind} ${JSON.stringify(name)}; ${listed}`, ExitCode.ToolError);
}
