import {
  InvalidParamsError,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  Method,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
} from '@gantry/protocol';
import { paginate } from '../registry/pagination';
import type { Registry } from '../registry/registry';
import type { MethodHandler } from './method-table';
import { pageResult } from './page-result';

/** The `uri` param of a resources method, checked. */
export function uriParam(params: { [key: string]: unknown } | undefined, method: string): string {
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri === '')
    throw new InvalidParamsError(`Invalid params: ${method} needs "uri" as a string`);
  return uri;
}

/**
 * `resources/list`, `resources/templates/list` and `resources/read`, served in both eras.
 * `resources/subscribe` and `resources/unsubscribe` are session methods (session-methods.ts).
 */
export function resourceHandlers(registry: Registry, pageSize: number): [string, MethodHandler][] {
  const list: MethodHandler = async (params, inbound, session) => {
    const statics = await registry.resources.visibleTo(inbound, session);
    const listed: Resource[] = statics.map((d) => d.descriptor as Resource);
    for (const template of await registry.templates.visibleTo(inbound, session)) {
      if (template.lister) listed.push(...(await template.lister.run(undefined, inbound, session)));
    }
    const page = paginate(listed, params?.cursor, pageSize);
    return pageResult<ListResourcesResult>('resources', page);
  };

  const templates: MethodHandler = (params, inbound, session) =>
    pageResult<ListResourceTemplatesResult>(
      'resourceTemplates',
      registry.templates.page(inbound, session, params?.cursor, pageSize),
    );

  const read: MethodHandler = (params, inbound, session) => {
    const uri = uriParam(params, Method.ResourcesRead);
    const found = registry.resolve(uri);
    // Session era: −32002 with the URI in data (MCP 2025-11-25, Server Features / Resources §Error Handling).
    if (!found) throw new ResourceNotFoundError(`Resource not found: ${uri}`, { uri });
    return found.definition.handler.run(found.call, inbound, session) as
      | ReadResourceResult
      | Promise<ReadResourceResult>;
  };

  return [
    [Method.ResourcesList, list],
    [Method.ResourcesTemplatesList, templates],
    [Method.ResourcesRead, read],
  ];
}
