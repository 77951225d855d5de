import { compileClassValidatorPath } from './class-validator-path';
import { type DtoContext, readDtoModel } from './dto-model';
import { compileFastPath } from './fast-path';
import { schemaOfModel } from './json-schema-from-class';
import type { ArgsValidator } from './validation-issue';

/**
 * Compiles the validator of a DTO class: raw JSON arguments in, an instance of `dto` out (the
 * instance the tool method receives, with initializer defaults kept for omitted properties).
 *
 * The result matches class-transformer's `plainToInstance` followed by class-validator with
 * `{ whitelist: true, forbidNonWhitelisted: true }`, which is what runs for DTOs that use
 * custom or async constraints, groups, `@ValidateIf`, `@Transform`/`@Expose`/`@Exclude` or
 * `@Type` conversions. DTOs made of the common built-ins (the ones `jsonSchemaFromClass`
 * understands) get a compiled fast path with the same results. Misuse throws here, at
 * bootstrap, as in `jsonSchemaFromClass`.
 *
 * @example
 * ```ts
 * const validator = compileClassValidator(SearchNotes);
 * validator.validate({ query: 'x' });   // { ok: true, value: SearchNotes { query: 'x', limit: 10 } }
 * validator.validate({ query: 1 });     // { ok: false, issues: [{ path: 'query', message: 'query must be a string' }] }
 * ```
 */
export function compileClassValidator<T>(dto: new () => T, options?: DtoContext): ArgsValidator<T> {
  const model = readDtoModel(dto, options);
  schemaOfModel(model);
  const baseline = compileClassValidatorPath<T>(model);
  // A class without properties has no metadata, which class-validator rejects outright
  // ("an unknown value was passed to the validate function"); the fast path accepts `{}`.
  return compileFastPath(model, baseline) ?? baseline;
}
