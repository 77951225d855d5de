/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  // @swc/jest reads .swcrc: legacy decorators with decorator metadata, as tsc emits them.
  transform: { '^.+\\.ts$': ['@swc/jest'] },
};

export default config;
