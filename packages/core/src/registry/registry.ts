import { toolViewProblem, usesUi } from '../apps/tool-views';
import type { ResourceCall } from '../execution/arguments';
import { UriTemplate } from '../resources/uri-template';
import { HandlerCollection } from './handler-collection';
import type { ScanResult } from './handler-scanner';
import type { PromptDefinition } from './prompt-definition';
import type { ResourceTemplateDefinition, StaticResourceDefinition } from './resource-definition';
import type { ToolDefinition } from './tool-definition';

/** What `registry.add(instance)` registered, to remove it again. */
export interface Registration {
  readonly tools: readonly string[];
  readonly resources: readonly string[];
  readonly templates: readonly string[];
  readonly prompts: readonly string[];
  /** Unregisters everything this registration added. */
  remove(): void;
}

/** How the registry reaches connected clients (set by the server that serves it). */
export interface RegistryNotices {
  resourceListChanged(): void;
  resourceUpdated(uri: string): Promise<void>;
}

/** What serves one URI: the resource or template, and what its method's parameters receive. */
export interface ResolvedResource {
  readonly definition: StaticResourceDefinition | ResourceTemplateDefinition;
  readonly call: ResourceCall;
}

/**
 * Everything an application serves, changeable while serving: `app.registry.tools.disable(name)`
 * hides a tool, `app.registry.add(new MoreTools())` adds a class's handlers; connected clients
 * are told with the matching `list_changed` notification.
 */
export class Registry {
  readonly tools = new HandlerCollection<ToolDefinition>('tool', (d) => d.name);
  readonly resources = new HandlerCollection<StaticResourceDefinition>('resource', (d) => d.uri);
  /** Kept most specific first: the order `resources/read` tries them in. */
  readonly templates = new HandlerCollection<ResourceTemplateDefinition>(
    'resource template',
    (d) => d.uriTemplate,
    (a, b) => UriTemplate.compareSpecificity(a.template, b.template),
  );
  readonly prompts = new HandlerCollection<PromptDefinition>('prompt', (d) => d.name);

  /** Set by the server: says why a kind cannot be added while serving (its capability was not declared). */
  capabilityProblem?: (kinds: {
    tools: boolean;
    resources: boolean;
    prompts: boolean;
    /** Tools with a view or views (MCP Apps): the io.modelcontextprotocol/ui extension. */
    ui: boolean;
  }) => string | undefined;

  /** Set by the server: sends the resource notifications to connected clients. */
  notices?: RegistryNotices;

  constructor(private readonly scan: (instance: object) => ScanResult) {}

  /**
   * Tells every client that the resource list changed (`notifications/resources/list_changed`)
   * when what serves it is unchanged but what it lists is not: e.g. a `@ResourceList` or a
   * catalog behind one template (the skills extension's `reload()`).
   */
  resourceListChanged(): void {
    this.notices?.resourceListChanged();
  }

  /** Tells the clients subscribed to `uri` (or to a parent of it) that it changed (`notifications/resources/updated`). */
  async resourceUpdated(uri: string): Promise<void> {
    await this.notices?.resourceUpdated(uri);
  }

  /**
   * What serves `uri` (`resources/read`): a static resource first, then the first template
   * that matches, most specific first. Undefined when nothing does.
   */
  resolve(uri: string): ResolvedResource | undefined {
    const fixed = this.resources.get(uri);
    if (fixed) return { definition: fixed, call: { uri, variables: {} } };
    for (const template of this.templates.definitions()) {
      const variables = template.template.match(uri);
      if (variables) return { definition: template, call: { uri, variables } };
    }
    return undefined;
  }

  /** Registers the results of a scan (bootstrap). */
  load(result: ScanResult): void {
    for (const d of result.tools) this.tools.add(d);
    for (const d of result.resources) this.resources.add(d);
    for (const d of result.templates) this.templates.add(d);
    for (const d of result.prompts) this.prompts.add(d);
  }

  /**
   * Adds the handlers of an object whose class has `@Tool`, `@Resource` or `@Prompt` methods,
   * while serving. Names must be free. Its enhancers are resolved from the root module.
   */
  add(instance: object): Registration {
    const result = this.scan(instance);
    const clashes = [
      ...result.tools.filter((d) => this.tools.has(d.name)).map((d) => `tool '${d.name}'`),
      ...result.resources.filter((d) => this.resources.has(d.uri)).map((d) => `resource '${d.uri}'`),
      ...result.templates
        .filter((d) => this.templates.has(d.uriTemplate))
        .map((d) => `resource template '${d.uriTemplate}'`),
      ...result.prompts.filter((d) => this.prompts.has(d.name)).map((d) => `prompt '${d.name}'`),
    ];
    if (clashes.length > 0) {
      throw new Error(`Cannot add ${instance.constructor.name}: already registered: ${clashes.join(', ')}`);
    }
    const problem =
      this.capabilityProblem?.({
        tools: result.tools.length > 0,
        resources: result.resources.length + result.templates.length > 0,
        prompts: result.prompts.length > 0,
        ui: usesUi(result.tools, [...result.resources, ...result.templates]),
      }) ??
      toolViewProblem(result.tools, (uri) => {
        const fixed = result.resources.find((d) => d.uri === uri);
        const template = fixed ? undefined : result.templates.find((d) => d.template.match(uri));
        const added = fixed ?? template;
        return this.resolve(uri) ?? (added ? { definition: added } : undefined);
      });
    if (problem) throw new Error(`Cannot add ${instance.constructor.name}: ${problem}`);
    this.load(result);
    const names = {
      tools: result.tools.map((d) => d.name),
      resources: result.resources.map((d) => d.uri),
      templates: result.templates.map((d) => d.uriTemplate),
      prompts: result.prompts.map((d) => d.name),
    };
    return {
      ...names,
      remove: () => {
        for (const name of names.tools) this.tools.remove(name);
        for (const uri of names.resources) this.resources.remove(uri);
        for (const uri of names.templates) this.templates.remove(uri);
        for (const name of names.prompts) this.prompts.remove(name);
      },
    };
  }
}
