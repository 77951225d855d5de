export {
  OverrideBy,
  Test,
  type TestingClientOptions,
  type TestingCompileOptions,
  TestingModule,
  TestingModuleBuilder,
  type TestingModuleMetadata,
} from './testing-module';
export { Changes, eventually, type WaitOptions } from './wait';
export { openWire, type Wire, type WireInitialize, type WireOptions } from './wire';
