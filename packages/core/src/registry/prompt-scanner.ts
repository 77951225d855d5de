import {
  type GetPromptResult,
  InvalidParamsError,
  LocalErrorCode,
  type ObjectJsonSchema,
  type Prompt,
  type PromptArgument,
} from '@gantry/protocol';
import type { ParamDescriptor } from '../decorators/params.decorator';
import type { PromptDescriptor } from '../decorators/prompt.decorator';
import { compileArguments } from '../execution/arguments';
import { unexpectedHandlerError } from '../execution/handler-failure';
import { explainMissing } from '../execution/missing-arguments';
import { toGetPromptResult } from '../execution/prompt-result';
import {
  type ArgsValidator,
  compileClassValidator,
  formatIssues,
  jsonSchemaFromClass,
  type ValidationOutcome,
} from '../schema';
import { CompiledHandler } from './compiled-handler';
import type { Completer } from './completion';
import type { PromptDefinition } from './prompt-definition';
import { deepFreeze, type ScanTarget, scanError } from './scan-target';
import { snakeCase } from './tool-name';
import { argsClassOf } from './tool-scanner';

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

type PropertySchema = { type?: string | string[]; items?: PropertySchema };

/**
 * Prompt arguments are strings on the wire (2025-11-25 `prompts/get`). Each value is converted
 * to the type its DTO property declares, so that `@IsInt()` sees a number: numeric strings to
 * numbers, `true`/`false` to booleans, a JSON array or a comma-separated list to an array.
 * Values that do not convert stay strings, and validation names them.
 */
function convert(value: string, schema: PropertySchema | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type;
  switch (type) {
    case 'integer':
    case 'number':
      return NUMBER.test(value.trim()) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'array': {
      if (value.trim().startsWith('[')) {
        try {
          return JSON.parse(value);
        } catch {
          return value;
        }
      }
      const items = value === '' ? [] : value.split(',').map((v) => v.trim());
      return items.map((item) => convert(item, schema?.items));
    }
    default:
      return value;
  }
}

function argumentsOf(schema: ObjectJsonSchema): PromptArgument[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const argument: PromptArgument = { name };
    const description = (property as { description?: unknown }).description;
    if (typeof description === 'string') argument.description = description;
    argument.required = required.has(name);
    return argument;
  });
}

/** Builds the definition of one `@Prompt` method. */
export function buildPrompt(
  target: ScanTarget,
  descriptor: PromptDescriptor,
  completers: Map<string, Completer>,
): PromptDefinition {
  const { options, propertyKey } = descriptor;
  const name = options.name ?? snakeCase(propertyKey);
  const source = target.source(propertyKey);
  const where = `Prompt '${name}' (${source})`;
  const params = target.paramsOf(propertyKey);
  const foreign = params.find((p) => p.kind === 'param' || p.kind === 'uri');
  if (foreign) {
    throw scanError(
      LocalErrorCode.InvalidDecorator,
      `${where}: parameter #${foreign.index} uses a resource parameter decorator; prompts take @Args() and @Ctx()`,
    );
  }
  const argsParam = params.find((p): p is Extract<ParamDescriptor, { kind: 'args' }> => p.kind === 'args');
  const dto = argsClassOf(target, propertyKey, where, argsParam, undefined);
  const schema = dto ? jsonSchemaFromClass(dto, { context: where }) : undefined;
  const validator: ArgsValidator | undefined = dto
    ? compileClassValidator(dto as new () => unknown, { context: where })
    : undefined;
  const properties = (schema?.properties ?? {}) as Record<string, PropertySchema>;
  const argumentNames = Object.keys(properties);
  for (const argument of completers.keys()) {
    if (!argumentNames.includes(argument)) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: a completer for '${argument}' names no argument of the prompt; its arguments are ${argumentNames.join(', ') || 'none'}`,
      );
    }
  }

  const wire: Prompt = { name };
  if (options.title !== undefined) wire.title = options.title;
  if (options.description !== undefined) wire.description = options.description;
  if (schema) wire.arguments = argumentsOf(schema);
  if (options.icons !== undefined) wire.icons = structuredClone(options.icons);
  if (options._meta !== undefined) wire._meta = structuredClone(options._meta);

  const validate = (raw: unknown): ValidationOutcome | Promise<ValidationOutcome> => {
    const given = (raw ?? {}) as Record<string, string>;
    if (!validator) {
      const extra = Object.keys(given);
      if (extra.length === 0) return { ok: true, value: undefined };
      return {
        ok: false,
        issues: extra.map((key) => ({ path: key, message: `${key} is not an argument of this prompt` })),
      };
    }
    const converted: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(given)) converted[key] = convert(value, properties[key]);
    return validator.validate(converted);
  };

  const method = target.method(propertyKey);
  const instance = target.instance;
  const buildArguments = compileArguments(params);
  const description = options.description;
  const handler = new CompiledHandler<GetPromptResult>(
    {
      kind: 'prompt',
      name,
      handlerClass: target.cls,
      handler: method,
      validate,
      // 2025-11-25 prompts: invalid or missing arguments are −32602.
      onInvalid: (issues, raw) => {
        throw new InvalidParamsError(
          `Invalid arguments for prompt '${name}': ${formatIssues(explainMissing(issues, raw))}`,
          {
            prompt: name,
          },
        );
      },
      invoke: (value, mcp) => method.apply(instance, buildArguments(value, mcp)),
      map: (returned) => toGetPromptResult(returned, name, description),
      onError: (error, inbound, session) => {
        throw unexpectedHandlerError(error, target.logger, `Prompt '${name}' (${source})`, inbound, session);
      },
      needsContext: params.some((p) => p.kind === 'ctx'),
    },
    target.enhancers(propertyKey),
    target.globals,
  );
  return Object.freeze({
    name,
    descriptor: deepFreeze(wire),
    source,
    handler,
    completers,
    cache: options.cache,
  });
}
