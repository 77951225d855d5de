import type { ValidationError, ValidatorOptions } from 'class-validator';
import type { DtoModel } from './dto-model';
import { constraintsOf, NESTED_VALIDATION } from './metadata-sources';
import { classTransformer, classValidator } from './peer-libraries';
import {
  type ArgsValidator,
  indexPath,
  isArgumentsObject,
  notAnObject,
  propertyPath,
  type ValidationIssue,
  type ValidationOutcome,
} from './validation-issue';

/** Unknown properties are errors (`property x should not exist`), as MCP tools declare `additionalProperties: false`. */
const VALIDATOR_OPTIONS: ValidatorOptions = Object.freeze({
  whitelist: true,
  forbidNonWhitelisted: true,
});

/** Flattens class-validator's error tree into issues, one per failed constraint, in its order. */
function issuesFromErrors(
  errors: readonly ValidationError[],
  parentPath = '',
  parentIsArray = false,
  issues: ValidationIssue[] = [],
): ValidationIssue[] {
  for (const error of errors) {
    const path =
      error.property === undefined
        ? parentPath
        : parentIsArray
          ? indexPath(parentPath, error.property)
          : propertyPath(parentPath, error.property);
    if (error.constraints) {
      for (const message of Object.values(error.constraints)) issues.push({ path, message });
    }
    if (error.children && error.children.length > 0) {
      issuesFromErrors(error.children, path, Array.isArray(error.value), issues);
    }
  }
  return issues;
}

/** True when some constraint of the class (or of a nested class) validates asynchronously. */
function needsAsync(model: DtoModel, seen: Set<DtoModel> = new Set()): boolean {
  if (seen.has(model)) return false;
  seen.add(model);
  return model.properties.some(
    (property) =>
      property.metadatas.some(
        (metadata) =>
          metadata.type === 'promiseValidation' ||
          (metadata.type !== NESTED_VALIDATION &&
            metadata.constraintCls !== undefined &&
            constraintsOf(metadata).some((c) => c.async)),
      ) ||
      (property.nested !== undefined && needsAsync(property.nested, seen)),
  );
}

function outcome<T>(instance: T, errors: readonly ValidationError[]): ValidationOutcome<T> {
  return errors.length === 0
    ? { ok: true, value: instance }
    : { ok: false, issues: issuesFromErrors(errors) };
}

/**
 * The correctness baseline: class-transformer's `plainToInstance` then class-validator with
 * `{ whitelist: true, forbidNonWhitelisted: true }`; `validate()` (a Promise) only when some
 * constraint is asynchronous, `validateSync()` otherwise. Used for every DTO the compiled fast
 * path does not cover.
 */
export function compileClassValidatorPath<T>(model: DtoModel): ArgsValidator<T> {
  const dto = model.dto as new () => T;
  const isAsync = needsAsync(model);
  return {
    validate(input: unknown): ValidationOutcome<T> | Promise<ValidationOutcome<T>> {
      const plain = input === undefined ? {} : input;
      if (!isArgumentsObject(plain)) return notAnObject();
      let instance: T;
      try {
        instance = classTransformer().plainToInstance(dto, plain);
      } catch (error) {
        // class-transformer throws on some odd shapes (an untyped nested object whose
        // "constructor" key holds a non-class value): report it as invalid arguments.
        const reason = error instanceof Error ? error.message : String(error);
        return { ok: false, issues: [{ path: '', message: `arguments could not be converted: ${reason}` }] };
      }
      if (isAsync)
        return classValidator()
          .validate(instance as object, VALIDATOR_OPTIONS)
          .then((errors) => outcome(instance, errors));
      return outcome(instance, classValidator().validateSync(instance as object, VALIDATOR_OPTIONS));
    },
  };
}
