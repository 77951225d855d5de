import { LocalErrorCode } from '@gantry/protocol';
import type { CompletionDescriptor } from '../decorators/complete.decorator';
import type { PromptDescriptor } from '../decorators/prompt.decorator';
import type { ResourceDescriptor } from '../decorators/resource.decorator';
import type { ResourceListDescriptor } from '../decorators/resource-list.decorator';
import type { ToolDescriptor } from '../decorators/tool.decorator';
import type { Container } from '../di/container';
import type { ModuleNode } from '../di/module-graph';
import { unexpectedHandlerError } from '../execution/handler-failure';
import type { Logger } from '../logger';
import {
  COMPLETIONS_METADATA,
  PROMPTS_METADATA,
  RESOURCE_LISTS_METADATA,
  RESOURCES_METADATA,
  TOOLS_METADATA,
} from '../metadata/keys';
import type { UriTemplate } from '../resources/uri-template';
import { jsonSchemaFromClass } from '../schema';
import { CompiledHandler, type GlobalEnhancers } from './compiled-handler';
import {
  type Completer,
  type CompletionRequest,
  type CompletionValues,
  toCompletionValues,
} from './completion';
import type { PromptDefinition } from './prompt-definition';
import { buildPrompt } from './prompt-scanner';
import type { ResourceTemplateDefinition, StaticResourceDefinition } from './resource-definition';
import { buildResource, parseTemplate } from './resource-scanner';
import { ScanTarget, scanError } from './scan-target';
import type { ToolDefinition } from './tool-definition';
import { snakeCase } from './tool-name';
import { argsClassOf, buildTool } from './tool-scanner';

/** Everything one scan found. */
export interface ScanResult {
  tools: ToolDefinition[];
  resources: StaticResourceDefinition[];
  templates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}

/** What a scan needs besides the instances. */
export interface ScanEnvironment {
  readonly container?: Container;
  readonly globals: GlobalEnhancers;
  readonly logger: Logger;
}

interface PromptPlan {
  readonly descriptor: PromptDescriptor;
  readonly name: string;
  readonly argumentNames: readonly string[];
  readonly completers: Map<string, Completer>;
}

interface ResourcePlan {
  readonly descriptor: ResourceDescriptor;
  readonly template: UriTemplate;
  readonly completers: Map<string, Completer>;
  list?: ResourceListDescriptor;
}

function completionHandler(target: ScanTarget, descriptor: CompletionDescriptor, boundTo: string): Completer {
  const method = target.method(descriptor.propertyKey);
  const source = target.source(descriptor.propertyKey);
  const instance = target.instance;
  const handler = new CompiledHandler<CompletionValues>(
    {
      kind: 'completion',
      name: boundTo,
      handlerClass: target.cls,
      handler: method,
      invoke: (value, mcp) => {
        const request = value as CompletionRequest;
        return method.call(instance, request.value, {
          argument: descriptor.argument,
          arguments: request.arguments,
          mcp,
        });
      },
      map: (returned) => toCompletionValues(returned, `@Complete('${descriptor.argument}') ${source}`),
      onError: (error, inbound, session) => {
        throw unexpectedHandlerError(
          error,
          target.logger,
          `@Complete('${descriptor.argument}') (${source})`,
          inbound,
          session,
        );
      },
      needsContext: true,
    },
    target.enhancers(descriptor.propertyKey),
    target.globals,
  );
  return { kind: 'method', source, handler };
}

function staticCompleters(complete: Record<string, readonly string[]> | undefined): Map<string, Completer> {
  const completers = new Map<string, Completer>();
  for (const [name, values] of Object.entries(complete ?? {}))
    completers.set(name, { kind: 'static', values: [...values] });
  return completers;
}

