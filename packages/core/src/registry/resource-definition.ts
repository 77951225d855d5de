import type { ReadResourceResult, Resource, ResourceTemplate } from '@gantry/protocol';
import type { UriTemplate } from '../resources/uri-template';
import type { CacheHint } from '../stateless/cache-hint';
import type { CompiledHandler } from './compiled-handler';
import type { Completer } from './completion';

/** A resource with a fixed URI, listed by `resources/list`. */
export interface StaticResourceDefinition {
  readonly uri: string;
  readonly descriptor: Readonly<Resource>;
  readonly source: string;
  /** Stateless-era caching hints from the decorator. */
  readonly cache?: CacheHint;
  readonly handler: CompiledHandler<ReadResourceResult>;
}

/** A URI template, listed by `resources/templates/list`, read by matching URIs. */
export interface ResourceTemplateDefinition {
  readonly uriTemplate: string;
  readonly template: UriTemplate;
  readonly descriptor: Readonly<ResourceTemplate>;
  readonly source: string;
  /** Stateless-era caching hints from the decorator. */
  readonly cache?: CacheHint;
  readonly handler: CompiledHandler<ReadResourceResult>;
  /** Enumerates concrete resources for `resources/list` (`@ResourceList`). */
  readonly lister?: CompiledHandler<Resource[]>;
  /** Completers per template variable. */
  readonly completers: ReadonlyMap<string, Completer>;
}
