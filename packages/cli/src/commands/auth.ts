import { defaultAuthDir, fileTokenStore, storeKeyFor, type TokenStore } from '@gantry/client';
import type { Command } from 'commander';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { Io } from '../output';

interface AuthDirOptions {
  authDir?: string;
}

interface LogoutOptions extends AuthDirOptions {
  all?: boolean;
}

const AUTH_DIR_HELP =
  'the token store directory (default: $XDG_CONFIG_HOME/gantry/auth, ~/.config/gantry/auth or %APPDATA%\\gantry\\auth)';

/**
 * `gantry auth list` and `gantry auth logout <url> | --all`: the sign-ins the CLI keeps in
 * its file token store, one record (tokens and client registration) per MCP endpoint.
 */
export function registerAuthCommand(program: Command, io: Io): void {
  const auth = program
    .command('auth')
    .description('Show or remove the sign-ins (OAuth tokens) stored for MCP servers');

  auth
    .command('list')
    .description('Print the MCP endpoints with a stored sign-in, one per line')
    .option('--auth-dir <dir>', AUTH_DIR_HELP)
    .action(async (options: AuthDirOptions) => {
      const { store, dir } = openStore(options, io);
      const keys = (await store.keys()).sort();
      if (keys.length === 0) io.stderr.write(`No stored sign-ins (in ${dir}).\n`);
      for (const key of keys) io.stdout.write(`${key}\n`);
    });

  auth
    .command('logout')
    .description('Delete the stored sign-in of one MCP endpoint, or of all')
    .argument('[url]', 'the MCP endpoint, e.g. https://example.com/mcp')
    .option('--all', 'delete every stored sign-in')
    .option('--auth-dir <dir>', AUTH_DIR_HELP)
    .addHelpText(
      'after',
      `
The record is found by the endpoint's canonical URL: scheme and host in lower case, default
port dropped, no trailing slash, query or fragment (HTTPS://Example.com:443/mcp/ is
https://example.com/mcp). Tokens are only deleted here; the authorization server may keep
them valid until they expire.

Examples:
  $ gantry auth logout https://example.com/mcp
  $ gantry auth logout --all`,
    )
    .action(async (url: string | undefined, options: LogoutOptions) => {
      if (options.all && url !== undefined) {
        throw new CliError('give either a URL or --all, not both', ExitCode.Usage);
      }
      if (!options.all && url === undefined) {
        throw new CliError('give the URL of the MCP endpoint to sign out of, or --all', ExitCode.Usage);
      }
      const { store, dir, reported } = openStore(options, io);
      if (options.all) {
        const keys = (await store.keys()).sort();
        if (keys.length === 0) {
          io.stdout.write(`No stored sign-ins (in ${dir}).\n`);
          return;
        }
        for (const key of keys) await store.delete(key);
        io.stdout.write(`Signed out of ${keys.length} MCP server${keys.length === 1 ? '' : 's'}:\n`);
        for (const key of keys) io.stdout.write(`  ${key}\n`);
        return;
      }
      const key = endpointKey(url!);
      const before = reported.length;
      const held = (await store.load(key)) !== undefined;
      // A record that cannot be read is still a record: deleting it is what logout is for.
      const corrupt = !held && reported.length > before;
      if (!held && !corrupt) {
        io.stdout.write(`No stored sign-in for ${key} (in ${dir}).\n`);
        return;
      }
      await store.delete(key);
      io.stdout.write(`Signed out of ${key}${corrupt ? ' (its unreadable record is deleted)' : ''}.\n`);
    });
}

/** The file store at `--auth-dir` (or the default), reporting unreadable records as warnings. */
function openStore(options: AuthDirOptions, io: Io): { store: TokenStore; dir: string; reported: Error[] } {
  if (options.authDir === '') throw new CliError('--auth-dir needs a directory', ExitCode.Usage);
  const dir = options.authDir ?? defaultAuthDir();
  const reported: Error[] = [];
  const store = fileTokenStore({
    dir,
    onError: (error) => {
      reported.push(error);
      io.stderr.write(`gantry: warning: ${error.message}\n`);
    },
  });
  return { store, dir, reported };
}

function endpointKey(url: string): string {
  try {
    return storeKeyFor(url);
  } catch {
    throw new CliError(
      `${JSON.stringify(url)} is not the URL of an MCP endpoint; give it as http(s)://host/path, e.g. https://example.com/mcp`,
      ExitCode.Usage,
    );
  }
}
