import { PACKAGES_FOLDER } from './gantry-source';
import {
  gantryPackages,
  HTTP_DEPENDENCIES,
  HTTP_OVERRIDES,
  PROJECT_DEPENDENCIES,
  PROJECT_DEV_DEPENDENCIES,
} from './versions';

/** The transports `gantry new` can scaffold for. */
export type ProjectTransport = 'stdio' | 'http';

/** Where `@gantry/*` dependencies point. */
export type GantrySpecs =
  /** A registry range for every package (`^0.1.0`). */
  | { kind: 'registry'; range: string }
  /** Tarball file names in `vendor/`, by package name. */
  | { kind: 'tarballs'; files: ReadonlyMap<string, string> };

function sorted(entries: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The package.json of a new project. With tarballs, each `@gantry/*` dependency is a
 * `file:` spec, and `overrides` repeats them (plus packages only needed indirectly, such as
 * `@gantry/protocol`): the tarballs depend on each other by version, and without the
 * overrides npm would look those versions up in the registry.
 */
export function projectManifest(name: string, transport: ProjectTransport, gantry: GantrySpecs): object {
  const spec = (pkg: string) =>
    gantry.kind === 'registry' ? gantry.range : `file:${PACKAGES_FOLDER}/${gantry.files.get(pkg)}`;
  const packages = gantryPackages(transport);
  const dependencies: Record<string, string> = {
    ...PROJECT_DEPENDENCIES,
    ...(transport === 'http' ? HTTP_DEPENDENCIES : {}),
  };
  for (const pkg of packages.dependencies) dependencies[pkg] = spec(pkg);
  const devDependencies: Record<string, string> = { ...PROJECT_DEV_DEPENDENCIES };
  for (const pkg of packages.devDependencies) devDependencies[pkg] = spec(pkg);

  const overrides: Record<string, string> = transport === 'http' ? { ...HTTP_OVERRIDES } : {};
  if (gantry.kind === 'tarballs') for (const pkg of gantry.files.keys()) overrides[pkg] = spec(pkg);

  return {
    name,
    version: '0.1.0',
    private: true,
    description: 'An MCP server built with Gantry',
    main: 'dist/main.js',
    scripts: {
      build: 'tsc -p tsconfig.json',
      start: 'node dist/main.js',
      dev: 'gantry dev src/main.ts',
      test: 'jest',
      typecheck: 'tsc -p test/tsconfig.json',
    },
    engines: { node: '>=20.19' },
    dependencies: sorted(dependencies),
    devDependencies: sorted(devDependencies),
    ...(Object.keys(overrides).length > 0 ? { overrides: sorted(overrides) } : {}),
  };
}

/**
 * Every `@gantry/*` package a project may need, whatever its transport: those it installs, those
 * only needed indirectly (`@gantry/protocol`), and the transports `gantry add` can wire in later.
 * Nothing is published yet, so a package left out here could never be added to the project.
 */
export const VENDORED_PACKAGES: readonly string[] = [
  '@gantry/cli',
  '@gantry/client',
  '@gantry/core',
  '@gantry/fastify',
  '@gantry/protocol',
  '@gantry/testing',
  '@gantry/ws',
];
