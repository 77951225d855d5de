import { type CompiledCheck, compileCheck, type MessageBuilder, messageBuilder } from './constraint-checks';
import type { DtoModel, PropertyModel } from './dto-model';
import {
  CONDITIONAL_VALIDATION,
  CUSTOM_VALIDATION,
  constraintsOf,
  hasTransformerShaping,
  NESTED_VALIDATION,
} from './metadata-sources';
import {
  type ArgsValidator,
  indexPath,
  isArgumentsObject,
  notAnObject,
  propertyPath,
  type ValidationIssue,
  type ValidationOutcome,
} from './validation-issue';

/**
 * The compiled fast path: for DTOs that use only the built-ins class-validator's baseline path
 * would run through `plainToInstance` + `validateSync`, the same work done by closures built
 * once: the instance is `new Dto()` plus assignments (recursively for `@Type` classes) and each
 * check is a plain test. Results, instances and messages are those of the baseline, which the
 * differential test in `validation.spec.ts` holds it to.
 */

/** Thrown (and caught in `validate`) when an input takes a class-transformer branch we do not mirror. */
const DEOPT = Symbol('gantry:deopt');

interface FastProperty {
  readonly name: string;
  readonly optional: boolean;
  readonly checks: readonly CompiledCheck[];
  readonly nested: FastNested | null;
  /** class-transformer's conversion of the raw value for this property. */
  readonly convert: (raw: unknown) => unknown;
}

interface FastNested {
  readonly node: FastNode;
  /** `nested property x must be either object or array`, worded by class-validator. */
  readonly message: (value: unknown) => string;
}

interface FastNode {
  readonly ctor: new () => object;
  /** Property name → plan, without a prototype so any input key can be looked up. */
  readonly known: Record<string, FastProperty>;
  /** In class-validator's validation order. */
  readonly properties: readonly FastProperty[];
}

// ---------------------------------------------------------------- class-transformer mirror

/** What class-transformer does to a value with no `@Type`: deep copy of plain arrays and objects. */
function copyUntyped(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function') throw DEOPT;
    return value;
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    value.forEach((item) => {
      copy.push(copyUntyped(item));
    });
    return copy;
  }
  // Dates, Maps, class instances, objects of another realm and objects with an own
  // "constructor" key take other branches of class-transformer.
  if (Object.getPrototypeOf(value) !== Object.prototype || value.constructor !== Object) throw DEOPT;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // class-transformer skips `__proto__`, `constructor` and every key the new `{}` already has
    // as a method (`toString`, `hasOwnProperty`…): all of Object.prototype's own keys.
    if (key in Object.prototype) continue;
    copy[key] = copyUntyped((value as Record<string, unknown>)[key]);
  }
  return copy;
}

/** True when class-transformer leaves `key` out of the instance it builds. */
function skippedByTransformer(instance: object, key: string): boolean {
  if (key === '__proto__' || key === 'constructor') return true;
  const descriptor = Object.getOwnPropertyDescriptor(instance.constructor.prototype, key);
  return (
    (descriptor !== undefined && !descriptor.set) ||
    (instance as Record<string, unknown>)[key] instanceof Function
  );
}

/**
 * `plainToInstance` for one class. With `unknown`, keys the class does not declare are reported
 * there as they are met: in the order class-validator's whitelist would find them on the
 * instance (its own keys are all declared, so the undeclared ones follow in input order), which
 * spares the top level a second pass over the instance's keys.
 */
function build(node: FastNode, raw: object, unknown: ValidationIssue[] | null): object {
  const instance = new node.ctor() as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    const property = node.known[key];
    const value = (raw as Record<string, unknown>)[key];
    if (property !== undefined) instance[key] = property.convert(value);
    else if (!skippedByTransformer(instance, key)) {
      instance[key] = copyUntyped(value);
      unknown?.push({ path: key, message: `property ${key} should not exist` });
    }
  }
  return instance;
}

function convertTyped(node: FastNode, value: unknown): unknown {
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    value.forEach((item) => {
      copy.push(convertTyped(node, item));
    });
    return copy;
  }
  if (typeof value === 'object' && value !== null) {
    if (Object.getPrototypeOf(value) !== Object.prototype) throw DEOPT;
    return build(node, value, null);
  }
  if (typeof value === 'function') throw DEOPT;
  return value;
}

// ---------------------------------------------------------------- class-validator mirror

function passes(check: CompiledCheck, value: unknown): boolean {
  if (check.each && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!check.test(value[i])) return false;
    return true;
  }
  return check.test(value);
}

function checkNested(nested: FastNested, value: unknown, path: string, issues: ValidationIssue[]): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] !== undefined) checkNested(nested, value[i], indexPath(path, i), issues);
    }
  } else if (value instanceof Object) {
    checkInstance(nested.node, value, path, issues, true);
  } else {
    issues.push({ path, message: nested.message(value) });
  }
}

