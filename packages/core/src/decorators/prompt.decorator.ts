import type { Icon, Meta } from '@gantry/protocol';
import { recordHandlerClass } from '../metadata/handler-classes';
import { PROMPTS_METADATA } from '../metadata/keys';
import { type CacheHint, cacheHintProblem } from '../stateless/cache-hint';
import { decoratorError, memberName } from './decorator-error';
import { checkCompleteOption } from './resource.decorator';

export interface PromptOptions {
  /** Wire name; defaults to the method name in snake_case. */
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Meta;
  /** Static completion values per argument, e.g. `{ language: ['python', 'typescript'] }`. */
  complete?: Record<string, readonly string[]>;
  /**
   * Stateless-era caching hints (2026-07-28): for a tool or prompt they bound the `ttlMs` of
   * the whole list (the shortest wins) and `scope: 'private'` makes the list private; for a
   * resource they apply to its reads. Guarded items are always private.
   */
  cache?: CacheHint;
}

export interface PromptDescriptor {
  readonly propertyKey: string;
  readonly options: Readonly<PromptOptions>;
}

const KEYS = new Set(['name', 'title', 'description', 'icons', '_meta', 'complete', 'cache']);

/**
 * Serves a prompt. Its arguments come from an `@Args()` DTO (every property is an argument;
 * values arrive as strings and are converted to the property's type before validation).
 * Return a string (one user message), messages, or a full `GetPromptResult`.
 *
 * @example
 * ```ts
 * @Prompt({ description: 'Summarize a note' })
 * summarize(@Args() { id }: SummarizeArgs) { return `Summarize note ${id} in three bullet points.`; }
 * ```
 */
export function Prompt(options: PromptOptions = {}): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const where = memberName(target, propertyKey);
    if (typeof target === 'function')
      throw decoratorError(`@Prompt() on ${where}: prompts must be instance methods`);
    if (typeof propertyKey !== 'string')
      throw decoratorError(`@Prompt() on ${where}: the method name must be a string`);
    if (typeof descriptor?.value !== 'function')
      throw decoratorError(`@Prompt() on ${where}: it decorates methods`);
    if (typeof options !== 'object' || options === null)
      throw decoratorError(`@Prompt() on ${where}: options must be an object`);
    for (const key of Object.keys(options)) {
      if (!KEYS.has(key))
        throw decoratorError(
          `@Prompt() on ${where}: unknown option '${key}'; known options are ${[...KEYS].join(', ')}`,
        );
    }
    for (const key of ['name', 'title', 'description'] as const) {
      if (options[key] !== undefined && typeof options[key] !== 'string') {
        throw decoratorError(`@Prompt() on ${where}: '${key}' must be a string`);
      }
    }
    if (options.name !== undefined && options.name.length === 0)
      throw decoratorError(`@Prompt() on ${where}: 'name' must not be empty`);
    checkCompleteOption('@Prompt()', where, options.complete);
    const cacheProblem = options.cache === undefined ? undefined : cacheHintProblem(options.cache);
    if (cacheProblem) throw decoratorError(`@Prompt() on ${where}: 'cache' ${cacheProblem}`);
    const existing: PromptDescriptor[] = Reflect.getOwnMetadata(PROMPTS_METADATA, target) ?? [];
    recordHandlerClass((target as object).constructor);
    Reflect.defineMetadata(PROMPTS_METADATA, [...existing, Object.freeze({ propertyKey, options })], target);
  };
}
