/** @jest-config-loader esbuild-register */
// The reliability suite (`npm run test:reliability`): fuzzing, fault injection, a soak and the
// notes app's concurrent writers, against servers started as child processes from dist (as
// users run them), so a crash is a process exit and memory is the server's own. Test code
// runs through the root's swc transform; files run one at a time, the machine is small.
import type { Config } from 'jest';

const config: Config = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/reliability'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': '@swc/jest' },
  moduleNameMapper: { '^@gantry/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts' },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  maxWorkers: 1,
  testTimeout: 120_000,
  globalSetup: '<rootDir>/test/reliability/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/reliability/support/global-teardown.ts',
};

export default config;
