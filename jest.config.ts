/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// Three projects, by what a test needs (test/jest/speed-guard.ts enforces the first two):
//   unit         *.spec.ts      in memory (`inject`, linked transports): no process, port or connection
//   integration  *.int.spec.ts  child processes and sockets; spawned servers run from dist (tsc -b)
//   e2e          *.e2e.spec.ts  installs packages from the npm registry
// `npm test` runs all three, the unit project in a Jest run of its own: workers are shared across
// the projects of one run, and a socket an integration file leaves connecting would trip the unit
// guard of whichever unit file that worker runs next. `npm run test:unit` is the quick loop.
// test/reliability has its own config.
type Project = NonNullable<Config['projects']>[number] & object;

const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/docs', '<rootDir>/test/jest'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: { '^@gantry/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts' },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
} satisfies Project;

const config: Config = {
  testTimeout: 30_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['**/test/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$'],
      setupFilesAfterEnv: ['<rootDir>/test/jest/unit-setup.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/test/**/*.int.spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/jest/integration-setup.ts'],
    },
    { ...shared, displayName: 'e2e', testMatch: ['**/test/**/*.e2e.spec.ts'] },
  ],
};

export default config;
