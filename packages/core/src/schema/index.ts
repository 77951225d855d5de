export { OptionTitles } from '../decorators/option-titles.decorator';
export { Title } from '../decorators/title.decorator';
export { compileClassValidator } from './compile-class-validator';
export {
  checkElicitationSchema,
  type ElicitationSchema,
  type ElicitationSchemaOptions,
  elicitationSchemaFromClass,
} from './elicitation-schema';
export { jsonSchemaFromClass } from './json-schema-from-class';
export {
  compileDeclaredSchema,
  compileJsonSchemaValidator,
  type JsonSchemaValidatorOptions,
} from './json-schema-validator';
export {
  DESCRIPTION_METADATA,
  getDescription,
  getOptionTitles,
  getParameterDescriptions,
  getTitle,
  OPTION_TITLES_METADATA,
  PARAMETER_DESCRIPTIONS_METADATA,
  TITLE_METADATA,
} from './schema-keys';
export {
  compileStandardValidator,
  isStandardSchema,
  jsonSchemaFromStandard,
  type StandardSchemaLike,
} from './standard-schema';
export {
  type ArgsValidator,
  formatIssues,
  type ValidationIssue,
  type ValidationOutcome,
} from './validation-issue';
