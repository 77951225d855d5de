import type { Annotations, Icon, Meta, ReadResourceResult } from '@gantry/protocol';
import { recordHandlerClass } from '../metadata/handler-classes';
import { RESOURCES_METADATA } from '../metadata/keys';
import { type CacheHint, cacheHintProblem } from '../stateless/cache-hint';
import { decoratorError, memberName } from './decorator-error';

export interface ResourceOptions {
  /** A URI (`notes://index`), or an RFC 6570 template (`notes://{id}`, `file:///{+path}`). */
  uri: string;
  /** Programmatic name; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes before base64 (static resources). */
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
  /** Static completion values per template variable, e.g. `{ lang: ['en', 'fr'] }`. */
  complete?: Record<string, readonly string[]>;
  /**
   * Stateless-era caching hints (2026-07-28): for a tool or prompt they bound the `ttlMs` of
   * the whole list (the shortest wins) and `scope: 'private'` makes the list private; for a
   * resource they apply to its reads. Guarded items are always private.
   */
  cache?: CacheHint;
}

/** @internal What a decorator built on `@Resource` (e.g. `@UiResource`) sets up at bootstrap. */
export interface ResourceServing {
  /** Served instead of calling the method: content known at bootstrap (a file, a build). */
  readonly fixed?: unknown;
  /** Applied to every read result. */
  readonly finish?: (result: ReadResourceResult) => ReadResourceResult;
}

/** What `@Resource` records for one method. */
export interface ResourceDescriptor {
  readonly propertyKey: string;
  readonly options: Readonly<ResourceOptions>;
  /** @internal Called once when the application bootstraps; throws naming a bad option. */
  readonly prepare?: (where: string) => ResourceServing;
}

const KEYS = new Set([
  'uri',
  'name',
  'title',
  'description',
  'mimeType',
  'size',
  'annotations',
  'icons',
  '_meta',
  'complete',
  'cache',
]);

/**
 * Serves a resource. With a plain URI it is listed by `resources/list`; with a URI template it
 * is listed by `resources/templates/list` and its variables reach the method through
 * `@Param('name')`. Return a string (text), a `Buffer`/`Uint8Array` (blob), contents objects,
 * or a full `ReadResourceResult`.
 *
 * @example
 * ```ts
 * @Resource({ uri: 'notes://{id}', mimeType: 'text/markdown' })
 * note(@Param('id') id: string) { return this.notes.body(id); }
 * ```
 */
export function Resource(options: ResourceOptions): MethodDecorator {
  return resourceDecorator(options);
}

/** @internal `@Resource`, with the bootstrap step of a decorator built on it. */
export function resourceDecorator(
  options: ResourceOptions,
  prepare?: ResourceDescriptor['prepare'],
): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const where = memberName(target, propertyKey);
    if (typeof target === 'function')
      throw decoratorError(`@Resource() on ${where}: resources must be instance methods`);
    if (typeof propertyKey !== 'string')
      throw decoratorError(`@Resource() on ${where}: the method name must be a string`);
    if (typeof descriptor?.value !== 'function')
      throw decoratorError(`@Resource() on ${where}: it decorates methods`);
    if (
      typeof options !== 'object' ||
      options === null ||
      typeof options.uri !== 'string' ||
      options.uri === ''
    ) {
      throw decoratorError(
        `@Resource() on ${where}: options need 'uri', a URI or a URI template such as 'notes://{id}'`,
      );
    }
    for (const key of Object.keys(options)) {
      if (!KEYS.has(key))
        throw decoratorError(
          `@Resource() on ${where}: unknown option '${key}'; known options are ${[...KEYS].join(', ')}`,
        );
    }
    for (const key of ['name', 'title', 'description', 'mimeType'] as const) {
      if (options[key] !== undefined && typeof options[key] !== 'string') {
        throw decoratorError(`@Resource() on ${where}: '${key}' must be a string`);
      }
    }
    if (options.size !== undefined && !(Number.isInteger(options.size) && options.size >= 0)) {
      throw decoratorError(`@Resource() on ${where}: 'size' must be a non-negative integer (bytes)`);
    }
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(options.uri.replace(/^\{[^}]*\}/, 'x:'))) {
      throw decoratorError(
        `@Resource() on ${where}: the URI ${JSON.stringify(options.uri)} has no scheme (such as 'notes:' or 'file:')`,
      );
    }
    checkCompleteOption('@Resource()', where, options.complete);
    const cacheProblem = options.cache === undefined ? undefined : cacheHintProblem(options.cache);
    if (cacheProblem) throw decoratorError(`@Resource() on ${where}: 'cache' ${cacheProblem}`);
    const existing: ResourceDescriptor[] = Reflect.getOwnMetadata(RESOURCES_METADATA, target) ?? [];
    recordHandlerClass((target as object).constructor);
    Reflect.defineMetadata(
      RESOURCES_METADATA,
      [...existing, Object.freeze({ propertyKey, options, prepare })],
      target,
    );
  };
}

/** Checks a `complete: { name: ['value', …] }` option. */
export function checkCompleteOption(decorator: string, where: string, complete: unknown): void {
  if (complete === undefined) return;
  if (typeof complete !== 'object' || complete === null || Array.isArray(complete)) {
    throw decoratorError(`${decorator} on ${where}: 'complete' must map argument names to arrays of strings`);
  }
  for (const [name, values] of Object.entries(complete)) {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
      throw decoratorError(`${decorator} on ${where}: complete.${name} must be an array of strings`);
    }
  }
}
