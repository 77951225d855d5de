import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import type { MetadataStorage } from 'class-validator';
import { classValidator, transformerStorage } from './peer-libraries';

/**
 * Access to the two metadata stores a DTO's decorators write to: class-validator's
 * (`getMetadataStorage()`, public) and class-transformer's (`defaultMetadataStorage`, which its
 * public API does not export).
 */

/** One class-validator decorator application (class-validator does not export this type). */
export type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
/** One registered validator constraint (its `instance` validates and words the default message). */
export type ConstraintMetadata = ReturnType<MetadataStorage['getTargetValidatorConstraints']>[number];
/** What `@Type(() => Class)` records. */
export type TypeMetadata = ReturnType<TransformerMetadataStorage['findTypeMetadata']>;

/**
 * The metadata class-validator applies to an instance of `dto` (own and inherited), in the order
 * it applies them; the same call `validate()` makes, without groups.
 */
export function validationMetadatasOf(dto: Function): ValidationMetadata[] {
  return classValidator()
    .getMetadataStorage()
    .getTargetValidationMetadatas(dto, undefined as unknown as string, false, false);
}

/** The constraint implementations behind a custom-validation metadata (one for every built-in). */
export function constraintsOf(metadata: ValidationMetadata): ConstraintMetadata[] {
  return classValidator().getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls);
}

/** class-validator's grouping: property name → its metadata, keys in first-seen order. */
export function groupByProperty(
  metadatas: readonly ValidationMetadata[],
): Record<string, ValidationMetadata[]> {
  return classValidator()
    .getMetadataStorage()
    .groupByPropertyName(metadatas as ValidationMetadata[]);
}

/** The `@Type()` of a property, own or inherited. */
export function typeMetadataOf(dto: Function, property: string): TypeMetadata | undefined {
  return transformerStorage().findTypeMetadata(dto, property);
}

/**
 * True when class-transformer would do more than copy values into a new instance:
 * `@Expose`/`@Exclude` on the class, or `@Transform` on one of the properties.
 */
export function hasTransformerShaping(dto: Function, properties: readonly string[]): boolean {
  if (transformerStorage().getStrategy(dto) !== 'none') return true;
  if (transformerStorage().getExposedMetadatas(dto).length > 0) return true;
  if (transformerStorage().getExcludedMetadatas(dto).length > 0) return true;
  return properties.some(
    (property) =>
      transformerStorage().findTransformMetadatas(dto, property, 0 /* TransformationType.PLAIN_TO_CLASS */)
        .length > 0,
  );
}

// class-validator's ValidationTypes, spelled out so that reading them does not load the library.
export const CONDITIONAL_VALIDATION = 'conditionalValidation';
export const CUSTOM_VALIDATION = 'customValidation';
export const NESTED_VALIDATION = 'nestedValidation';
