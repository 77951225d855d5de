import 'reflect-metadata';
import { decoratorError } from '../decorators/decorator-error';
import {
  CONDITIONAL_VALIDATION,
  groupByProperty,
  NESTED_VALIDATION,
  type TypeMetadata,
  typeMetadataOf,
  type ValidationMetadata,
  validationMetadatasOf,
} from './metadata-sources';
import { getDescription } from './schema-keys';

/** One property of a DTO, as its decorators describe it. */
export interface PropertyModel {
  readonly name: string;
  /** Its class-validator metadata, in the order class-validator applies them. */
  readonly metadatas: readonly ValidationMetadata[];
  /** `@IsOptional()` or `@ValidateIf()`: validation is skipped when the value is missing. */
  readonly optional: boolean;
  /** `@ValidateNested()` + `@Type(() => Class)`: the nested class. */
  readonly nested: DtoModel | undefined;
  /** `@Type()`, when there is one. */
  readonly typeMetadata: TypeMetadata | undefined;
  readonly description: string | undefined;
  /** The value a fresh instance holds (its initializer), `undefined` when none. */
  readonly initial: unknown;
}

/** A DTO class read once: what `jsonSchemaFromClass` and `compileClassValidator` work from. */
export interface DtoModel {
  readonly dto: new () => object;
  /** How misuse errors name it: `Tool argument class SearchNotes`. */
  readonly label: string;
  /** Declaration order, base classes first: the order of `properties` in the schema. */
  readonly properties: readonly PropertyModel[];
  /** The order class-validator validates in (own properties before inherited ones). */
  readonly validationOrder: readonly PropertyModel[];
  readonly description: string | undefined;
}

/** Where the class is used, for misuse messages; e.g. `Tool 'search_notes' (NotesTools.search)`. */
export interface DtoContext {
  readonly context?: string;
}

interface Trail {
  readonly dto: Function;
  readonly property: string;
}

/** Classes that `@Type()` converts to rather than nests (class-transformer handles them itself). */
const NOT_NESTABLE = new Set<unknown>([
  String,
  Number,
  Boolean,
  Date,
  Object,
  Array,
  Function,
  Map,
  Set,
  Promise,
]);

function rootLabel(dto: Function, options: DtoContext | undefined): string {
  return options?.context
    ? `${options.context}, argument class ${dto.name}`
    : `Tool argument class ${dto.name}`;
}

function instantiate(dto: new () => object, label: string): object {
  try {
    return new dto();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw decoratorError(
      `${label} could not be created with new ${dto.name}(): ${reason}; argument classes need a constructor without parameters`,
    );
  }
}

/** A type decorator that fits what TypeScript says the property is, for "add one such as …". */
export function suggestDecorator(dto: Function, property: string, initial: unknown): string {
  const designType: unknown = Reflect.getMetadata('design:type', dto.prototype, property);
  const type = designType === Object || designType === undefined ? initial?.constructor : designType;
  if (type === Number) return '@IsNumber()';
  if (type === Boolean) return '@IsBoolean()';
  if (type === Array) return '@IsArray()';
  if (typeof type === 'function' && !NOT_NESTABLE.has(type))
    return `@ValidateNested() with @Type(() => ${type.name})`;
  return '@IsString()';
}

/** Class chain from the base class down to `dto`. */
function lineage(dto: Function): Function[] {
  const chain: Function[] = [];
  for (
    let cls: unknown = dto;
    typeof cls === 'function' && cls !== Function.prototype;
    cls = Object.getPrototypeOf(cls)
  ) {
    chain.unshift(cls);
  }
  return chain;
}

function declarationOrder(dto: Function, metadatas: readonly ValidationMetadata[]): string[] {
  const names: string[] = [];
  for (const cls of lineage(dto)) {
    for (const metadata of metadatas) {
      if (metadata.target === cls && !names.includes(metadata.propertyName))
        names.push(metadata.propertyName);
    }
  }
  for (const metadata of metadatas) {
    if (!names.includes(metadata.propertyName)) names.push(metadata.propertyName);
  }
  return names;
}

function nestedClass(name: string, typeMetadata: TypeMetadata, label: string): Function | undefined {
  if (typeMetadata.options?.discriminator) {
    throw decoratorError(
      `${label}: property '${name}' uses @Type() with a discriminator, which cannot be inlined into a JSON Schema; ` +
        'use one class per tool, or describe the arguments with a plain JSON Schema',
    );
  }
  try {
    return typeMetadata.typeFunction({ newObject: {}, object: {}, property: name });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw decoratorError(`${label}: the @Type() function of property '${name}' threw: ${reason}`);
  }
}

