export {
  OverrideBy,
  Test,
  type TestingCompileOptions,
  TestingModule,
  TestingModuleBuilder,
  type TestingModuleMetadata,
} from './testing-module';
