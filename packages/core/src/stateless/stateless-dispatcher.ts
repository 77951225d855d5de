import {
  type AuthInfo,
  CapabilityMissingError,
  ErrorCode,
  type Implementation,
  type InboundRequest,
  InvalidParamsError,
  type JSONRPCRequest,
  McpError,
  MetaKey,
  Method,
  MethodNotFoundError,
  MissingRequiredClientCapabilityError,
  type RequestParams,
  type Result,
  type ServerCapabilities,
  STATELESS_PROTOCOL_VERSIONS,
  StatelessMethod,
} from '@gantry/protocol';
import type { Logger } from '../logger';
import type { Registry } from '../registry/registry';
import type { MethodHandler, MethodTable } from '../server/method-table';
import type { StatelessOptions } from '../server/server-options';
import type { CacheDefaults } from './cache-hint';
import { warnOnceAboutEphemeralKey } from './ephemeral-key-warning';
import { readRequestMeta } from './request-meta';
import { RequestStateCodec } from './request-state';
import { LIST_METHODS, ResultHints, withHint } from './result-hints';
import { RoundTrips } from './round-trips';
import { StatelessCall, type StatelessServices } from './stateless-call';
import { resolveStatelessOptions, type StatelessSettings } from './stateless-settings';
import type { SubscriptionHub } from './subscriptions';

/** What the stateless dispatcher is built from (once per server). */
export interface StatelessDispatcherOptions {
  readonly registry: Registry;
  /** The methods both eras serve; the dispatcher wraps the ones this era has. */
  readonly methods: MethodTable;
  /** The methods extensions add (in `methods`), served as they are. */
  readonly extensionMethods?: readonly string[];
  /** The tasks extension's methods (`tasks/get`, `tasks/update`, `tasks/cancel`), when tools run as tasks. */
  readonly taskMethods?: readonly [string, MethodHandler][];
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** The app's `stateless` option. */
  readonly options?: StatelessOptions;
  /** The app's `cache` option. */
  readonly cache?: CacheDefaults;
  /** The open `subscriptions/listen` streams. */
  readonly hub: SubscriptionHub;
  /** The server's fan-out notifications, for `ctx.resources` and `ctx.completeElicitation`. */
  readonly services: StatelessServices;
  readonly logger: Logger;
}

/**
 * Serves stateless-era requests (MCP 2026-07-28): checks the per-request `_meta`, dispatches
 * to the same handlers as the session era, runs multi round-trip requests, adds `resultType`,
 * caching hints and `serverInfo`, and turns retired codes into their stateless ones.
 */
export class StatelessDispatcher {
  private readonly methods = new Map<string, MethodHandler<StatelessCall>>();
  private readonly settings: StatelessSettings;
  /** `_meta` of every result, built once; undefined when `serverInfoInResults` is off. */
  private readonly serverMeta?: Record<string, unknown>;
  private readonly hints: ResultHints;

  constructor(private readonly options: StatelessDispatcherOptions) {
    const { registry, methods: shared, hub } = options;
    this.settings = resolveStatelessOptions(options.options);
    if (this.settings.serverInfo)
      this.serverMeta = Object.freeze({ [MetaKey.ServerInfo]: options.serverInfo });
    this.hints = new ResultHints(registry, options.cache);
    const codec = new RequestStateCodec({ key: this.settings.key, ttlMs: this.settings.ttlMs });
    const roundTrips = new RoundTrips({ codec, maxRounds: this.settings.maxRounds, hints: this.hints });

    const m = this.methods;
    m.set(StatelessMethod.ServerDiscover, () => this.discover());
    for (const method of LIST_METHODS) {
      const base = shared.get(method);
      if (!base) continue;
      m.set(method, (params, inbound, call) =>
        then(base(params, inbound, call), (result) =>
          withHint(result, this.hints.forList(method, call.auth)),
        ),
      );
    }
    for (const method of [Method.ToolsCall, Method.PromptsGet, Method.ResourcesRead]) {
      const base = shared.get(method);
      if (base) m.set(method, roundTrips.wrap(method, base));
    }
    const complete = shared.get(Method.CompletionComplete);
    if (complete) m.set(Method.CompletionComplete, complete);
    m.set(StatelessMethod.SubscriptionsListen, (params, inbound, call) =>
      hub.listen(params, inbound, call.connection, call),
    );
    for (const [method, handler] of options.taskMethods ?? []) m.set(method, handler);
    for (const method of options.extensionMethods ?? []) {
      const base = shared.get(method);
      if (base) m.set(method, (params, inbound, call) => withMissingCapability(base, params, inbound, call));
    }
  }

