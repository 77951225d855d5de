// Requests of the stateless era (MCP 2026-07-28): every request carries its own `_meta`
// (Basic / Versioning), and `tools/call`, `prompts/get` and `resources/read` may answer
// `input_required`, which the client answers and retries (Basic / Patterns §"Multi
// Round-Trip Requests").
import {
  ErrorCode,
  GantryError,
  type Implementation,
  type InputRequest,
  type InputResponses,
  LocalErrorCode,
  type LoggingLevel,
  McpError,
  type Meta,
  MetaKey,
  Method,
  type Peer,
  RequestCancelledError,
  type Result,
} from '@gantry/protocol';
import type {
  CallToolOptions,
  ClientOptions,
  ClientRequestHandler,
  InputRequestContext,
} from './client-options';
import { isObject, preview, protocolViolation } from './client-support';
import { pickStatelessVersion, supportedVersionsIn } from './era';

/** The only requests that may answer `input_required` (MCP 2026-07-28, Basic / Patterns). */
const INPUT_ROUND_METHODS: ReadonlySet<string> = new Set([
  Method.ToolsCall,
  Method.PromptsGet,
  Method.ResourcesRead,
]);

const DEFAULT_MAX_INPUT_ROUNDS = 8;

/** What the requester needs of its Client. */
export interface StatelessRequesterHost {
  readonly clientInfo: Implementation;
  readonly options: ClientOptions;
  /** The stateless-era version asked for when none has been settled. */
  readonly preferredVersion: string;
  /** The handler of a server → client request method, if one is set. */
  handlerFor(method: string): ClientRequestHandler | undefined;
  /** Whether the transport sends `Mcp-Param-*` headers (stateless-era HTTP). */
  sendsParamHeaders(): boolean;
  /** Re-reads `tools/list`, refreshing the `x-mcp-header` annotations. */
  refreshTools(options: { signal?: AbortSignal; timeoutMs?: number }): Promise<unknown>;
  /** Told the version a −32022 made the client switch to, for the era cache. */
  versionChanged(version: string): void;
}

/**
 * Sends the requests of one Client in the stateless era and keeps what they share: the
 * version settled by `connect` and the log level set with `setLoggingLevel`.
 */
export class StatelessRequester {
  /** The stateless-era version in use, once `connect` settled it. */
  version?: string;
  /** Sent as `_meta["io.modelcontextprotocol/logLevel"]` once set. */
  logLevel?: LoggingLevel;

  private readonly maxInputRounds: number;

  constructor(private readonly host: StatelessRequesterHost) {
    const rounds = host.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    if (!Number.isInteger(rounds) || rounds < 1) {
      throw new TypeError(
        `Client: maxInputRounds must be a positive integer, got ${String(host.options.maxInputRounds)}`,
      );
    }
    this.maxInputRounds = rounds;
  }

  /** The per-request `_meta` of the stateless era. */
  meta(version = this.version ?? this.host.preferredVersion): Meta {
    const options = this.host.options;
    const meta: Meta = {
      [MetaKey.ProtocolVersion]: version,
      [MetaKey.ClientCapabilities]: options.capabilities ?? {},
    };
    if (options.sendClientInfo !== false) meta[MetaKey.ClientInfo] = this.host.clientInfo;
    if (this.logLevel !== undefined) meta[MetaKey.LogLevel] = this.logLevel;
    return meta;
  }

  /** `params` with the per-request `_meta` added; keys given in `params._meta` win. */
  withMeta(params: { [key: string]: unknown } | undefined): { [key: string]: unknown } {
    const given = isObject(params?._meta) ? params._meta : undefined;
    return { ...params, _meta: { ...this.meta(), ...given } };
  }

