import type { Icon, Meta, ObjectJsonSchema, ToolAnnotations } from '@gantry/protocol';
import { checkToolUi, type ToolUiOptions } from '../apps/tool-ui';
import type { Type } from '../di/tokens';
import { recordHandlerClass } from '../metadata/handler-classes';
import { TOOLS_METADATA } from '../metadata/keys';
import { toolNameProblem } from '../registry/tool-name';
import { isStandardSchema, type StandardSchemaLike } from '../schema/standard-schema';
import { type CacheHint, cacheHintProblem } from '../stateless/cache-hint';
import { decoratorError, memberName } from './decorator-error';

export interface ToolOptions {
  /** Wire name; defaults to the method name in snake_case (`searchNotes` → `search_notes`). */
  name?: string;
  /** Display name (2025-06-18+). */
  title?: string;
  /** What the tool does, for the model. */
  description?: string;
  /**
   * The arguments, when `@Args()` does not name them: a class-validator DTO class, a plain
   * JSON Schema object with `type: 'object'`, or a Standard Schema (zod, valibot …) that can
   * describe itself as JSON Schema.
   */
  input?: Type | ObjectJsonSchema | StandardSchemaLike;
  /**
   * The structured output (2025-06-18+): a DTO class, `[Dto]` for a list, or a JSON Schema with
   * `type: 'object'`. It becomes `outputSchema`; what the method returns becomes
   * `structuredContent` (plus its JSON as a text block) and is validated against it. MCP
   * requires an object root, so `[Dto]` is advertised as `{ items: Dto[] }` and the returned
   * array is sent as `{ "items": [...] }`.
   */
  output?: Type | [Type] | ObjectJsonSchema | StandardSchemaLike;
  /** Behaviour hints (2025-03-26+); clients treat them as untrusted. */
  annotations?: ToolAnnotations;
  /** 2025-11-25 icons. */
  icons?: Icon[];
  _meta?: Meta;
  /**
   * Stateless-era caching hints (2026-07-28): for a tool or prompt they bound the `ttlMs` of
   * the whole list (the shortest wins) and `scope: 'private'` makes the list private; for a
   * resource they apply to its reads. Guarded items are always private.
   */
  cache?: CacheHint;
  /**
   * MCP Apps (2026-01-26): the `ui://` view that shows this tool's results, who may call the
   * tool (`visibility`), and the text plain hosts get instead (`fallback`). Written to
   * `_meta.ui` and the deprecated `_meta["ui/resourceUri"]`; the server then advertises the
   * `io.modelcontextprotocol/ui` extension.
   */
  ui?: ToolUiOptions;
  /**
   * Runs the tool as a task that outlives the request (MCP 2025-11-25 tasks; the 2026-07-28
   * extension `io.modelcontextprotocol/tasks`). `'optional'`: a task when the client asks for
   * one (2025-11-25) or supports them (2026-07-28); `'required'`: only as a task. Default: never.
   * Inside a task `ctx` works as ever: `ctx.elicit()` parks the task in `input_required`.
   */
  task?: 'optional' | 'required';
  /**
   * With `task`, 2026-07-28: the call starts as an ordinary one, whose `ctx.elicit()` rounds
   * are `input_required` results, and becomes a task when the handler calls `ctx.runAsTask()`.
   * 2025-11-25 tasks start at the call, so there `ctx.runAsTask()` changes nothing.
   */
  deferTask?: boolean;
}

/** What `@Tool` records for one method. */
export interface ToolDescriptor {
  readonly propertyKey: string;
  readonly options: Readonly<ToolOptions>;
}

const TOOL_KEYS = new Set([
  'name',
  'title',
  'description',
  'input',
  'output',
  'annotations',
  'icons',
  '_meta',
  'cache',
  'ui',
  'task',
  'deferTask',
]);
const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

