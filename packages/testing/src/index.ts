export {
  OverrideBy,
  Test,
  type TestingClientOptions,
  type TestingCompileOptions,
  TestingModule,
  TestingModuleBuilder,
  type TestingModuleMetadata,
} from './testing-module';
