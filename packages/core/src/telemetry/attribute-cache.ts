import { Method, type RequestParams } from '@gantry/protocol';
import type { Attributes } from '@opentelemetry/api';
import { Attr, type RequestTarget, requestTarget, unknownTarget } from './attributes';

/** Whether the server has the tool (`tools/call`) or prompt (`prompts/get`) `name`. */
export type KnownName = (method: string, name: string) => boolean;

/** What metrics name a method the server does not have (-32601), as OpenTelemetry's HTTP conventions name unknown methods. */
export const OTHER_METHOD = '_OTHER';

/**
 * Entries per map: names and versions come from clients, so an unknown tool name or version
 * past this many is still served, just not remembered.
 */
const LIMIT = 1024;

/** Resource methods: the target is a URI, of unbounded cardinality, never remembered. */
const BY_URI: ReadonlySet<string> = new Set([
  Method.ResourcesRead,
  Method.ResourcesSubscribe,
  Method.ResourcesUnsubscribe,
]);

/**
 * The span names, target attributes and metric attribute sets of requests, built once per
 * method and tool (or prompt) and then shared: with an SDK these are built on every request,
 * which is the hot path the bench's `--only-otel` measures. Bounded, see LIMIT.
 */
export class AttributeCache {
  private readonly targets = new Map<string, Map<string | undefined, RequestTarget>>();
  private readonly measured = new WeakMap<RequestTarget, WeakMap<object, Map<string, Attributes>>>();

  /** `known`: names it says the server lacks are never remembered, nor put on metrics. */
  constructor(
    private readonly uriInName: boolean,
    private readonly known?: KnownName,
  ) {}

  /** What `requestTarget` answers, the same object for the same method and name. */
  target(method: string, params: RequestParams | undefined): RequestTarget {
    if (BY_URI.has(method)) return requestTarget(method, params, this.uriInName);
    const name = method === Method.ToolsCall || method === Method.PromptsGet ? params?.name : undefined;
    const key = typeof name === 'string' ? name : undefined;
    let byName = this.targets.get(method);
    if (byName === undefined) {
      if (this.targets.size >= LIMIT) return requestTarget(method, params, this.uriInName);
      byName = new Map();
      this.targets.set(method, byName);
    }
    let found = byName.get(key);
    if (found === undefined) {
      if (key !== undefined && this.known !== undefined && !this.known(method, key))
        return unknownTarget(method, key);
      const built = requestTarget(method, params, this.uriInName);
      found = Object.freeze({ ...built, target: built.target && Object.freeze(built.target) });
      if (byName.size < LIMIT) byName.set(key, found);
    }
    return found;
  }

  /**
   * The attributes of a successful operation's `mcp.server.operation.duration`; `connection` is
   * an interned object of `transportAttributes`, `target` one of `target()`.
   */
  success(
    connection: Readonly<Attributes>,
    target: RequestTarget,
    method: string,
    version: string | undefined,
  ): Attributes {
    let byConnection = this.measured.get(target);
    if (byConnection === undefined) {
      byConnection = new WeakMap();
      this.measured.set(target, byConnection);
    }
    let byVersion = byConnection.get(connection);
    if (byVersion === undefined) {
      byVersion = new Map();
      byConnection.set(connection, byVersion);
    }
    const key = version ?? '';
    let found = byVersion.get(key);
    if (found === undefined) {
      found = Object.freeze(operationAttributes(connection, target, method, version));
      if (byVersion.size < LIMIT) byVersion.set(key, found);
    }
    return found;
  }
}

/** `mcp.server.operation.duration`'s attributes before any failure's (semantic-conventions-genai, mcp.md §Metrics). */
export function operationAttributes(
  connection: Readonly<Attributes>,
  target: RequestTarget,
  method: string,
  version: string | undefined,
): Attributes {
  const attributes: Attributes = { ...connection, ...target.target };
  attributes[Attr.McpMethodName] = method;
  if (version !== undefined) attributes[Attr.McpProtocolVersion] = version;
  return attributes;
}