function checkOptions(where: string, options: ToolOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw decoratorError(`@Tool() on ${where}: options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!TOOL_KEYS.has(key)) {
      throw decoratorError(
        `@Tool() on ${where}: unknown option '${key}'; known options are ${[...TOOL_KEYS].join(', ')}`,
      );
    }
  }
  for (const key of ['name', 'title', 'description'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') {
      throw decoratorError(`@Tool() on ${where}: '${key}' must be a string`);
    }
  }
  if (options.name !== undefined) {
    const problem = toolNameProblem(options.name);
    if (problem)
      throw decoratorError(
        `@Tool() on ${where}: the name ${JSON.stringify(options.name)} is invalid: ${problem}`,
      );
  }
  const input = options.input;
  if (input !== undefined && typeof input !== 'function' && !isStandardSchema(input)) {
    if (typeof input !== 'object' || input === null || (input as ObjectJsonSchema).type !== 'object') {
      throw decoratorError(
        `@Tool() on ${where}: 'input' must be a DTO class or a JSON Schema object with type: 'object' (MCP requires an object root)`,
      );
    }
  }
  const output = options.output;
  if (output !== undefined && typeof output !== 'function' && !isStandardSchema(output)) {
    const listOfClass = Array.isArray(output) && output.length === 1 && typeof output[0] === 'function';
    const objectSchema =
      !Array.isArray(output) &&
      typeof output === 'object' &&
      output !== null &&
      (output as ObjectJsonSchema).type === 'object';
    if (!listOfClass && !objectSchema) {
      throw decoratorError(
        `@Tool() on ${where}: 'output' must be a DTO class, [DtoClass] for a list, or a JSON Schema with type: 'object' (MCP requires an object root)`,
      );
    }
  }
  const annotations = options.annotations;
  if (annotations !== undefined) {
    if (typeof annotations !== 'object' || annotations === null) {
      throw decoratorError(`@Tool() on ${where}: 'annotations' must be an object`);
    }
    for (const hint of ANNOTATION_HINTS) {
      const value = (annotations as Record<string, unknown>)[hint];
      if (value !== undefined && typeof value !== 'boolean') {
        throw decoratorError(`@Tool() on ${where}: annotations.${hint} must be a boolean`);
      }
    }
  }
  if (options.icons !== undefined && !Array.isArray(options.icons)) {
    throw decoratorError(
      `@Tool() on ${where}: 'icons' must be an array of { src, mimeType?, sizes?, theme? }`,
    );
  }
  const cacheProblem = options.cache === undefined ? undefined : cacheHintProblem(options.cache);
  if (cacheProblem) throw decoratorError(`@Tool() on ${where}: 'cache' ${cacheProblem}`);
  checkToolUi(where, options.ui, options._meta, options.output !== undefined);
  if (
    options.deferTask !== undefined &&
    (typeof options.deferTask !== 'boolean' || options.task === undefined)
  ) {
    throw decoratorError(`@Tool() on ${where}: 'deferTask' must be a boolean, and needs 'task'`);
  }
  if (options.task !== undefined && options.task !== 'optional' && options.task !== 'required') {
    throw decoratorError(
      `@Tool() on ${where}: 'task' must be 'optional' or 'required', got ${JSON.stringify(options.task)}`,
    );
  }
}

/**
 * Exposes a method as an MCP tool. Its arguments come from `@Args()`, the request context from
 * `@Ctx()`. A returned string becomes text content, a thrown `Error` a result with
 * `isError: true`, a thrown `McpError` a JSON-RPC error.
 *
 * @example
 * ```ts
 * @Tool({ description: 'Search notes by text', annotations: { readOnlyHint: true } })
 * search(@Args() input: SearchNotes) { ... }
 * ```
 */
export function Tool(options: ToolOptions = {}): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const where = memberName(target, propertyKey);
    if (typeof target === 'function') {
      throw decoratorError(`@Tool() on ${where}: tools must be instance methods, not static ones`);
    }
    if (typeof propertyKey !== 'string') {
      throw decoratorError(`@Tool() on ${where}: tool methods must have string names, not symbols`);
    }
    if (typeof descriptor?.value !== 'function') {
      throw decoratorError(`@Tool() on ${where}: @Tool() decorates methods, and ${where} is not a method`);
    }
    checkOptions(where, options);
    const existing: ToolDescriptor[] = Reflect.getOwnMetadata(TOOLS_METADATA, target) ?? [];
    recordHandlerClass((target as object).constructor);
    Reflect.defineMetadata(TOOLS_METADATA, [...existing, Object.freeze({ propertyKey, options })], target);
  };
}
