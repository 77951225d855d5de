import {
  type InboundRequest,
  InvalidParamsError,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  Method,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  type Result,
} from '@gantry/protocol';
import type { ContextSession } from '../context/mcp-context';
import type { ResourceCall } from '../execution/arguments';
import { paginate } from '../registry/pagination';
import type { Registry } from '../registry/registry';
import type { ResourceTemplateDefinition, StaticResourceDefinition } from '../registry/resource-definition';
import type { MethodHandler } from './method-table';
import { pageResult } from './page-result';
import type { ServerSession } from './server-session';

function uriParam(params: { [key: string]: unknown } | undefined, method: string): string {
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri === '')
    throw new InvalidParamsError(`Invalid params: ${method} needs "uri" as a string`);
  return uri;
}

/** Finds what serves `uri`: a static resource first, then templates, most specific first. */
export function resolveResource(
  registry: Registry,
  uri: string,
):
  | {
      handler: { run: (raw: unknown, inbound: InboundRequest, session: ContextSession) => unknown };
      call: ResourceCall;
      definition: StaticResourceDefinition | ResourceTemplateDefinition;
    }
  | undefined {
  const fixed = registry.resources.get(uri);
  if (fixed) return { handler: fixed.handler, call: { uri, variables: {} }, definition: fixed };
  for (const template of registry.templates.definitions()) {
    const variables = template.template.match(uri);
    if (variables) return { handler: template.handler, call: { uri, variables }, definition: template };
  }
  return undefined;
}

/** `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`, `resources/unsubscribe`. */
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
    const found = resolveResource(registry, uri);
    // Session era: −32002 with the URI in data (2025-11-25 resources).
    if (!found) throw new ResourceNotFoundError(`Resource not found: ${uri}`, { uri });
    return found.handler.run(found.call, inbound, session) as
      | ReadResourceResult
      | Promise<ReadResourceResult>;
  };

  const subscribe: MethodHandler = (params, _inbound, session) => {
    const uri = uriParam(params, Method.ResourcesSubscribe);
    if (!resolveResource(registry, uri))
      throw new ResourceNotFoundError(`Resource not found: ${uri}`, { uri });
    (session as ServerSession).subscriptions.add(uri);
    return {} as Result;
  };

  const unsubscribe: MethodHandler = (params, _inbound, session) => {
    (session as ServerSession).subscriptions.delete(uriParam(params, Method.ResourcesUnsubscribe));
    return {} as Result;
  };

  return [
    [Method.ResourcesList, list],
    [Method.ResourcesTemplatesList, templates],
    [Method.ResourcesRead, read],
    [Method.ResourcesSubscribe, subscribe],
    [Method.ResourcesUnsubscribe, unsubscribe],
  ];
}
