import {
  LocalErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from '@gantry/protocol';
import type { ResourceDescriptor } from '../decorators/resource.decorator';
import type { ResourceListDescriptor } from '../decorators/resource-list.decorator';
import { compileArguments, type ResourceCall } from '../execution/arguments';
import { unexpectedHandlerError } from '../execution/handler-failure';
import { toReadResourceResult } from '../execution/resource-result';
import { UriTemplate, UriTemplateError } from '../resources/uri-template';
import { CompiledHandler } from './compiled-handler';
import type { Completer } from './completion';
import type { ResourceTemplateDefinition, StaticResourceDefinition } from './resource-definition';
import { deepFreeze, type ScanTarget, scanError } from './scan-target';

function toResourceList(returned: unknown, where: string, template: ResourceTemplate): Resource[] {
  if (!Array.isArray(returned)) throw new TypeError(`${where} must return an array of { uri, name?, ... }`);
  return returned.map((item, index) => {
    if (typeof item !== 'object' || item === null || typeof (item as Resource).uri !== 'string') {
      throw new TypeError(`${where} returned an item without a string 'uri' at index ${index}`);
    }
    const resource = { ...(item as Resource) };
    resource.name ??= resource.uri;
    if (resource.mimeType === undefined && template.mimeType !== undefined)
      resource.mimeType = template.mimeType;
    return resource;
  });
}

/** Parses the template of a `@Resource`, or says where it is wrong. */
export function parseTemplate(uri: string, where: string): UriTemplate {
  try {
    return new UriTemplate(uri);
  } catch (error) {
    if (error instanceof UriTemplateError)
      throw scanError(LocalErrorCode.InvalidDecorator, `${where}: ${error.message}`);
    throw error;
  }
}

function commonWire<T extends Resource | ResourceTemplate>(
  wire: T,
  options: ResourceDescriptor['options'],
): T {
  if (options.title !== undefined) wire.title = options.title;
  if (options.description !== undefined) wire.description = options.description;
  if (options.mimeType !== undefined) wire.mimeType = options.mimeType;
  if (options.annotations !== undefined) wire.annotations = structuredClone(options.annotations);
  if (options.icons !== undefined) wire.icons = structuredClone(options.icons);
  if (options._meta !== undefined) wire._meta = structuredClone(options._meta);
  return wire;
}

/**
 * Builds the definition of one `@Resource` method: static when its URI has no template
 * expressions, a template otherwise (with its `@ResourceList` lister and completers).
 */
export function buildResource(
  target: ScanTarget,
  descriptor: ResourceDescriptor,
  template: UriTemplate,
  extras: { list?: ResourceListDescriptor; completers: Map<string, Completer> },
): StaticResourceDefinition | ResourceTemplateDefinition {
  const { options, propertyKey } = descriptor;
  const source = target.source(propertyKey);
  const where = `Resource ${options.uri} (${source})`;
  const params = target.paramsOf(propertyKey);
  for (const param of params) {
    if (param.kind === 'args') {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: parameter #${param.index} uses @Args(); resources take @Param('name'), @Uri() and @Ctx()`,
      );
    }
    if (param.kind === 'param' && !template.variableNames.includes(param.name)) {
      const known = template.variableNames.length
        ? template.variableNames.join(', ')
        : 'none (it is a static URI)';
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: @Param('${param.name}') on parameter #${param.index} names no variable of the template; its variables are ${known}`,
      );
    }
  }
  const method = target.method(propertyKey);
  const instance = target.instance;
  const buildArguments = compileArguments(params);
  const mimeType = options.mimeType;
  const name = options.name ?? propertyKey;
  const serving = descriptor.prepare?.(where) ?? {};
  const { fixed, finish } = serving;
  const handler = new CompiledHandler<ReadResourceResult>(
    {
      kind: 'resource',
      name: options.uri,
      handlerClass: target.cls,
      handler: method,
      invoke:
        fixed === undefined
          ? (value, mcp) => method.apply(instance, buildArguments(value, mcp))
          : () => fixed,
      map: (returned, value) => {
        const result = toReadResourceResult(returned, (value as ResourceCall).uri, mimeType);
        return finish ? finish(result) : result;
      },
      onError: (error, inbound, session) => {
        throw unexpectedHandlerError(
          error,
          target.logger,
          `Resource ${options.uri} (${source})`,
          inbound,
          session,
        );
      },
      needsContext: params.some((p) => p.kind === 'ctx'),
    },
    target.enhancers(propertyKey),
    target.globals,
  );

  if (template.isStatic) {
    if (extras.list) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: @ResourceList() enumerates templates; ${options.uri} is a static URI`,
      );
    }
    const wire = commonWire<Resource>({ uri: options.uri, name }, options);
    if (options.size !== undefined) wire.size = options.size;
    return Object.freeze({
      uri: options.uri,
      descriptor: deepFreeze(wire),
      source,
      handler,
      cache: options.cache,
    });
  }

  if (options.size !== undefined) {
    throw scanError(
      LocalErrorCode.InvalidDecorator,
      `${where}: 'size' applies to static resources, not templates`,
    );
  }
  const wire = commonWire<ResourceTemplate>({ uriTemplate: options.uri, name }, options);
  let lister: CompiledHandler<Resource[]> | undefined;
  if (extras.list) {
    const listKey = extras.list.propertyKey;
    const listSource = target.source(listKey);
    const listParams = target.paramsOf(listKey);
    const bad = listParams.find((p) => p.kind !== 'ctx');
    if (bad) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `@ResourceList() on ${listSource}: it takes only @Ctx() parameters`,
      );
    }
    const listMethod = target.method(listKey);
    const buildListArguments = compileArguments(listParams);
    lister = new CompiledHandler<Resource[]>(
      {
        kind: 'resource',
        name: options.uri,
        handlerClass: target.cls,
        handler: listMethod,
        invoke: (value, mcp) => listMethod.apply(instance, buildListArguments(value, mcp)),
        map: (returned) => toResourceList(returned, `@ResourceList() ${listSource}`, wire),
        onError: (error, inbound, session) => {
          throw unexpectedHandlerError(
            error,
            target.logger,
            `@ResourceList() ${listSource}`,
            inbound,
            session,
          );
        },
        needsContext: listParams.length > 0,
      },
      target.enhancers(listKey),
      target.globals,
    );
  }
  for (const variable of extras.completers.keys()) {
    if (!template.variableNames.includes(variable)) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: a completer for '${variable}' names no variable of the template; its variables are ${template.variableNames.join(', ')}`,
      );
    }
  }
  return Object.freeze({
    uriTemplate: options.uri,
    template,
    descriptor: deepFreeze(wire),
    source,
    handler,
    lister,
    completers: extras.completers,
    cache: options.cache,
  });
}
