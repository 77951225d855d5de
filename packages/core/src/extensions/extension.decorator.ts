// Extensions (MCP 2026-07-28, Basic › Extensions; SEP-2133): a provider class declares one with
// `@Extension`, advertising `capabilities.extensions[id]` in both eras, and serves the methods
// it adds with `@ExtensionMethod`.
import { decoratorError, memberName } from '../decorators/decorator-error';

/** `{vendor-prefix}/{name}`: a reversed-domain prefix, then the extension's name (SEP-2133). */
const EXTENSION_ID =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** A JSON-RPC method name an extension adds: `segment/segment…`, letters, digits, `_`, `-`, `.`. */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_.-]*(?:\/[A-Za-z][A-Za-z0-9_.-]*)+$/;

export const EXTENSION_METADATA = Symbol('gantry:extension');
export const EXTENSION_METHODS_METADATA = Symbol('gantry:extension-methods');

export interface ExtensionOptions {
  /** The extension identifier, e.g. `io.modelcontextprotocol/ui` or `com.example/search`. */
  id: string;
  /**
   * The settings object advertised as `capabilities.extensions[id]` (default `{}`: "supported,
   * no settings"). A function is called once at bootstrap, on the provider instance.
   */
  settings?: Record<string, unknown> | ((instance: object) => Record<string, unknown>);
}

export interface ExtensionMethodDescriptor {
  readonly method: string;
  readonly propertyKey: string | symbol;
}

/** True when `id` has the shape SEP-2133 requires. */
export function isExtensionId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= 256 && EXTENSION_ID.test(id);
}

/**
 * Declares the provider class an MCP extension: the server advertises `id` (with `settings`)
 * in `initialize` and `server/discover`, and serves the class's `@ExtensionMethod`s in both
 * eras. Handlers read what the calling client declared through `ctx.extensions`.
 *
 * @example
 * ```ts
 * @Injectable()
 * @Extension({ id: 'com.example/greeter', settings: { languages: ['en', 'fr'] } })
 * class Greeter {
 *   @ExtensionMethod('greeter/hello')
 *   hello(params: { name?: string }, ctx: McpContext) {
 *     return { text: `hello ${params.name ?? ctx.clientInfo.name}` };
 *   }
 * }
 * ```
 */
export function Extension(options: ExtensionOptions): ClassDecorator {
  return (target) => {
    const where = `@Extension on ${target.name}`;
    if (!isExtensionId(options?.id)) {
      throw decoratorError(
        `${where}: id must look like "{vendor-prefix}/{name}" (e.g. "com.example/search"; SEP-2133), got ${JSON.stringify(options?.id)}`,
      );
    }
    const settings = options.settings;
    if (
      settings !== undefined &&
      typeof settings !== 'function' &&
      (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    ) {
      throw decoratorError(`${where}: settings must be an object (or a function returning one)`);
    }
    if (Reflect.getOwnMetadata(EXTENSION_METADATA, target)) {
      throw decoratorError(
        `${where}: a class declares one extension; split ${target.name} into two providers`,
      );
    }
    Reflect.defineMetadata(EXTENSION_METADATA, { id: options.id, settings }, target);
  };
}

/**
 * Serves the JSON-RPC method `method` with this method of an `@Extension` class, in both eras:
 * it receives the request's `params` (without `_meta`'s protocol keys changing) and the
 * `McpContext`, and returns the result object. Thrown `McpError`s answer with their code.
 */
export function ExtensionMethod(method: string): MethodDecorator {
  return (target, propertyKey) => {
    const where = `@ExtensionMethod on ${memberName(target, propertyKey)}`;
    if (typeof method !== 'string' || !METHOD_NAME.test(method)) {
      throw decoratorError(
        `${where}: the method name must look like "area/verb" (e.g. "skills/list"), got ${JSON.stringify(method)}`,
      );
    }
    const list: ExtensionMethodDescriptor[] =
      Reflect.getOwnMetadata(EXTENSION_METHODS_METADATA, target) ?? [];
    if (list.some((entry) => entry.method === method)) {
      throw decoratorError(`${where}: ${method} is already served by another method of this class`);
    }
    Reflect.defineMetadata(EXTENSION_METHODS_METADATA, [...list, { method, propertyKey }], target);
  };
}
