import {
  type AuthInfo,
  type CacheScope,
  type ClientCapabilities,
  ErrorCode,
  type Implementation,
  type InboundRequest,
  type InputRequests,
  InternalError,
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
  UnsupportedProtocolVersionError,
  UrlElicitationRequiredError,
} from '@gantry/protocol';
import { isLoggingLevel, LOG_LEVELS } from '../context/log-levels';
import type { Logger } from '../logger';
import type { HandlerCollection } from '../registry/handler-collection';
import type { Registry } from '../registry/registry';
import type { MethodHandler, MethodTable } from '../server/method-table';
import { resolveResource } from '../server/resource-handlers';
import { type CacheDefaults, type CacheHint, DEFAULT_CACHE } from './cache-hint';
import { warnOnceAboutEphemeralKey } from './ephemeral-key-warning';
import { InputRound } from './input-round';
import { principalDigest, RequestStateCodec } from './request-state';
import { StatelessCall, type StatelessServices } from './stateless-call';
import type { SubscriptionHub } from './subscriptions';

/** Options of the stateless era (2026-07-28). */
export interface StatelessOptions {
  /**
   * Key that signs `requestState` (HMAC-SHA256), at least 32 bytes. Every node that may get a
   * retry needs the same key. Default: `GANTRY_STATE_KEY` from the environment, else a random
   * key of this server (one node only: the first HTTP or WebSocket listener of the process
   * warns about it, once).
   */
  requestStateKey?: string | Uint8Array;
  /** How long a client has to answer an `input_required` result; default 10 minutes. */
  requestStateTtlMs?: number;
  /** Most `input_required` rounds one call may take; default 8. */
  maxInputRounds?: number;
  /** Put `serverInfo` in every result's `_meta`; default true. */
  serverInfoInResults?: boolean;
}

interface Resolved {
  readonly key: Buffer;
  /** A random key of this process: retries must come back to this process. */
  readonly ephemeral: boolean;
  readonly ttlMs: number;
  readonly maxRounds: number;
  readonly serverInfo: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves the stateless options. */
export function resolveStatelessOptions(options: StatelessOptions = {}): Resolved {
  let key: Buffer;
  let ephemeral = false;
  const given = options.requestStateKey ?? process.env.GANTRY_STATE_KEY;
  if (given === undefined || given === '') {
    key = RequestStateCodec.randomKey();
    ephemeral = true;
  } else {
    key = typeof given === 'string' ? Buffer.from(given, 'utf8') : Buffer.from(given);
    if (key.length < 32) {
      throw new RangeError(
        `stateless.requestStateKey must be at least 32 bytes (HMAC-SHA256); got ${key.length}`,
      );
    }
  }
  const ttlMs = options.requestStateTtlMs ?? 600_000;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`stateless.requestStateTtlMs must be a positive integer, got ${String(ttlMs)}`);
  const maxRounds = options.maxInputRounds ?? 8;
  if (!Number.isInteger(maxRounds) || maxRounds < 1)
    throw new RangeError(`stateless.maxInputRounds must be a positive integer, got ${String(maxRounds)}`);
  return { key, ephemeral, ttlMs, maxRounds, serverInfo: options.serverInfoInResults ?? true };
}

/** The salient params a `requestState` is bound to, per method. */
const SALIENT: Record<string, (params: RequestParams | undefined) => unknown> = {
  [Method.ToolsCall]: (p) => ({ name: p?.name, arguments: p?.arguments ?? {} }),
  [Method.PromptsGet]: (p) => ({ name: p?.name, arguments: p?.arguments ?? {} }),
  [Method.ResourcesRead]: (p) => ({ uri: p?.uri }),
};

interface Guardable {
  readonly handler: { readonly guarded: boolean };
  readonly cache?: CacheHint;
}

/**
 * Serves stateless-era requests (2026-07-28): checks the per-request `_meta`, dispatches to the
 * same handlers as the session era, runs multi round-trip requests, adds `resultType`,
 * caching hints and `serverInfo`, and turns retired codes into their stateless ones.
 */
export class StatelessDispatcher {
  private readonly methods = new Map<string, MethodHandler>();
  private readonly codec: RequestStateCodec;
  private readonly settings: Resolved;
  /** `_meta` of every result, built once; undefined when `serverInfoInResults` is off. */
  private readonly serverMeta?: Record<string, unknown>;
  private readonly cache: Required<{ [K in keyof CacheDefaults]: Required<CacheHint> }>;