/** Scans one provider instance into `result`. */
function scanInstance(target: ScanTarget, result: ScanResult): void {
  const { proto, className } = target;
  const tools: ToolDescriptor[] = Reflect.getMetadata(TOOLS_METADATA, proto) ?? [];
  const resources: ResourceDescriptor[] = Reflect.getMetadata(RESOURCES_METADATA, proto) ?? [];
  const lists: ResourceListDescriptor[] = Reflect.getMetadata(RESOURCE_LISTS_METADATA, proto) ?? [];
  const prompts: PromptDescriptor[] = Reflect.getMetadata(PROMPTS_METADATA, proto) ?? [];
  const completions: CompletionDescriptor[] = Reflect.getMetadata(COMPLETIONS_METADATA, proto) ?? [];
  const handlers = new Set<string>();
  for (const d of [...tools, ...resources, ...prompts]) {
    if (handlers.has(d.propertyKey)) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${className}.${d.propertyKey} has more than one of @Tool(), @Resource() and @Prompt(); a method is one handler`,
      );
    }
    handlers.add(d.propertyKey);
  }
  for (const method of target.decoratedMethods()) {
    if (!handlers.has(method as string) && !lists.some((l) => l.propertyKey === method)) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${className}.${String(method)} has @Args()/@Ctx()/@Param() parameters but is not a handler: add @Tool(), @Resource() or @Prompt() to the method`,
      );
    }
  }
  if (tools.length + resources.length + prompts.length + lists.length + completions.length === 0) return;

  const promptPlans: PromptPlan[] = prompts.map((descriptor) => {
    const name = descriptor.options.name ?? snakeCase(descriptor.propertyKey);
    const where = `Prompt '${name}' (${target.source(descriptor.propertyKey)})`;
    const argsParam = target.paramsOf(descriptor.propertyKey).find((p) => p.kind === 'args');
    const dto = argsClassOf(target, descriptor.propertyKey, where, argsParam as never, undefined);
    const argumentNames = dto
      ? Object.keys(jsonSchemaFromClass(dto, { context: where }).properties ?? {})
      : [];
    return { descriptor, name, argumentNames, completers: staticCompleters(descriptor.options.complete) };
  });
  const resourcePlans: ResourcePlan[] = resources.map((descriptor) => ({
    descriptor,
    template: parseTemplate(
      descriptor.options.uri,
      `Resource ${descriptor.options.uri} (${target.source(descriptor.propertyKey)})`,
    ),
    completers: staticCompleters(descriptor.options.complete),
  }));

  for (const completion of completions) {
    const where = `@Complete('${completion.argument}') on ${target.source(completion.propertyKey)}`;
    const { prompt, resource } = completion.target;
    let plan: PromptPlan | ResourcePlan | undefined;
    if (prompt !== undefined) {
      plan = promptPlans.find((p) => p.name === prompt);
      if (!plan)
        throw scanError(
          LocalErrorCode.InvalidDecorator,
          `${where}: ${className} has no prompt named '${prompt}'`,
        );
    } else if (resource !== undefined) {
      plan = resourcePlans.find((r) => r.descriptor.options.uri === resource);
      if (!plan)
        throw scanError(
          LocalErrorCode.InvalidDecorator,
          `${where}: ${className} has no resource template '${resource}'`,
        );
    } else {
      const candidates = [
        ...promptPlans.filter((p) => p.argumentNames.includes(completion.argument)),
        ...resourcePlans.filter((r) => r.template.variableNames.includes(completion.argument)),
      ];
      if (candidates.length === 0) {
        throw scanError(
          LocalErrorCode.InvalidDecorator,
          `${where}: no prompt or resource template of ${className} has an argument '${completion.argument}'`,
        );
      }
      if (candidates.length > 1) {
        throw scanError(
          LocalErrorCode.InvalidDecorator,
          `${where}: several prompts or templates of ${className} have an argument '${completion.argument}'; name one with { prompt: '…' } or { resource: '…' }`,
        );
      }
      plan = candidates[0];
    }
    const boundTo = 'name' in plan ? plan.name : plan.descriptor.options.uri;
    if (plan.completers.has(completion.argument)) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: '${completion.argument}' of ${boundTo} already has a completer`,
      );
    }
    plan.completers.set(completion.argument, completionHandler(target, completion, boundTo));
  }

  const templates = resourcePlans.filter((r) => !r.template.isStatic);
  for (const list of lists) {
    const where = `@ResourceList() on ${target.source(list.propertyKey)}`;
    const plan =
      list.uriTemplate === undefined
        ? templates.length === 1
          ? templates[0]
          : undefined
        : templates.find((r) => r.descriptor.options.uri === list.uriTemplate);
    if (!plan) {
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        list.uriTemplate === undefined
          ? `${where}: ${className} has ${templates.length} resource templates; name the one it lists, e.g. @ResourceList('notes://{id}')`
          : `${where}: ${className} has no resource template '${list.uriTemplate}'`,
      );
    }
    if (plan.list)
      throw scanError(
        LocalErrorCode.InvalidDecorator,
        `${where}: ${plan.descriptor.options.uri} already has a @ResourceList()`,
      );
    plan.list = list;
  }

  for (const descriptor of tools) result.tools.push(buildTool(target, descriptor));
  for (const plan of resourcePlans) {
    const definition = buildResource(target, plan.descriptor, plan.template, {
      list: plan.list,
      completers: plan.completers,
    });
    if ('uriTemplate' in definition) result.templates.push(definition);
    else result.resources.push(definition);
  }
  for (const plan of promptPlans) result.prompts.push(buildPrompt(target, plan.descriptor, plan.completers));
}

function checkUnique<D>(
  items: D[],
  keyOf: (d: D) => string,
  sourceOf: (d: D) => string,
  what: string,
  fix: string,
): void {
  const seen = new Map<string, D>();
  for (const item of items) {
    const key = keyOf(item);
    const previous = seen.get(key);
    if (previous) {
      throw scanError(
        LocalErrorCode.DuplicateName,
        `Duplicate ${what} '${key}': ${sourceOf(previous)} and ${sourceOf(item)}. ${fix}`,
      );
    }
    seen.set(key, item);
  }
}

/**
 * Reads the handlers of provider instances and builds frozen definitions with compiled
 * pipelines. Fails on duplicates, invalid names and misplaced decorators.
 */
export function scanHandlers(
  instances: readonly { instance: unknown; host?: ModuleNode }[],
  environment: ScanEnvironment,
): ScanResult {
  const result: ScanResult = { tools: [], resources: [], templates: [], prompts: [] };
  for (const { instance, host } of instances) {
    if (typeof instance !== 'object' || instance === null) continue;
    scanInstance(
      new ScanTarget(instance, host, environment.container, environment.globals, environment.logger),
      result,
    );
  }
  checkUnique(
    result.tools,
    (d) => d.name,
    (d) => d.source,
    'tool name',
    "Give one of them another name with @Tool({ name: '...' })",
  );
  checkUnique(
    result.prompts,
    (d) => d.name,
    (d) => d.source,
    'prompt name',
    "Give one of them another name with @Prompt({ name: '...' })",
  );
  checkUnique(
    result.resources,
    (d) => d.uri,
    (d) => d.source,
    'resource URI',
    'Serve each URI from one method',
  );
  checkUnique(
    result.templates,
    (d) => d.uriTemplate,
    (d) => d.source,
    'resource template',
    'Serve each template from one method',
  );
  return result;
}
