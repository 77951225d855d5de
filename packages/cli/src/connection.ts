import { Client, connectHttp, StdioClientTransport, WebSocketClientTransport } from '@gantry/client';
import { ConnectionClosedError, RequestCancelledError, RequestTimeoutError } from '@gantry/protocol';
import { type Command, InvalidArgumentError } from 'commander';
import { collect } from './args';
import { CliError } from './cli-error';
import { CLI_NAME, CLI_VERSION } from './cli-info';
import { connectError } from './connect-error';
import { ExitCode } from './exit-codes';
import { ProcessExit } from './process-exit';
import { describeTarget, parseEnvAssignments, parseHeaders, parseTarget, type Target } from './target';

/** Options every command that talks to a server accepts (see {@link addConnectionOptions}). */
export interface ConnectionOptions {
  header: string[];
  token?: string;
  env: string[];
  cwd?: string;
  timeout: number;
  serverStderr?: boolean;
}

/** Help of every command's `<target>` argument. */
export const TARGET_ARGUMENT_HELP =
  'the server: a command line run over stdio ("node dist/main.js"), an http(s):// or a ws(s):// URL';

/** Default time to wait for each answer, the handshake included: the client's default. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** The client's default wait for an answer to the `server/discover` probe. */
const ERA_PROBE_TIMEOUT_MS = 3_000;

/** Adds `--header`, `--token`, `--env`, `--cwd`, `--timeout` and `--server-stderr` to a command. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option(
      '-H, --header <header>',
      "HTTP or WebSocket target: a header for every request (WebSocket: of the upgrade), 'Name: value' (repeatable)",
      collect,
      [],
    )
    .option(
      '--token <token>',
      'HTTP or WebSocket target: a bearer token, sent as Authorization: Bearer <token>',
    )
    .option(
      '-e, --env <KEY=VALUE>',
      'stdio target: an environment variable for the server (repeatable)',
      collect,
      [],
    )
    .option('--cwd <dir>', 'stdio target: the working directory of the server')
    .option(
      '--timeout <ms>',
      'how long to wait for each answer, the handshake included',
      parseTimeout,
      DEFAULT_TIMEOUT_MS,
    )
    .option('--server-stderr', "stdio target: show the server's stderr (otherwise quoted only if it fails)");
}

function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    // Commander reports it as a usage error naming the option.
    throw new InvalidArgumentError('expected a positive whole number of milliseconds');
  }
  return ms;
}

/** What a command's body receives: the connected client, and a signal aborted by Ctrl+C. */
export interface Session {
  client: Client;
  signal: AbortSignal;
}

/**
 * Connects to `targetText`, runs `use`, and always closes the client afterwards (for stdio:
 * the server's stdin is closed, then it is terminated if it lingers). Any failure to connect
 * is a {@link CliError} with exit code 3; Ctrl+C cancels the request in flight and exits 130.
 */
export async function withConnection<T>(
  targetText: string,
  options: ConnectionOptions,
  io: { stderr: { write(text: string): unknown } },
  use: (session: Session) => Promise<T>,
): Promise<T> {
  const target = parseTarget(targetText, { cwd: options.cwd });
  checkOptionsFit(target, options);
  const headers = target.kind === 'stdio' ? {} : parseHeaders(options.header, options.token);
  const env = target.kind === 'stdio' ? parseEnvAssignments(options.env) : {};

  const controller = new AbortController();
  const interrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', interrupt);
  const client = new Client(
    { name: CLI_NAME, version: CLI_VERSION },
    // --timeout covers the handshake, so it also bounds the era probe (3 s by default), which a
    // session-era-only server never answers on stdio.
    { requestTimeoutMs: options.timeout, probeTimeoutMs: Math.min(options.timeout, ERA_PROBE_TIMEOUT_MS) },
  );
  try {
    try {
      if (target.kind === 'http') {
        await connectHttp(client, target.url, { headers, signal: controller.signal });
      } else if (target.kind === 'ws') {
        await client.connect(new WebSocketClientTransport({ url: target.url, headers }), {
          signal: controller.signal,
        });
      } else {
        const transport = new StdioClientTransport({
          command: target.command,
          args: target.args,
          env: { ...process.env, ...env },
          cwd: options.cwd,
          stderr: 'pipe',
        });
        if (options.serverStderr)
          transport.stderr?.on('data', (chunk: Buffer) => io.stderr.write(chunk.toString()));
        await client.connect(transport, { signal: controller.signal });
      }
    } catch (error) {
      if (controller.signal.aborted) throw interrupted();
      throw connectError(target, error);
    }
    return await use({ client, signal: controller.signal });
  } catch (error) {
    if (controller.signal.aborted && error instanceof RequestCancelledError) throw interrupted();
    if (error instanceof ConnectionClosedError) {
      throw new CliError(
        `the connection to ${describeTarget(target)} closed: ${error.message.replace(/^Connection closed: /, '')}`,
        ExitCode.Connection,
      );
    }
    if (error instanceof RequestTimeoutError) {
      throw new CliError(`${error.message}; raise --timeout if it needs longer`, ExitCode.Connection);
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
    await client.close().catch(() => {});
  }
}

function interrupted(): ProcessExit {
  // 128 + SIGINT, as shells report a command ended by Ctrl+C.
  return new ProcessExit(130, 'interrupted');
}

function checkOptionsFit(target: Target, options: ConnectionOptions): void {
  const remote = target.kind !== 'stdio';
  const misplaced = remote
    ? [
        options.env.length > 0 && '--env',
        options.cwd !== undefined && '--cwd',
        options.serverStderr && '--server-stderr',
      ]
    : [options.header.length > 0 && '--header', options.token !== undefined && '--token'];
  const first = misplaced.find((name) => typeof name === 'string');
  if (first) {
    const applies = remote ? 'a stdio (command line) target' : 'an http(s):// or ws(s):// target';
    throw new CliError(`${first} applies to ${applies} only`, ExitCode.Usage);
  }
}