/** Validates a built instance; `whitelist` scans its keys for unknown ones (nested instances). */
function checkInstance(
  node: FastNode,
  instance: object,
  path: string,
  issues: ValidationIssue[],
  whitelist: boolean,
) {
  if (whitelist) {
    for (const key of Object.keys(instance)) {
      if (node.known[key] === undefined) {
        issues.push({ path: propertyPath(path, key), message: `property ${key} should not exist` });
      }
    }
  }
  const values = instance as Record<string, unknown>;
  for (const property of node.properties) {
    const value = values[property.name];
    if (property.optional && (value === undefined || value === null)) continue;
    for (const check of property.checks) {
      if (!passes(check, value)) {
        issues.push({ path: propertyPath(path, property.name), message: check.message(instance, value) });
      }
    }
    if (property.nested !== null && value !== undefined) {
      checkNested(property.nested, value, propertyPath(path, property.name), issues);
    }
  }
}

// ---------------------------------------------------------------- compilation

/**
 * class-transformer skips a key the class already has as a method or a prototype property
 * (a getter, say): such classes keep to the baseline.
 */
function plainPrototype(dto: Function, names: readonly string[]): boolean {
  const sample = new (dto as new () => Record<string, unknown>)();
  return names.every(
    (name) =>
      name !== '__proto__' &&
      name !== 'constructor' &&
      Object.getOwnPropertyDescriptor(dto.prototype, name) === undefined &&
      !(sample[name] instanceof Function),
  );
}

function extendsArray(type: unknown): boolean {
  for (let c = type; typeof c === 'function'; c = Object.getPrototypeOf(c)) if (c === Array) return true;
  return false;
}

function compileProperty(property: PropertyModel): FastProperty | null {
  const checks: CompiledCheck[] = [];
  const seen = new Set<string | undefined>();
  let optional = false;
  let nested: FastNested | null = null;
  for (const metadata of property.metadatas) {
    if (
      (metadata.groups && metadata.groups.length > 0) ||
      metadata.always !== undefined ||
      metadata.validateIf
    )
      return null;
    if (metadata.type === CONDITIONAL_VALIDATION) {
      if (metadata.name !== 'isOptional') return null;
      optional = true;
    } else if (metadata.type === NESTED_VALIDATION) {
      if (nested !== null || !property.nested) return null;
      const node = compileFastNode(property.nested);
      if (node === null) return null;
      const message: MessageBuilder = messageBuilder(metadata);
      nested = { node, message: (value) => message(metadata.target as object, value) };
    } else if (metadata.type === CUSTOM_VALIDATION) {
      // Two constraints of one name share a key in class-validator's error: keep its ordering rules to it.
      if (seen.has(metadata.name)) return null;
      seen.add(metadata.name);
      const check = compileCheck(metadata, constraintsOf(metadata));
      if (!check) return null;
      checks.push(check);
    } else return null;
  }
  const typeMetadata = property.typeMetadata;
  if (typeMetadata) {
    // class-transformer builds an array value as `new reflectedType()` when that is a Set or
    // an Array subclass; a type function that reads its options picks the class per value.
    const arrayType: unknown = typeMetadata.reflectedType;
    const customArray = arrayType === Set || (arrayType !== Array && extendsArray(arrayType));
    if (!nested || typeMetadata.typeFunction.length > 0 || customArray) return null;
  }
  const node = nested?.node;
  const convert = node ? (raw: unknown) => convertTyped(node, raw) : copyUntyped;
  return { name: property.name, optional, checks, nested, convert };
}

function compileFastNode(model: DtoModel): FastNode | null {
  const names = model.properties.map((p) => p.name);
  if (hasTransformerShaping(model.dto, names) || !plainPrototype(model.dto, names)) return null;
  const known: Record<string, FastProperty> = Object.create(null);
  const properties: FastProperty[] = [];
  for (const property of model.validationOrder) {
    const compiled = compileProperty(property);
    if (compiled === null) return null;
    known[property.name] = compiled;
    properties.push(compiled);
  }
  return { ctor: model.dto, known, properties };
}

/**
 * The fast-path validator for a model, or `null` when some decorator needs class-validator
 * itself (custom or async constraints, groups, `@ValidateIf`, `@Transform`/`@Expose`/`@Exclude`,
 * `@Type` conversions, accessors…).
 */
export function compileFastPath<T>(model: DtoModel, fallback: ArgsValidator<T>): ArgsValidator<T> | null {
  const node = compileFastNode(model);
  if (node === null) return null;
  const empty = Object.freeze({});
  return {
    validate(input: unknown): ValidationOutcome<T> | Promise<ValidationOutcome<T>> {
      const raw = input === undefined ? empty : input;
      if (!isArgumentsObject(raw)) return notAnObject();
      // Objects of another realm, null-prototype objects…: class-transformer's branches, not ours.
      if (Object.getPrototypeOf(raw) !== Object.prototype) return fallback.validate(input);
      const issues: ValidationIssue[] = [];
      let instance: object;
      try {
        instance = build(node, raw, issues);
      } catch (error) {
        if (error === DEOPT) return fallback.validate(input);
        throw error;
      }
      checkInstance(node, instance, '', issues, false);
      return issues.length === 0 ? { ok: true, value: instance as T } : { ok: false, issues };
    },
  };
}