function readNested(
  dto: Function,
  name: string,
  typeMetadata: TypeMetadata | undefined,
  label: string,
  root: string,
  trail: readonly Trail[],
): DtoModel | undefined {
  if (!typeMetadata) {
    const designType: unknown = Reflect.getMetadata('design:type', dto.prototype, name);
    const hint =
      typeof designType === 'function' && !NOT_NESTABLE.has(designType) ? designType.name : 'TheNestedClass';
    throw decoratorError(
      `${label}: property '${name}' has @ValidateNested() but no @Type(); add @Type(() => ${hint}) so class-transformer builds the nested class`,
    );
  }
  const child = nestedClass(name, typeMetadata, label);
  if (typeof child !== 'function' || NOT_NESTABLE.has(child)) {
    throw decoratorError(
      `${label}: property '${name}' has @ValidateNested() but its @Type() does not return a class with class-validator decorators; return one, e.g. @Type(() => Address)`,
    );
  }
  const here = [...trail, { dto, property: name }];
  const loop = here.findIndex((step) => step.dto === child);
  if (loop !== -1) {
    const chain = [...here.slice(loop).map((step) => `${step.dto.name}.${step.property}`), child.name].join(
      ' → ',
    );
    throw decoratorError(
      `${label}: property '${name}' refers back to ${child.name} (${chain}); a recursive argument class cannot be inlined into a JSON Schema. ` +
        'Give the inner level a class of its own, or describe the arguments with a plain JSON Schema',
    );
  }
  const path = here.map((step) => step.property).join('.');
  const model = readModel(
    child as new () => object,
    `${root}, nested class ${child.name} at '${path}'`,
    root,
    here,
  );
  if (model.properties.length === 0) {
    throw decoratorError(
      `${label}: property '${name}' nests class ${child.name}, which has no class-validator decorators; add some to ${child.name}, or drop @ValidateNested()`,
    );
  }
  return model;
}

function readModel(dto: new () => object, label: string, root: string, trail: readonly Trail[]): DtoModel {
  const sample = instantiate(dto, label);
  const metadatas = validationMetadatasOf(dto);
  const fields = Object.keys(sample);
  if (metadatas.length === 0 && fields.length > 0) {
    throw decoratorError(
      `${label} has no class-validator decorators; add one to each property, such as @IsString()`,
    );
  }
  const grouped = groupByProperty(metadatas);
  for (const field of fields) {
    if (!Object.hasOwn(grouped, field)) {
      const suggestion = suggestDecorator(dto, field, (sample as Record<string, unknown>)[field]);
      throw decoratorError(
        `${label}: property '${field}' has no class-validator decorators, so every call would be rejected; add one such as ${suggestion}, or remove the property`,
      );
    }
  }
  const byName = new Map<string, PropertyModel>();
  for (const name of declarationOrder(dto, metadatas)) {
    const own = grouped[name];
    const typeMetadata = typeMetadataOf(dto, name);
    const nests = own.some((m) => m.type === NESTED_VALIDATION);
    if (!nests && typeMetadata) {
      const target = nestedClassOrUndefined(typeMetadata);
      if (typeof target === 'function' && !NOT_NESTABLE.has(target)) {
        throw decoratorError(
          `${label}: property '${name}' has @Type(() => ${target.name}) but no @ValidateNested(), so its fields would not be validated; add @ValidateNested()`,
        );
      }
    }
    byName.set(name, {
      name,
      metadatas: own,
      optional: own.some((m) => m.type === CONDITIONAL_VALIDATION),
      nested: nests ? readNested(dto, name, typeMetadata, label, root, trail) : undefined,
      typeMetadata,
      description: getDescription(dto.prototype, name),
      initial: Object.hasOwn(sample, name) ? (sample as Record<string, unknown>)[name] : undefined,
    });
  }
  const properties = [...byName.values()];
  return {
    dto,
    label,
    properties,
    validationOrder: Object.keys(grouped).map((name) => byName.get(name)!),
    description: getDescription(dto),
  };
}

function nestedClassOrUndefined(typeMetadata: TypeMetadata): unknown {
  if (typeMetadata.options?.discriminator) return undefined;
  try {
    return typeMetadata.typeFunction({ newObject: {}, object: {}, property: typeMetadata.propertyName });
  } catch {
    return undefined;
  }
}

/**
 * Reads a DTO class (and the classes nested in it) from its decorators, and rejects misuse at
 * once: no class-validator decorators, undecorated fields, `@ValidateNested()` without `@Type()`
 * (or the reverse), recursive classes.
 */
export function readDtoModel(dto: Function, options?: DtoContext): DtoModel {
  const label = rootLabel(dto, options);
  return readModel(dto as new () => object, label, label, []);
}
