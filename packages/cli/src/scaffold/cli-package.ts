import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The parts of a package.json the scaffolder reads. */
export interface PackageManifest {
  name?: string;
  version?: string;
  main?: string;
  workspaces?: string[];
}

/** Reads a package.json, or `undefined` when there is none or it is not valid JSON. */
export function readManifest(directory: string): PackageManifest | undefined {
  try {
    return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as PackageManifest;
  } catch {
    return undefined;
  }
}

let root: string | undefined;

/**
 * The directory of the `@gantry/cli` package this code runs from: `packages/cli` in a
 * checkout, `node_modules/@gantry/cli` once installed. Found by walking up from this file, so
 * it is the same whether the code runs from `src` (tests) or from `dist`.
 */
export function cliPackageRoot(): string {
  if (root) return root;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (readManifest(dir)?.name === '@gantry/cli') {
      root = dir;
      return dir;
    }
    if (dirname(dir) === dir)
      throw new Error(`@gantry/cli: no package.json of @gantry/cli above ${__dirname}`);
  }
}

/** The version of this `@gantry/cli`, which is also the version of the `@gantry/*` packages it scaffolds with. */
export function cliVersion(): string {
  return readManifest(cliPackageRoot())?.version ?? '0.0.0';
}

/** `templates/` of this package (shipped with it: see `files` in its package.json). */
export function templatesRoot(): string {
  const dir = join(cliPackageRoot(), 'templates');
  if (!existsSync(dir)) throw new Error(`@gantry/cli: its templates are missing (${dir})`);
  return dir;
}
