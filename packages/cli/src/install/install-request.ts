import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { ClientFormat, InstallScope } from './client-format';
import { CLIENT_FORMATS, clientFormat } from './clients';
import type { ConfigLocations } from './config-locations';
import { readProjectPackage } from './project-package';
import {
  checkServerName,
  checkServerUrl,
  parseEnvPairs,
  parseHeaderPairs,
  type ServerLaunch,
  type ServerToInstall,
  serverNameFromPackage,
} from './server-launch';

/** `gantry install`'s flags as commander parses them. */
export interface InstallFlags {
  scope?: string;
  name?: string;
  project?: string;
  entry?: string;
  command?: string;
  url?: string;
  header: string[];
  env: string[];
  file?: string;
  dryRun?: boolean;
  force?: boolean;
}

/** Everything `gantry install` needs once flags, defaults and the project are resolved. */
export interface InstallRequest {
  readonly format: ClientFormat;
  /** The scope written, or undefined for `--file` and for `mcp-json`. */
  readonly scope: InstallScope | undefined;
  /** The file to write; undefined for `mcp-json` without `--file`, which prints. */
  readonly file: string | undefined;
  readonly server: ServerToInstall;
  /** Notes for stderr (an entry that is not built yet). */
  readonly warnings: readonly string[];
}

/** Checks the flags against each other and the client, and fills in the defaults. */
export async function resolveInstall(
  clientId: string,
  serverArgs: readonly string[],
  flags: InstallFlags,
  locations: ConfigLocations,
): Promise<InstallRequest> {
  const format = clientFormat(clientId);
  if (format === undefined) {
    throw new CliError(
      `unknown client "${clientId}"; choose one of ${CLIENT_FORMATS.map((known) => known.id).join(', ')}`,
      ExitCode.Usage,
    );
  }
  const scope = checkScope(format, flags);
  const file =
    flags.file !== undefined
      ? resolve(flags.file)
      : scope === undefined
        ? undefined
        : format.file(scope, locations);
  const warnings: string[] = [];
  const launch = await resolveLaunch(serverArgs, flags, locations, warnings);
  const name =
    flags.name !== undefined ? checkServerName(flags.name) : await nameFromPackage(locations.projectDir);
  const server = { name, launch };
  format.entry(server); // A launch the client cannot express is refused before anything else.
  return { format, scope, file, server, warnings };
}

function checkScope(format: ClientFormat, flags: InstallFlags): InstallScope | undefined {
  const { scope } = flags;
  if (scope !== undefined && scope !== 'project' && scope !== 'user') {
    throw new CliError(`--scope ${scope}: choose project or user`, ExitCode.Usage);
  }
  if (scope !== undefined && flags.file !== undefined) {
    throw new CliError(
      '--file names the file to write, so --scope has nothing to choose; give one of them',
      ExitCode.Usage,
    );
  }
  if (format.scopes.length === 0) {
    if (scope !== undefined) {
      throw new CliError(
        `${format.id} has no scopes: it prints the JSON, or writes it to --file <path>`,
        ExitCode.Usage,
      );
    }
    return undefined;
  }
  if (scope === undefined) return flags.file === undefined ? format.scopes[0] : undefined;
  if (!format.scopes.includes(scope)) {
    throw new CliError(
      `${format.title} has only a ${format.scopes.join(' and ')} configuration; leave out --scope ${scope}`,
      ExitCode.Usage,
    );
  }
  return scope;
}

async function resolveLaunch(
  serverArgs: readonly string[],
  flags: InstallFlags,
  locations: ConfigLocations,
  warnings: string[],
): Promise<ServerLaunch> {
  if (flags.url !== undefined) {
    const conflicting = [
      flags.entry !== undefined && '--entry',
      flags.command !== undefined && '--command',
      flags.env.length > 0 && '--env',
      serverArgs.length > 0 && 'server arguments after --',
    ].filter((given): given is string => typeof given === 'string');
    if (conflicting.length > 0) {
      throw new CliError(
        `--url installs a server the client reaches over HTTP, so ${conflicting.join(', ')} would not be used; leave ${conflicting.length === 1 ? 'it' : 'them'} out (headers go in --header)`,
        ExitCode.Usage,
      );
    }
    return { kind: 'url', url: checkServerUrl(flags.url), headers: parseHeaderPairs(flags.header) };
  }
  if (flags.header.length > 0) {
    throw new CliError(
      '--header is sent to a server at a URL: give --url too, or leave it out',
      ExitCode.Usage,
    );
  }
  const env = parseEnvPairs(flags.env);
  if (flags.command !== undefined) {
    if (flags.entry !== undefined) {
      throw new CliError(
        '--command replaces "node <entry>": give --entry or --command, not both',
        ExitCode.Usage,
      );
    }
    return { kind: 'stdio', command: flags.command, args: [...serverArgs], env };
  }
  const entryPath =
    flags.entry ?? (await readProjectPackage(locations.projectDir, 'the entry')).main ?? 'dist/main.js';
  const entry = resolve(locations.projectDir, entryPath);
  if (!existsSync(entry)) {
    warnings.push(
      `note: ${entry} does not exist yet; build the project (npm run build) before the client starts it`,
    );
  }
  return { kind: 'stdio', command: 'node', args: [entry, ...serverArgs], env };
}

async function nameFromPackage(projectDir: string): Promise<string> {
  const { name } = await readProjectPackage(projectDir, 'the server name');
  if (name === undefined) {
    throw new CliError(
      `the package.json in ${projectDir} has no "name"; give the server a name with --name`,
      ExitCode.Usage,
    );
  }
  return serverNameFromPackage(name);
}
