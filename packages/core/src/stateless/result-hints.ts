import { type AuthInfo, type CacheScope, Method, type Result } from '@gantry/protocol';
import type { HandlerCollection } from '../registry/handler-collection';
import type { Registry } from '../registry/registry';
import { type CacheDefaults, type CacheHint, DEFAULT_CACHE } from './cache-hint';

interface Guardable {
  readonly handler: { readonly guarded: boolean };
  readonly cache?: CacheHint;
}

/** The list methods that carry a caching hint. */
export const LIST_METHODS = [
  Method.ToolsList,
  Method.PromptsList,
  Method.ResourcesTemplatesList,
  Method.ResourcesList,
] as const;

/**
 * The caching hints of stateless-era results (MCP 2026-07-28 `ttlMs` / `cacheScope`): the
 * app's defaults per kind, narrowed by what the decorators say and made private whenever the
 * result can depend on the caller.
 */
export class ResultHints {
  readonly discover: Required<CacheHint>;
  private readonly list: Required<CacheHint>;
  private readonly read: Required<CacheHint>;

  constructor(
    private readonly registry: Registry,
    cache: CacheDefaults | undefined,
  ) {
    this.discover = { ...DEFAULT_CACHE.discover, ...cache?.discover };
    this.list = { ...DEFAULT_CACHE.list, ...cache?.list };
    this.read = { ...DEFAULT_CACHE.read, ...cache?.read };
  }

  /** The hint of a list method's result (one of `LIST_METHODS`). */
  forList(method: string, auth: AuthInfo | undefined): Required<CacheHint> {
    const registry = this.registry;
    switch (method) {
      case Method.ToolsList:
        return this.listHint([registry.tools]);
      case Method.PromptsList:
        return this.listHint([registry.prompts]);
      case Method.ResourcesTemplatesList:
        return this.listHint([registry.templates]);
      default: {
        const hint = this.listHint([registry.resources, registry.templates]);
        // A @ResourceList enumerates per call: its output may depend on who asks.
        const dynamic = registry.templates.definitions().some((t) => t.lister !== undefined);
        return dynamic && auth ? { ...hint, scope: 'private' } : hint;
      }
    }
  }

  /** The hint of `resources/read` of `uri`: the resource's own, else the default; private when guarded or authenticated. */
  forRead(uri: string, auth: AuthInfo | undefined): Required<CacheHint> {
    const found = this.registry.resolve(uri)?.definition;
    const own = found?.cache;
    const ttlMs = own?.ttlMs ?? this.read.ttlMs;
    let scope: CacheScope = own?.scope ?? (auth ? 'private' : this.read.scope);
    if (found?.handler.guarded) scope = 'private';
    return { ttlMs, scope };
  }

  /** One hint for a list: the shortest ttl of its items, private when any item is. */
  private listHint(collections: HandlerCollection<any>[]): Required<CacheHint> {
    let ttlMs = this.list.ttlMs;
    let scope: CacheScope = this.list.scope;
    for (const collection of collections) {
      for (const d of collection.definitions() as readonly Guardable[]) {
        if (d.cache?.ttlMs !== undefined) ttlMs = Math.min(ttlMs, d.cache.ttlMs);
        if (d.cache?.scope === 'private' || d.handler.guarded) scope = 'private';
      }
    }
    return { ttlMs, scope };
  }
}

/** `result` with `hint` as its `ttlMs` and `cacheScope`. */
export function withHint(result: Result, hint: Required<CacheHint>): Result {
  return { ...result, ttlMs: hint.ttlMs, cacheScope: hint.scope };
}