  constructor(
    private readonly registry: Registry,
    session: MethodTable,
    private readonly capabilities: ServerCapabilities,
    private readonly serverInfo: Implementation,
    private readonly instructions: string | undefined,
    options: StatelessOptions | undefined,
    cache: CacheDefaults | undefined,
    private readonly hub: SubscriptionHub,
    private readonly services: StatelessServices,
    private readonly logger: Logger,
  ) {
    this.settings = resolveStatelessOptions(options);
    if (this.settings.serverInfo) this.serverMeta = Object.freeze({ [MetaKey.ServerInfo]: serverInfo });
    this.codec = new RequestStateCodec({ key: this.settings.key, ttlMs: this.settings.ttlMs });
    this.cache = {
      discover: { ...DEFAULT_CACHE.discover, ...cache?.discover },
      list: { ...DEFAULT_CACHE.list, ...cache?.list },
      read: { ...DEFAULT_CACHE.read, ...cache?.read },
    };
    const m = this.methods;
    m.set(StatelessMethod.ServerDiscover, () => this.discover());
    const reuse = (method: string) => session.get(method);
    const listOf = (method: string, hint: (call: StatelessCall) => Required<CacheHint>) => {
      const base = reuse(method);
      if (!base) return;
      m.set(method, (params, inbound, call) =>
        then(base(params, inbound, call), (result) => withHint(result, hint(call as StatelessCall))),
      );
    };
    listOf(Method.ToolsList, () => this.listHint([registry.tools]));
    listOf(Method.PromptsList, () => this.listHint([registry.prompts]));
    listOf(Method.ResourcesTemplatesList, () => this.listHint([registry.templates]));
    listOf(Method.ResourcesList, (call) => {
      const hint = this.listHint([registry.resources, registry.templates]);
      // A @ResourceList enumerates per call: its output may depend on who asks.
      const dynamic = registry.templates.definitions().some((t) => t.lister !== undefined);
      return dynamic && call.auth ? { ...hint, scope: 'private' } : hint;
    });
    for (const method of [Method.ToolsCall, Method.PromptsGet, Method.ResourcesRead]) {
      const base = reuse(method);
      if (base) m.set(method, this.roundTrips(method, base));
    }
    const complete = reuse(Method.CompletionComplete);
    if (complete) m.set(Method.CompletionComplete, complete);
    m.set(StatelessMethod.SubscriptionsListen, (params, inbound, call) =>
      this.hub.listen(params, inbound, (call as StatelessCall).connection),
    );
  }

  /**
   * Called by network listeners (HTTP, WebSocket) when they start: behind a load balancer a
   * retry may reach another node, which can verify its requestState only with a shared key.
   * stdio is one process per client, so it never needs one. Warns once per process.
   */
  warnIfKeyIsEphemeral(): void {
    if (this.settings.ephemeral) warnOnceAboutEphemeralKey(this.logger);
  }

