import type { ConfigLocations } from './config-locations';
import type { ServerToInstall } from './server-launch';

/** Where a client's configuration lives: shared with a project, or the user's own. */
export type InstallScope = 'project' | 'user';

/** The syntax of a configuration file, which decides how it is edited. */
export type ConfigSyntax = 'json' | 'yaml';

/**
 * One client's configuration format: where its file is, which key holds the servers, and the
 * entry it expects for a server. One file per client under `clients/`.
 */
export interface ClientFormat {
  /** The name on the command line (`claude-code`). */
  readonly id: string;
  /** The name in messages (`Claude Code`). */
  readonly title: string;
  /** The scopes it has, the default first. Empty for `mcp-json`, which has no file of its own. */
  readonly scopes: readonly InstallScope[];
  readonly syntax: ConfigSyntax;
  /** The key path of the map from server name to entry (`['mcpServers']`). */
  readonly serversKey: readonly string[];
  /** The configuration file for a scope (one of `scopes`). */
  file(scope: InstallScope, locations: ConfigLocations): string;
  /** The entry for a server; throws a `CliError` for a launch the client cannot express. */
  entry(server: ServerToInstall): Record<string, unknown>;
  /** What to do next, printed after a write (e.g. how to check the client sees the server). */
  readonly nextStep?: string;
}
