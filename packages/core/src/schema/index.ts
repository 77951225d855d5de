export { compileClassValidator } from './compile-class-validator';
export { jsonSchemaFromClass } from './json-schema-from-class';
export { compileJsonSchemaValidator } from './json-schema-validator';
export {
  DESCRIPTION_METADATA,
  getDescription,
  getParameterDescriptions,
  PARAMETER_DESCRIPTIONS_METADATA,
} from './schema-keys';
export {
  type ArgsValidator,
  formatIssues,
  type ValidationIssue,
  type ValidationOutcome,
} from './validation-issue';
