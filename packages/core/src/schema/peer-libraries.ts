import type * as ClassTransformer from 'class-transformer';
import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import type * as ClassValidator from 'class-validator';

/**
 * class-validator and class-transformer, loaded on first use. Loading class-validator costs
 * 100–150 ms here (validator.js, libphonenumber); an app whose tools take no DTO classes (plain
 * JSON Schema, or no arguments) never pays it. An app that imports them for its DTOs has them
 * loaded already, and this costs nothing more.
 */
let validator: typeof ClassValidator | undefined;
let transformer: typeof ClassTransformer | undefined;
let storage: TransformerMetadataStorage | undefined;

export function classValidator(): typeof ClassValidator {
  validator ??= require('class-validator') as typeof ClassValidator;
  return validator;
}

export function classTransformer(): typeof ClassTransformer {
  transformer ??= require('class-transformer') as typeof ClassTransformer;
  return transformer;
}

/**
 * class-transformer's metadata store. `class-transformer/cjs/storage` is the very module
 * `plainToInstance` reads (Node resolves `class-transformer` to its CommonJS build), so the
 * metadata seen here is the metadata used.
 */
export function transformerStorage(): TransformerMetadataStorage {
  storage ??= (
    require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadataStorage }
  ).defaultMetadataStorage;
  return storage;
}