  /**
   * Serves one stateless-era request that arrived on `connection` (its `auth`: who is calling).
   * Throws (or rejects with) the JSON-RPC error to answer.
   */
  handle(
    request: JSONRPCRequest,
    inbound: InboundRequest,
    connection: { readonly auth?: AuthInfo },
  ): Result | Promise<Result> {
    const params = request.params;
    const meta = params?._meta as Record<string, unknown>;
    const version = meta[MetaKey.ProtocolVersion];
    if (typeof version !== 'string') {
      throw new InvalidParamsError(
        `Invalid params: _meta["${MetaKey.ProtocolVersion}"] must be a protocol version string`,
      );
    }
    if (!STATELESS_PROTOCOL_VERSIONS.includes(version)) {
      throw new UnsupportedProtocolVersionError(`Unsupported protocol version: ${version}`, {
        supported: [...STATELESS_PROTOCOL_VERSIONS],
        requested: version,
      });
    }
    const capabilities = meta[MetaKey.ClientCapabilities];
    if (!isObject(capabilities)) {
      throw new InvalidParamsError(
        `Invalid params: _meta["${MetaKey.ClientCapabilities}"] is required on every ${version} request (an object; {} declares none)`,
      );
    }
    const level = meta[MetaKey.LogLevel];
    if (level !== undefined && !isLoggingLevel(level)) {
      throw new InvalidParamsError(
        `Invalid params: unknown log level ${JSON.stringify(level)} in _meta["${MetaKey.LogLevel}"]; use one of ${LOG_LEVELS.join(', ')}`,
      );
    }
    const handler = this.methods.get(request.method);
    if (!handler) {
      throw new MethodNotFoundError(`Method not found: ${request.method}`, { method: request.method });
    }
    const info = meta[MetaKey.ClientInfo];
    const call = new StatelessCall(
      version,
      capabilities as ClientCapabilities,
      isObject(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
      level,
      connection,
      this.services,
    );
    // Only the round-trip methods may ask for input; elsewhere ctx.elicit() & co. refuse, and
    // the server never writes a request of its own in this era.
    if (!SALIENT[request.method]) call.inputRound = new InputRound([], false, request.method);
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
    const result: Result = {
      supportedVersions: [...STATELESS_PROTOCOL_VERSIONS],
      capabilities: this.capabilities,
      ttlMs: this.cache.discover.ttlMs,
      cacheScope: this.cache.discover.scope,
    };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    return result;
  }

  /** One hint for a list: the shortest ttl of its items, private when any item is. */
  private listHint(collections: HandlerCollection<any>[]): Required<CacheHint> {
    let ttlMs = this.cache.list.ttlMs;
    let scope: CacheScope = this.cache.list.scope;
    for (const collection of collections) {
      for (const d of collection.definitions() as readonly Guardable[]) {
        if (d.cache?.ttlMs !== undefined) ttlMs = Math.min(ttlMs, d.cache.ttlMs);
        if (d.cache?.scope === 'private' || d.handler.guarded) scope = 'private';
      }
    }
    return { ttlMs, scope };
  }

  private readHint(uri: string, auth: AuthInfo | undefined): Required<CacheHint> {
    const found = resolveResource(this.registry, uri)?.definition;
    const own = found?.cache;
    const ttlMs = own?.ttlMs ?? this.cache.read.ttlMs;
    let scope: CacheScope = own?.scope ?? (auth ? 'private' : this.cache.read.scope);
    if (found?.handler.guarded) scope = 'private';
    return { ttlMs, scope };
  }

  /** The input requests for the URL elicitations a handler threw (the session era's −32042). */
  private static urlInputRequests(round: number, error: UrlElicitationRequiredError): InputRequests {
    const requests: InputRequests = {};
    error.elicitations.forEach((elicitation, i) => {
      requests[`${URL_KEY}${round}-${i + 1}`] = {
        method: Method.ElicitationCreate,
        params: { mode: 'url', message: elicitation.message, url: elicitation.url },
      };
    });
    return requests;
  }

  /**
   * Wraps `tools/call`, `prompts/get` and `resources/read`: replays the answers in
   * `requestState` + `inputResponses`, runs the handler, and answers `input_required` when the
   * handler asked for input it does not have yet.
   */
  private roundTrips(method: string, base: MethodHandler): MethodHandler {
    const salient = SALIENT[method];
    return (params, inbound, session) => {
      const call = session as StatelessCall;
      const replay =
        params?.requestState !== undefined || params?.inputResponses !== undefined
          ? this.replay(method, salient, params, call)
          : undefined;
      const round = new InputRound(replay?.answers ?? NO_ANSWERS, true, method);
      call.inputRound = round;
      const after = (result: Result | undefined, failure: unknown, failed: boolean) =>
        this.afterTry(method, salient, params, call, round, replay?.rounds ?? 0, result, failure, failed);
      let outcome: Result | Promise<Result>;
      try {
        outcome = base(params, inbound, call);
      } catch (error) {
        return after(undefined, error, true);
      }
      // A synchronous handler is answered synchronously: no promise on the hot path.
      if (!(outcome instanceof Promise)) return after(outcome, undefined, false);
      return outcome.then(
        (result) => after(result, undefined, false),
        (error) => after(undefined, error, true),
      );
    };
  }

  /** Opens the echoed `requestState` and appends the answers of this retry, in order. */
  private replay(
    method: string,
    salient: (params: RequestParams | undefined) => unknown,
    params: RequestParams | undefined,
    call: StatelessCall,
  ): { answers: unknown[]; rounds: number } {
    const responses = params?.inputResponses;
    const state = params?.requestState;
    if (state === undefined) {
      throw new InvalidParamsError(
        'Invalid params: "inputResponses" came without "requestState"; echo the requestState of the input_required result',
      );
    }
    const prior = this.codec.open(
      state,
      method,
      RequestStateCodec.digest(method, salient(params)),
      principalDigest(call.auth),
    );
    if (!isObject(responses)) {
      throw new InvalidParamsError(
        `Invalid params: the retry must carry "inputResponses" answering ${prior.expected.map((k) => JSON.stringify(k)).join(', ')}`,
      );
    }
    const given: unknown[] = [];
    for (const key of prior.expected) {
      if (!isObject(responses[key])) {
        throw new InvalidParamsError(
          `Invalid params: inputResponses lacks an answer (an object) for the input request ${JSON.stringify(key)}`,
        );
      }
      const problem = answerProblem(key, responses[key] as Record<string, unknown>);
      if (problem) {
        throw new InvalidParamsError(
          `Invalid params: the answer to the input request ${JSON.stringify(key)} ${problem}`,
        );
      }
      // Answers to a thrown UrlElicitationRequiredError are consent only: the handler checks its own state.
      if (!key.startsWith(URL_KEY)) given.push(responses[key]);
    }
    return { answers: [...prior.answers, ...given], rounds: prior.rounds };
  }

  /** What one try of a round-trip method answers, once its handler settled. */
  private afterTry(
    method: string,
    salient: (params: RequestParams | undefined) => unknown,
    params: RequestParams | undefined,
    call: StatelessCall,
    round: InputRound,
    rounds: number,
    result: Result | undefined,
    failure: unknown,
    failed: boolean,
  ): Result {
    /** Ends this try with `input_required`: the requests, and a state for the retry. */
    const inputRequired = (inputRequests: InputRequests): Result => {
      if (rounds + 1 > this.settings.maxRounds) {
        throw new InternalError(
          `Internal error: ${method} asked the client for input more than ${this.settings.maxRounds} times (stateless.maxInputRounds)`,
        );
      }
      const requestState = this.codec.issue(
        method,
        RequestStateCodec.digest(method, salient(params)),
        principalDigest(call.auth),
        { answers: round.gathered, expected: Object.keys(inputRequests), rounds: rounds + 1 },
      );
      return { resultType: 'input_required', inputRequests, requestState } as Result;
    };
    if (round.hasPending) return inputRequired(round.inputRequests);
    // The handler needed a capability the request did not declare, and did not recover.
    if (round.missing && (failed || (result as { isError?: unknown } | undefined)?.isError === true)) {
      throw new MissingRequiredClientCapabilityError(
        `Missing required client capability: ${round.missingMessage ?? `${method} needs client capabilities this request did not declare`}`,
        { requiredCapabilities: round.missing },
      );
    }
    // 2026-07-28 retired −32042: the URL elicitations become input requests of this result.
    if (failed && failure instanceof UrlElicitationRequiredError && failure.elicitations.length > 0) {
      return inputRequired(StatelessDispatcher.urlInputRequests(rounds + 1, failure));
    }
    if (failed) throw failure;
    if (method === Method.ResourcesRead && result) {
      return withHint(result, this.readHint(String(params?.uri), call.auth));
    }
    return result as Result;
  }
}

const URL_KEY = 'url-';

const NO_ANSWERS: readonly unknown[] = Object.freeze([]);

/** What is wrong with the shape of an answer, judged by the kind of input request it answers. */
function answerProblem(key: string, answer: Record<string, unknown>): string | undefined {
  if (key.startsWith('elicitation-') || key.startsWith(URL_KEY)) {
    const action = answer.action;
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
      return `needs "action": "accept", "decline" or "cancel" (an ElicitResult), got ${JSON.stringify(action)}`;
    if (answer.content !== undefined && !isObject(answer.content))
      return 'has a "content" that is not an object';
  } else if (key.startsWith('sampling-')) {
    if (typeof answer.role !== 'string' || typeof answer.content !== 'object' || answer.content === null)
      return 'needs "role" and "content" (a CreateMessageResult)';
  } else if (key.startsWith('roots-')) {
    if (!Array.isArray(answer.roots)) return 'needs "roots", an array (a ListRootsResult)';
  }
  return undefined;
}

function withHint(result: Result, hint: Required<CacheHint>): Result {
  return { ...result, ttlMs: hint.ttlMs, cacheScope: hint.scope };
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
