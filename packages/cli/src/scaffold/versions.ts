/**
 * Versions a new project depends on: the ones this repository builds and tests Gantry with
 * (its root package.json; test/new.int.spec.ts fails when the two drift apart).
 */
export const PROJECT_DEPENDENCIES = {
  'class-transformer': '^0.5.1',
  'class-validator': '^0.15.1',
  'reflect-metadata': '^0.2.2',
} as const;

/** What an HTTP project adds: Fastify is a peer dependency of `@gantry/fastify`. */
export const HTTP_DEPENDENCIES = { fastify: '^5.12.8' } as const;

/** What `gantry add ws` adds: `ws` is a peer dependency of `@gantry/ws`. */
export const WS_DEPENDENCIES = { ws: '^8.23.0' } as const;

/** Tools, pinned like the repository's own. `esbuild` is the peer `esbuild-register` needs to load jest.config.ts. */
export const PROJECT_DEV_DEPENDENCIES = {
  '@swc/core': '1.16.22',
  '@swc/jest': '0.2.39',
  '@types/jest': '30.0.0',
  '@types/node': '^20.19.0',
  esbuild: '0.28.2',
  'esbuild-register': '3.6.0',
  jest: '30.5.2',
  typescript: '6.0.3',
} as const;

/**
 * npm `overrides` of an HTTP project. light-my-request, which Fastify uses for `inject`, is held
 * at the version this repository tests with (its root package.json has the same override).
 */
export const HTTP_OVERRIDES = { 'light-my-request': '6.6.0' } as const;

/** Which `@gantry/*` packages a project needs, by transport. */
export function gantryPackages(transport: 'stdio' | 'http'): {
  dependencies: string[];
  devDependencies: string[];
} {
  return {
    dependencies: transport === 'http' ? ['@gantry/core', '@gantry/fastify'] : ['@gantry/core'],
    devDependencies: ['@gantry/cli', '@gantry/client', '@gantry/testing'],
  };
}
