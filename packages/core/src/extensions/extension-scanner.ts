import { GantryError, LocalErrorCode, type RequestParams } from '@gantry/protocol';
import type { McpContext } from '../context/mcp-context';
import {
  EXTENSION_METADATA,
  EXTENSION_METHODS_METADATA,
  type ExtensionMethodDescriptor,
  type ExtensionOptions,
} from './extension.decorator';

/** A method an extension serves: its params (as sent) and the request's context. */
export type ExtensionMethodHandler = (params: RequestParams | undefined, ctx: McpContext) => unknown;

/** One extension found in the providers. */
export interface ExtensionDefinition {
  readonly id: string;
  /** Advertised as `capabilities.extensions[id]`. */
  readonly settings: Record<string, unknown>;
  readonly methods: ReadonlyMap<string, ExtensionMethodHandler>;
  /** The class that declared it, for messages. */
  readonly owner: string;
}

function methodsOf(prototype: object): ExtensionMethodDescriptor[] {
  const found: ExtensionMethodDescriptor[] = [];
  for (
    let proto: object | null = prototype;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const entry of (Reflect.getOwnMetadata(
      EXTENSION_METHODS_METADATA,
      proto,
    ) as ExtensionMethodDescriptor[]) ?? []) {
      if (!found.some((known) => known.method === entry.method)) found.push(entry);
    }
  }
  return found;
}

/**
 * The extensions among `instances` (each provider once). Two classes declaring one id, two
 * extensions serving one method, or `@ExtensionMethod` on a class without `@Extension` throw
 * a bootstrap error naming both places.
 */
export function scanExtensions(instances: readonly object[]): ExtensionDefinition[] {
  const byId = new Map<string, ExtensionDefinition>();
  const byMethod = new Map<string, string>();
  for (const instance of instances) {
    const cls = instance.constructor as Function;
    const declared = Reflect.getMetadata(EXTENSION_METADATA, cls) as ExtensionOptions | undefined;
    const methods = methodsOf(Object.getPrototypeOf(instance));
    if (!declared) {
      if (methods.length > 0) {
        throw new GantryError(
          LocalErrorCode.Bootstrap,
          `${cls.name} has @ExtensionMethod('${methods[0].method}') but no @Extension({ id }) on the class: an extension method belongs to a declared extension`,
        );
      }
      continue;
    }
    const other = byId.get(declared.id);
    if (other) {
      throw new GantryError(
        LocalErrorCode.DuplicateName,
        `The extension ${declared.id} is declared by both ${other.owner} and ${cls.name}; one provider declares an extension`,
      );
    }
    const handlers = new Map<string, ExtensionMethodHandler>();
    for (const { method, propertyKey } of methods) {
      const owner = byMethod.get(method);
      if (owner) {
        throw new GantryError(
          LocalErrorCode.DuplicateName,
          `The method ${method} is served by both ${owner} and ${cls.name}.${String(propertyKey)}`,
        );
      }
      byMethod.set(method, `${cls.name}.${String(propertyKey)}`);
      const fn = (instance as Record<string | symbol, unknown>)[propertyKey];
      if (typeof fn !== 'function') {
        throw new GantryError(LocalErrorCode.Bootstrap, `${cls.name}.${String(propertyKey)} is not a method`);
      }
      handlers.set(method, (params, ctx) => (fn as Function).call(instance, params ?? {}, ctx));
    }
    const settings =
      typeof declared.settings === 'function' ? declared.settings(instance) : (declared.settings ?? {});
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `${cls.name}: the settings of ${declared.id} must be an object`,
      );
    }
    byId.set(declared.id, { id: declared.id, settings, methods: handlers, owner: cls.name });
  }
  return [...byId.values()];
}
