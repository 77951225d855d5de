import {
  type CallToolResult,
  LocalErrorCode,
  McpError,
  type ObjectJsonSchema,
  type Tool,
} from '@gantry/protocol';
import { toolUiMeta } from '../apps/tool-ui';
import type { ParamDescriptor } from '../decorators/params.decorator';
import type { ToolDescriptor } from '../decorators/tool.decorator';
import type { Type } from '../di/tokens';
import { compileArguments } from '../execution/arguments';
import { requestLogger } from '../execution/handler-failure';
import { explainMissing } from '../execution/missing-arguments';
import { planOutput } from '../execution/tool-output';
import { toCallToolResult, toolErrorResult } from '../execution/tool-result';
import { DESIGN_PARAMTYPES } from '../metadata/keys';
import {
  type ArgsValidator,
  compileClassValidator,
  compileDeclaredSchema,
  compileStandardValidator,
  formatIssues,
  isStandardSchema,
  jsonSchemaFromClass,
  jsonSchemaFromStandard,
  type ValidationOutcome,
} from '../schema';
import { collectHeaderParams, type HeaderParam } from '../stateless/mcp-header';
import { CompiledHandler } from './compiled-handler';
import { deepFreeze, type ScanTarget, scanError } from './scan-target';
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

interface InputPlan {
  schema: ObjectJsonSchema;
  validator: ArgsValidator;
}

/**
 * The argument DTO of a handler: `@Args(Dto)`, else the `input` option when it is a class, else
 * the parameter's emitted type. Undefined when the handler takes no arguments.
 */
export function argsClassOf(
  target: ScanTarget,
  propertyKey: string,
  where: string,
  argsParam: Extract<ParamDescriptor, { kind: 'args' }> | undefined,
  declared: Type | undefined,
): Type | undefined {
  if (argsParam?.dto && declared && argsParam.dto !== declared) {
    throw scanError(
      LocalErrorCode.InvalidDecorator,
      `${where}: @Tool({ input: ${declared.name} }) and @Args(${argsParam.dto.name}) name different classes; keep one`,
    );
  }
  const dto = argsParam?.dto ?? declared;
  if (dto || !argsParam) return dto;
  const types: unknown[] | undefined = Reflect.getMetadata(DESIGN_PARAMTYPES, target.proto, propertyKey);
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
  return type as Type;
}

function planInput(
  target: ScanTarget,
  descriptor: ToolDescriptor,
  where: string,
  argsParam: Extract<ParamDescriptor, { kind: 'args' }> | undefined,
): InputPlan {
  const declared = descriptor.options.input;
  if (isStandardSchema(declared)) {
    if (argsParam?.dto) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: both @Tool({ input }) and @Args(${argsParam.dto.name}) describe the arguments; keep one`,
      );
    }
    return {
      schema: deepFreeze(jsonSchemaFromStandard(declared, 'input', where)),
      validator: compileStandardValidator(declared),
    };
  }
  if (declared !== undefined && typeof declared !== 'function') {
    if (argsParam?.dto) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: both @Tool({ input }) and @Args(${argsParam.dto.name}) describe the arguments; keep one`,
      );
    }
    const schema = deepFreeze(structuredClone(declared));
    return {
      schema,
      validator: compileDeclaredSchema(schema, `${where}: the input schema cannot be compiled`),
    };
  }
  const dto = argsClassOf(target, descriptor.propertyKey, where, argsParam, declared as Type | undefined);
  if (!dto) return { schema: NO_ARGS_SCHEMA, validator: noArgsValidator };
  const schema = deepFreeze(jsonSchemaFromClass(dto, { context: where }));
  return { schema, validator: compileClassValidator(dto as new () => unknown, { context: where }) };
}

/** Builds the frozen definition of one `@Tool` method, with its compiled pipeline. */
export function buildTool(target: ScanTarget, descriptor: ToolDescriptor): ToolDefinition {
  const { options, propertyKey } = descriptor;
  const name = options.name ?? snakeCase(propertyKey);
  const source = target.source(propertyKey);
  const problem = toolNameProblem(name);
  if (problem) {
    throw scanError(
      LocalErrorCode.InvalidDecorator,
      `${source}: the tool name ${JSON.stringify(name)} is invalid: ${problem}. Set one with @Tool({ name: '...' })`,
    );
  }
  const where = `Tool '${name}' (${source})`;
  const params = target.paramsOf(propertyKey);
  const foreign = params.find((p) => p.kind === 'param' || p.kind === 'uri');
  if (foreign) {
    throw scanError(
      LocalErrorCode.InvalidDecorator,
      `${where}: parameter #${foreign.index} uses ${foreign.kind === 'param' ? '@Param()' : '@Uri()'}, which belongs to resources; tools take @Args() and @Ctx()`,
    );
  }
  const argsParam = params.find((p): p is Extract<ParamDescriptor, { kind: 'args' }> => p.kind === 'args');
  const input = planInput(target, descriptor, where, argsParam);
  let headers: HeaderParam[];
  try {
    headers = collectHeaderParams(input.schema);
  } catch (error) {
    throw scanError(LocalErrorCode.InvalidDecorator, `${where}: ${(error as Error).message}`);
  }
  const output = options.output === undefined ? undefined : planOutput(options.output, name, where);

  const wire: Tool = { name, inputSchema: input.schema };
  if (options.title !== undefined) wire.title = options.title;
  if (options.description !== undefined) wire.description = options.description;
  if (output) wire.outputSchema = deepFreeze(output.schema);
  if (options.annotations !== undefined) wire.annotations = { ...options.annotations };
  if (options.icons !== undefined) wire.icons = structuredClone(options.icons);
  if (options.task !== undefined) wire.execution = { taskSupport: options.task };
  if (options.ui !== undefined) wire._meta = toolUiMeta(options.ui, options._meta);
  else if (options._meta !== undefined) wire._meta = structuredClone(options._meta);

  const method = target.method(propertyKey);
  const instance = target.instance;
  const buildArguments = compileArguments(params);
  const logger = target.logger;
  const handler = new CompiledHandler<CallToolResult>(
    {
      kind: 'tool',
      name,
      handlerClass: target.cls,
      handler: method,
      validate: (raw) => input.validator.validate(raw),
      // 2025-11-25 (SEP-1303): invalid arguments are a tool execution error the model can correct.
      onInvalid: (issues, raw) =>
        toolErrorResult(`Invalid arguments for tool '${name}': ${formatIssues(explainMissing(issues, raw))}`),
      invoke: (value, mcp) => method.apply(instance, buildArguments(value, mcp)),
      map: output ? (returned) => output.map(returned) : (returned) => toCallToolResult(returned),
      onError: (error, inbound, session) => {
        // McpError is the author's way to answer with a JSON-RPC error: let it reach the Peer.
        if (error instanceof McpError) throw error;
        requestLogger(logger, inbound, session).error(`Tool '${name}' (${source}) failed:`, error);
        return toolErrorResult(error instanceof Error ? error.message : String(error));
      },
      needsContext: params.some((p) => p.kind === 'ctx'),
    },
    target.enhancers(propertyKey),
    target.globals,
  );
  return Object.freeze({
    name,
    source,
    descriptor: deepFreeze(wire),
    handler,
    cache: options.cache,
    headers: headers.length > 0 ? Object.freeze(headers) : undefined,
    ui: options.ui === undefined ? undefined : Object.freeze({ ...options.ui }),
    task: options.task,
    deferTask: options.deferTask,
  });
}
