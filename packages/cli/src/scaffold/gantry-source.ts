import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { cliPackageRoot, cliVersion, readManifest } from './cli-package';
import { outputTail, type RunCommand } from './run-command';

/** Name of the root package.json of a Gantry checkout. */
const MONOREPO_NAME = 'gantry-monorepo';

/** Where a new project gets `@gantry/*` from. */
export type GantrySource =
  /** The npm registry, with a version range (`^0.1.0`). */
  | { kind: 'registry'; range: string }
  /** Tarballs packed from a Gantry checkout into the project's `vendor/`. */
  | { kind: 'checkout'; root: string };

/**
 * Folder of a new project that holds the tarballs packed from a checkout. It is committed with
 * the project (a clone installs from it), so it is a plain, visible folder with the name other
 * ecosystems give committed third-party code; projects made before it was chosen use
 * `.gantry-packages`, which `gantry add` still reads.
 */
export const PACKAGES_FOLDER = 'vendor';

/** The checkout this CLI runs from (`<repo>/packages/cli`), if it runs from one. */
export function ownCheckout(): string | undefined {
  const cli = cliPackageRoot();
  const packages = dirname(cli);
  if (basename(packages) !== 'packages') return undefined;
  const repo = dirname(packages);
  return readManifest(repo)?.name === MONOREPO_NAME ? repo : undefined;
}

/** Checks that `path` is a Gantry checkout (for `--link`) and returns its absolute path. */
export function checkoutAt(path: string): string {
  const root = resolve(path);
  if (readManifest(root)?.name !== MONOREPO_NAME) {
    throw new CliError(
      `--link ${path}: not a Gantry checkout (no package.json named "${MONOREPO_NAME}" in ${root})`,
      ExitCode.Usage,
    );
  }
  return root;
}

/**
 * Picks the source: `--link <path>` wins, then `--no-link` (the registry), then the checkout
 * this CLI runs from, then the registry at the CLI's own version.
 */
export function chooseSource(link: string | boolean | undefined): GantrySource {
  if (typeof link === 'string') return { kind: 'checkout', root: checkoutAt(link) };
  const own = link === false ? undefined : ownCheckout();
  return own ? { kind: 'checkout', root: own } : { kind: 'registry', range: `^${cliVersion()}` };
}

/** `@gantry/core` → `packages/core`, the package's folder in a checkout. */
function workspaceFolder(root: string, name: string): string {
  return join(root, 'packages', name.slice('@gantry/'.length));
}

/** Packages of the checkout whose build output (their `main`) is missing. */
function unbuilt(root: string, names: readonly string[]): string[] {
  return names.filter((name) => {
    const folder = workspaceFolder(root, name);
    const main = readManifest(folder)?.main;
    return main === undefined || !existsSync(join(folder, main));
  });
}

/**
 * Packs `names` from the checkout at `root` into `destination` (`npm pack`, one run for all)
 * and returns each package's tarball file name. Builds the checkout first when a package has
 * no `dist`.
 */
export async function packCheckout(
  root: string,
  names: readonly string[],
  destination: string,
  run: RunCommand,
  onBuild: (message: string) => void,
): Promise<Map<string, string>> {
  for (const name of names) {
    if (readManifest(workspaceFolder(root, name))?.name !== name) {
      throw new CliError(`the Gantry checkout at ${root} has no ${name} (packages/${name.slice(8)})`);
    }
  }
  if (unbuilt(root, names).length > 0) {
    onBuild(`Building the Gantry checkout at ${root} (npm run build)`);
    const build = await run('npm', ['run', 'build'], { cwd: root });
    const missing = unbuilt(root, names);
    if (build.code !== 0 || missing.length > 0) {
      throw new CliError(
        `the Gantry checkout at ${root} is not built (${missing.join(', ') || 'npm run build failed'}); ` +
          `run npm run build there and try again\n${outputTail(build.output)}`,
        ExitCode.Usage,
      );
    }
  }
  await mkdir(destination, { recursive: true });
  const args = ['pack', '--json', '--pack-destination', destination];
  for (const name of names) args.push('--workspace', name);
  const packed = await run('npm', args, { cwd: root });
  if (packed.code !== 0) {
    throw new CliError(`npm pack failed in ${root}:\n${outputTail(packed.output)}`, ExitCode.Usage);
  }
  const tarballs = new Map<string, string>();
  for (const entry of parsePackOutput(packed.stdout)) tarballs.set(entry.name, entry.filename);
  const missing = names.filter((name) => !tarballs.has(name));
  if (missing.length > 0) {
    throw new CliError(
      `npm pack in ${root} did not pack ${missing.join(', ')}:\n${outputTail(packed.output)}`,
    );
  }
  return tarballs;
}

/** The JSON array `npm pack --json` prints on stdout (after any lines a lifecycle script printed). */
function parsePackOutput(stdout: string): { name: string; filename: string }[] {
  const start = stdout.search(/^\[/m);
  try {
    return start === -1 ? [] : JSON.parse(stdout.slice(start));
  } catch {
    return [];
  }
}
