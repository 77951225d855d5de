/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/docs'],
  testMatch: ['**/test/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: { '^@gantry/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts' },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testTimeout: 30_000,
};

export default config;
