import { GantryError, LocalErrorCode, type ObjectJsonSchema, type Tool } from '@gantry/protocol';
import type { ParamDescriptor } from '../decorators/params.decorator';
import type { ToolDescriptor } from '../decorators/tool.decorator';
import type { Type } from '../di/tokens';
import { compileToolExecutor } from '../execution/tool-executor';
import type { Logger } from '../logger';
import { DESIGN_PARAMTYPES, PARAMS_METADATA, TOOLS_METADATA } from '../metadata/keys';
import {
  type ArgsValidator,
  compileClassValidator,
  compileJsonSchemaValidator,
  jsonSchemaFromClass,
  type ValidationOutcome,
} from '../schema';
import type { ToolDefinition } from './tool-definition';
import { snakeCase, toolNameProblem } from './tool-name';

/** Parameter types that say nothing about the arguments (interfaces, `any`, primitives). */
const NOT_A_DTO = new Set<unknown>([Object, String, Number, Boolean, Array, Function, Promise]);

/** The input schema of a tool without arguments (2025-11-25 recommends `additionalProperties: false`). */
const NO_ARGS_SCHEMA: ObjectJsonSchema = Object.freeze({ type: 'object', additionalProperties: false });

const noArgsValidator: ArgsValidator = {
  validate(input: unknown): ValidationOutcome {
    if (input === undefined) return { ok: true, value: undefined };
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { ok: false, issues: [{ path: '', message: 'arguments must be an object' }] };
    }
    const keys = Object.keys(input);
    if (keys.length === 0) return { ok: true, value: undefined };
    return {
      ok: false,
      issues: keys.map((key) => ({
        path: key,
        message: `property ${key} should not exist (this tool takes no arguments)`,
      })),
    };
  },
};

function scanError(code: (typeof LocalErrorCode)[keyof typeof LocalErrorCode], message: string): GantryError {
  return new GantryError(code, message);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

interface InputPlan {
  schema: ObjectJsonSchema;
  validator: ArgsValidator;
}

function planInput(
  proto: object,
  className: string,
  descriptor: ToolDescriptor,
  toolName: string,
  argsParam: Extract<ParamDescriptor, { kind: 'args' }> | undefined,
): InputPlan {
  const where = `Tool '${toolName}' (${className}.${descriptor.propertyKey})`;
  const declared = descriptor.options.input;
  if (declared !== undefined && typeof declared !== 'function') {
    if (argsParam?.dto) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: both @Tool({ input }) and @Args(${argsParam.dto.name}) describe the arguments; keep one`,
      );
    }
    const schema = deepFreeze(structuredClone(declared));
    return { schema, validator: compileJsonSchemaValidator(schema) };
  }
  let dto: Type | undefined = argsParam?.dto ?? (declared as Type | undefined);
  if (argsParam?.dto && declared && argsParam.dto !== declared) {
    throw scanError(
      LocalErrorCode.InvalidDecorator,
      `${where}: @Tool({ input: ${(declared as Type).name} }) and @Args(${argsParam.dto.name}) name different classes; keep one`,
    );
  }
  if (!dto && argsParam) {
    const types: unknown[] | undefined = Reflect.getMetadata(
      DESIGN_PARAMTYPES,
      proto,
      descriptor.propertyKey,
    );
    const type = types?.[argsParam.index];
    if (types === undefined || type === undefined) {
      throw scanError(
        LocalErrorCode.MissingMetadata,
        `${where}: cannot tell the argument class of parameter #${argsParam.index}: there is no design:paramtypes metadata. ` +
          'Either compile with decorator metadata (tsc with "emitDecoratorMetadata": true, or swc with ' +
          'jsc.transform.decoratorMetadata; esbuild and tsx do not emit it), or name the class: @Args(MyArgs).',
      );
    }
    if (NOT_A_DTO.has(type)) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: parameter #${argsParam.index} has type ${(type as Function).name}, which does not describe arguments. ` +
          '@Args() needs a class with class-validator decorators; or pass a JSON Schema with @Tool({ input: { type: "object", ... } }).',
      );
    }
    dto = type as Type;
  }
  if (!dto) return { schema: NO_ARGS_SCHEMA, validator: noArgsValidator };
  const schema = deepFreeze(jsonSchemaFromClass(dto, { context: where }));
  return { schema, validator: compileClassValidator(dto as new () => unknown) };
}

/**
 * Reads the `@Tool` methods of every provider instance and builds frozen definitions with
 * compiled executors. Fails on duplicate names, invalid names and parameter decorators on
 * methods that are not handlers.
 */
export function scanTools(instances: readonly unknown[], logger: Logger): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  const byName = new Map<string, ToolDefinition>();
  for (const instance of instances) {
    if (typeof instance !== 'object' || instance === null) continue;
    const proto = Object.getPrototypeOf(instance) as object;
    const tools: ToolDescriptor[] | undefined = Reflect.getMetadata(TOOLS_METADATA, proto);
    const paramsByMethod: Map<string | symbol, ParamDescriptor[]> | undefined = Reflect.getMetadata(
      PARAMS_METADATA,
      proto,
    );
    const className = (instance.constructor as Function).name;
    const handlers = new Set(tools?.map((t) => t.propertyKey));
    for (const method of paramsByMethod?.keys() ?? []) {
      if (!handlers.has(method as string)) {
        throw scanError(
          LocalErrorCode.InvalidDecorator,
          `${className}.${String(method)} has @Args()/@Ctx() parameters but is not a handler: add @Tool() to the method`,
        );
      }
    }
    for (const descriptor of tools ?? []) {
      const name = descriptor.options.name ?? snakeCase(descriptor.propertyKey);
      const source = `${className}.${descriptor.propertyKey}`;
      const problem = toolNameProblem(name);
      if (problem) {
        throw scanError(
          LocalErrorCode.InvalidDecorator,
          `${source}: the tool name ${JSON.stringify(name)} is invalid: ${problem}. Set one with @Tool({ name: '...' })`,
        );
      }
      const previous = byName.get(name);
      if (previous) {
        throw scanError(
          LocalErrorCode.DuplicateName,
          `Duplicate tool name '${name}': ${previous.source} and ${source}. Give one of them another name with @Tool({ name: '...' })`,
        );
      }
      const params = paramsByMethod?.get(descriptor.propertyKey) ?? [];
      const argsParam = params.find(
        (p): p is Extract<ParamDescriptor, { kind: 'args' }> => p.kind === 'args',
      );
      const input = planInput(proto, className, descriptor, name, argsParam);
      const { options } = descriptor;
      const wire: Tool = { name, inputSchema: input.schema };
      if (options.title !== undefined) wire.title = options.title;
      if (options.description !== undefined) wire.description = options.description;
      if (options.annotations !== undefined) wire.annotations = { ...options.annotations };
      if (options.icons !== undefined) wire.icons = structuredClone(options.icons);
      if (options._meta !== undefined) wire._meta = structuredClone(options._meta);
      const method = (instance as Record<string, unknown>)[descriptor.propertyKey] as (
        ...args: any[]
      ) => unknown;
      const definition: ToolDefinition = Object.freeze({
        name,
        source,
        descriptor: deepFreeze(wire),
        execute: compileToolExecutor({
          toolName: name,
          source,
          instance,
          method,
          params,
          validator: input.validator,
          logger,
        }),
      });
      byName.set(name, definition);
      definitions.push(definition);
    }
  }
  return definitions;
}