  /**
   * Called by network listeners (HTTP, WebSocket) when they start: behind a load balancer a
   * retry may reach another node, which can verify its requestState only with a shared key.
   * stdio is one process per client, so it never needs one. Warns once per process.
   */
  warnIfKeyIsEphemeral(): void {
    if (this.settings.ephemeral) warnOnceAboutEphemeralKey(this.options.logger);
  }

  /**
   * Serves one stateless-era request that arrived on `connection` (its `auth`: who is calling).
   * Throws (or rejects with) the JSON-RPC error to answer.
   */
  handle(
    request: JSONRPCRequest,
    inbound: InboundRequest,
    connection: { readonly auth?: AuthInfo; readonly remoteAddress?: string },
  ): Result | Promise<Result> {
    const params = request.params;
    const meta = readRequestMeta(params);
    const handler = this.methods.get(request.method);
    if (!handler) {
      throw new MethodNotFoundError(`Method not found: ${request.method}`, { method: request.method });
    }
    const call = new StatelessCall(request.method, meta, connection, this.options.services);
    let outcome: Result | Promise<Result>;
    try {
      outcome = handler(params, inbound, call);
    } catch (error) {
      throw statelessError(error);
    }
    // Synchronous handlers are answered synchronously: no promise on the hot path.
    if (!(outcome instanceof Promise)) return this.finish(outcome);
    return outcome.then(
      (result) => this.finish(result),
      (error) => {
        throw statelessError(error);
      },
    );
  }

  /** `resultType` and `serverInfo` on every result (a shallow copy: results may be shared). */
  private finish(result: Result): Result {
    const out: Result = Object.assign({}, result);
    if (out.resultType === undefined) out.resultType = 'complete';
    const serverMeta = this.serverMeta;
    if (serverMeta) out._meta = result._meta === undefined ? serverMeta : { ...result._meta, ...serverMeta };
    return out;
  }

  private discover(): Result {
    // The 2025-11-25 `tasks` capability MUST NOT be advertised in 2026-07-28 (SEP-2663 § Compatibility).
    const { tasks: _, ...capabilities } = this.options.capabilities;
    const result: Result = {
      supportedVersions: [...STATELESS_PROTOCOL_VERSIONS],
      capabilities,
      ttlMs: this.hints.discover.ttlMs,
      cacheScope: this.hints.discover.scope,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }
}

function then<T, U>(value: T | Promise<T>, next: (value: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value as T);
}

/** 2026-07-28 retired −32002: a missing resource is −32602. */
function statelessError(error: unknown): unknown {
  if (error instanceof McpError && error.code === ErrorCode.ResourceNotFound) {
    return new InvalidParamsError(error.message, error.data);
  }
  return error;
}

/**
 * An extension method whose handler needed a client capability (`ctx.extensions.require`) the
 * request did not declare answers −32021 with `data.requiredCapabilities` (MCP 2026-07-28,
 * Basic › Capabilities), as the round-trip methods do.
 */
async function withMissingCapability(
  base: MethodHandler,
  params: RequestParams | undefined,
  inbound: InboundRequest,
  call: StatelessCall,
): Promise<Result> {
  try {
    return await base(params, inbound, call);
  } catch (error) {
    const lacking = call.asked?.lacking;
    if (lacking && error instanceof CapabilityMissingError) {
      throw new MissingRequiredClientCapabilityError(`Missing required client capability: ${error.message}`, {
        requiredCapabilities: lacking,
      });
    }
    throw error;
  }
}
