import {
  type AuthorizationInteraction,
  Client,
  clientCredentials,
  connectHttp,
  fileTokenStore,
  headlessInteraction,
  loopbackInteraction,
  type McpAuth,
  oauth,
  StdioClientTransport,
  WebSocketClientTransport,
} from '@gantry/client';
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
  oauth?: boolean;
  clientId?: string;
  clientSecret?: string;
  authDir?: string;
  authInteraction?: AuthInteraction;
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

/** How `--oauth` reaches the user: a browser, a printed URL, or a headless fetch (tests). */
export type AuthInteraction = 'browser' | 'print' | 'headless';

/**
 * Adds `--header`, `--token`, the OAuth options, `--env`, `--cwd`, `--timeout` and
 * `--server-stderr` to a command.
 */
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
      '--oauth',
      'HTTP or WebSocket target: sign in with OAuth 2.1 when the server asks (a browser and a loopback redirect); tokens are kept in the auth store for next time',
    )
    .option(
      '--client-id <id>',
      'with --oauth: a client registered with the authorization server (else CIMD or dynamic registration); without: the client credentials grant (needs --client-secret)',
    )
    .option('--client-secret <secret>', "the --client-id's secret")
    .option(
      '--auth-dir <dir>',
      'with --oauth: the token store directory (default: $XDG_CONFIG_HOME/gantry/auth or ~/.config/gantry/auth)',
    )
    .option(
      '--auth-interaction <mode>',
      'with --oauth: browser (open it, the default), print (only print the URL), headless (fetch it: for servers that approve at once, e.g. in tests)',
      parseInteraction,
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

function parseInteraction(value: string): AuthInteraction {
  if (value === 'browser' || value === 'print' || value === 'headless') return value;
  throw new InvalidArgumentError('expected browser, print or headless');
}

/** The auth strategy the options ask for; `interaction` is what must be closed afterwards. */
function authFor(
  options: ConnectionOptions,
  io: { stderr: { write(text: string): unknown } },
): { auth?: McpAuth; interaction?: AuthorizationInteraction } {
  if (options.oauth) {
    if (options.token !== undefined)
      throw new CliError('--oauth and --token exclude each other', ExitCode.Usage);
    const log = (line: string) => io.stderr.write(`${line}\n`);
    const interaction =
      options.authInteraction === 'headless'
        ? headlessInteraction()
        : loopbackInteraction({ log, open: options.authInteraction === 'print' ? () => {} : undefined });
    const client =
      options.clientId === undefined
        ? undefined
        : { clientId: options.clientId, clientSecret: options.clientSecret };
    const auth = oauth({
      interaction,
      client,
      clientName: CLI_NAME,
      store: fileTokenStore({ dir: options.authDir }),
    });
    return { auth, interaction };
  }
  if (options.clientId !== undefined) {
    if (options.clientSecret === undefined) {
      throw new CliError(
        '--client-id without --oauth is the client credentials grant: pass --client-secret too (or add --oauth to sign in as a user)',
        ExitCode.Usage,
      );
    }
    return { auth: clientCredentials({ clientId: options.clientId, clientSecret: options.clientSecret }) };
  }
  for (const [name, given] of [
    ['--client-secret', options.clientSecret],
    ['--auth-dir', options.authDir],
    ['--auth-interaction', options.authInteraction],
  ] as const) {
    if (given !== undefined) throw new CliError(`${name} needs --oauth or --client-id`, ExitCode.Usage);
  }
  return {};
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
  const { auth, interaction } = target.kind === 'stdio' ? {} : authFor(options, io);

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
        await connectHttp(client, target.url, { headers, auth, signal: controller.signal });
      } else if (target.kind === 'ws') {
        await client.connect(new WebSocketClientTransport({ url: target.url, headers, auth }), {
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
    await interaction?.close().catch(() => {});
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
    : [
        options.header.length > 0 && '--header',
        options.token !== undefined && '--token',
        options.oauth && '--oauth',
        options.clientId !== undefined && '--client-id',
        options.clientSecret !== undefined && '--client-secret',
      ];
  const first = misplaced.find((name) => typeof name === 'string');
  if (first) {
    const applies = remote ? 'a stdio (command line) target' : 'an http(s):// or ws(s):// target';
    throw new CliError(`${first} applies to ${applies} only`, ExitCode.Usage);
  }
}
