import { homedir, platform } from 'node:os';
import { posix, win32 } from 'node:path';

/**
 * What the configuration paths are computed from. `gantry install` takes it from the process
 * (`os.platform()`, `os.homedir()`, which follows `HOME` on Linux and macOS, and the
 * environment), so tests point `HOME`, `XDG_CONFIG_HOME` or `APPDATA` at a temporary directory.
 */
export interface ConfigLocations {
  readonly platform: NodeJS.Platform;
  /** The user's home directory. */
  readonly home: string;
  /** The project directory: where project-scope files go and package.json is read. */
  readonly projectDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The locations of this process, for the project in `projectDir`. */
export function processLocations(projectDir: string): ConfigLocations {
  return { platform: platform(), home: homedir(), projectDir, env: process.env };
}

/** `path.win32` on Windows, `path.posix` elsewhere, so paths are right whatever runs the tests. */
export function pathFor(locations: ConfigLocations): typeof posix {
  return locations.platform === 'win32' ? win32 : posix;
}

/**
 * The per-user application data directory desktop applications (Electron's `appData`) keep
 * their settings in: `%APPDATA%` on Windows, `~/Library/Application Support` on macOS, and
 * `$XDG_CONFIG_HOME` (default `~/.config`, XDG Base Directory Specification) elsewhere.
 */
export function appDataDir(locations: ConfigLocations): string {
  const path = pathFor(locations);
  if (locations.platform === 'win32') {
    return nonEmpty(locations.env.APPDATA) ?? path.join(locations.home, 'AppData', 'Roaming');
  }
  if (locations.platform === 'darwin') return path.join(locations.home, 'Library', 'Application Support');
  return xdgConfigHome(locations);
}

/** `$XDG_CONFIG_HOME` when it is an absolute path (as the XDG spec requires), else `~/.config`. */
export function xdgConfigHome(locations: ConfigLocations): string {
  const path = pathFor(locations);
  const configured = nonEmpty(locations.env.XDG_CONFIG_HOME);
  return configured !== undefined && path.isAbsolute(configured)
    ? configured
    : path.join(locations.home, '.config');
}

/** A project-relative path made absolute in the project directory. */
export function inProject(locations: ConfigLocations, ...parts: string[]): string {
  return pathFor(locations).join(locations.projectDir, ...parts);
}

/** A home-relative path made absolute. */
export function inHome(locations: ConfigLocations, ...parts: string[]): string {
  return pathFor(locations).join(locations.home, ...parts);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