  /**
   * One stateless-era request: `_meta` added, `resultType` checked, `input_required` answered
   * and retried (new id, same method and params, plus `inputResponses` and the echoed
   * `requestState`), a −32022 retried once with a common version, and a −32020 on `tools/call`
   * over HTTP retried once after re-reading `tools/list` (the `Mcp-Param-*` headers may be stale).
   */
  async request(
    peer: Peer,
    method: string,
    params: { [key: string]: unknown } | undefined,
    options: CallToolOptions,
    /** The request declared the tasks extension: a `resultType: "task"` answer is returned as it is. */
    acceptTask = false,
  ): Promise<Result> {
    const host = this.host;
    let current = params;
    let rounds = 0;
    let versionRetried = false;
    let headersRetried = false;
    for (;;) {
      let result: Result;
      try {
        result = await peer.request({ method, params: this.withMeta(current) }, options);
      } catch (error) {
        if (!(error instanceof McpError) || options.signal?.aborted) throw error;
        if (error.code === ErrorCode.UnsupportedProtocolVersion && !versionRetried) {
          versionRetried = true;
          const common = pickStatelessVersion(supportedVersionsIn(error) ?? []);
          if (common !== undefined && common !== this.version) {
            this.version = common;
            host.versionChanged(common);
            continue;
          }
        }
        if (
          error.code === ErrorCode.HeaderMismatch &&
          method === Method.ToolsCall &&
          !headersRetried &&
          host.sendsParamHeaders()
        ) {
          headersRetried = true;
          await host.refreshTools({ signal: options.signal, timeoutMs: options.timeoutMs });
          continue;
        }
        throw error;
      }
      const type = result.resultType;
      if (type === undefined || type === 'complete')
        return host.options.rawResults ? result : withoutEnvelope(result);
      // The tasks extension (MCP 2026-07-28, SEP-2663): only a tools/call that declared it.
      if (type === 'task' && acceptTask && method === Method.ToolsCall) return result;
      if (type !== 'input_required') {
        throw protocolViolation(
          `${method} answered with resultType ${JSON.stringify(type)}, which this client does not recognize`,
        );
      }
      if (!INPUT_ROUND_METHODS.has(method)) {
        throw protocolViolation(
          `${method} answered resultType "input_required", which only tools/call, prompts/get and resources/read may return`,
        );
      }
      rounds++;
      if (rounds > this.maxInputRounds) {
        throw new GantryError(
          LocalErrorCode.InputRequired,
          `${method} still asked for input after ${this.maxInputRounds} rounds (maxInputRounds); gave up`,
        );
      }
      const requests = result.inputRequests;
      const state = result.requestState;
      if (requests !== undefined && !isObject(requests)) {
        throw protocolViolation(
          `${method} answered input_required with "inputRequests" that is not an object`,
        );
      }
      if (state !== undefined && typeof state !== 'string') {
        throw protocolViolation(
          `${method} answered input_required with a "requestState" that is not a string`,
        );
      }
      if (requests === undefined && state === undefined) {
        throw protocolViolation(
          `${method} answered input_required with neither "inputRequests" nor "requestState"`,
        );
      }
      const next: { [key: string]: unknown } = { ...params };
      delete next.inputResponses;
      delete next.requestState;
      if (requests !== undefined) {
        next.inputResponses = await this.answerInputRequests(method, params, requests, options.signal);
      }
      // Echoed byte for byte, and only when the server gave one.
      if (state !== undefined) next.requestState = state;
      if (options.signal?.aborted) throw new RequestCancelledError(method, options.signal.reason);
      current = next;
    }
  }

  /** Answers a task's input requests (tasks extension) with the same handlers as `input_required`. */
  answerTaskInputs(requests: Record<string, unknown>, signal?: AbortSignal): Promise<InputResponses> {
    return this.answerInputRequests(Method.ToolsCall, undefined, requests, signal);
  }

  /** Runs the request handler of each input request, in the server's order. */
  private async answerInputRequests(
    method: string,
    params: { [key: string]: unknown } | undefined,
    requests: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<InputResponses> {
    const responses: InputResponses = {};
    const callSignal = signal ?? new AbortController().signal;
    for (const [key, entry] of Object.entries(requests)) {
      if (!isObject(entry) || typeof entry.method !== 'string') {
        throw protocolViolation(`${method} asked for input "${key}" without a method: ${preview(entry)}`);
      }
      const input = entry as unknown as InputRequest;
      // `ping` has a built-in handler for the session era; it is no input request.
      const handler =
        (input.method as string) === Method.Ping ? undefined : this.host.handlerFor(input.method);
      if (!handler) {
        throw new GantryError(
          LocalErrorCode.CapabilityMissing,
          `${method} needs input "${key}" (${input.method}), but this client has no handler for ${input.method}; register one with client.setRequestHandler('${input.method}', …) and declare the capability`,
        );
      }
      if (callSignal.aborted) throw new RequestCancelledError(method, callSignal.reason);
      const context: InputRequestContext = {
        era: 'stateless',
        method: input.method,
        key,
        request: params === undefined ? { method } : { method, params },
        signal: callSignal,
      };
      try {
        responses[key] = (await handler(
          isObject(input.params) ? input.params : {},
          context,
        )) as InputResponses[string];
      } catch (error) {
        if (callSignal.aborted) throw new RequestCancelledError(method, callSignal.reason);
        const message = error instanceof Error ? error.message : String(error);
        throw new GantryError(
          LocalErrorCode.InputRequired,
          `The ${input.method} handler failed on input "${key}" of ${method}: ${message}`,
          { cause: error },
        );
      }
    }
    return responses;
  }
}

/**
 * A complete stateless-era result in the shape of a session-era one: without `resultType`,
 * `ttlMs`, `cacheScope` and `_meta["io.modelcontextprotocol/serverInfo"]` (`_meta` goes when
 * nothing else is left in it).
 */
function withoutEnvelope(result: Result): Result {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
  const meta = rest._meta;
  if (isObject(meta) && MetaKey.ServerInfo in meta) {
    const { [MetaKey.ServerInfo]: _info, ...others } = meta;
    if (Object.keys(others).length > 0) rest._meta = others;
    else delete rest._meta;
  }
  return rest;
}
