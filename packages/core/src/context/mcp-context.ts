import {
  type AuthInfo,
  CapabilityMissingError,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitResult,
  fromPeer,
  type Implementation,
  type InboundRequest,
  type ListRootsResult,
  type LoggingLevel,
  type Meta,
  Method,
  type ProgressToken,
  type RequestId,
  type Root,
  versionAtLeast,
} from '@gantry/protocol';
import type { InputRound } from '../stateless/input-round';
import {
  type ElicitOptions,
  type ElicitOutcome,
  elicitForm,
  elicitUrl,
  type UrlElicitOutcome,
} from './elicitation';
import { isLoggingLevel, LOG_LEVELS } from './log-levels';

/** What is known of the client on this connection. */
export interface SessionInfo {
  /** The protocol version answered in `initialize`. */
  readonly protocolVersion: string;
  /** The spec revision whose rules apply (differs for aliases such as 2024-10-07). */
  readonly behaviourVersion: string;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  /** Who the caller is, when the transport authenticated it (HTTP, WebSocket). */
  readonly auth?: AuthInfo;
  /**
   * `legacy`: a session opened by `initialize` (2024-11-05 … 2025-11-25). `stateless`: one
   * stateless request of 2026-07-28, described by its own `_meta`. Absent means legacy.
   */
  readonly era?: ProtocolEra;
}

/** The two eras of MCP: sessions opened by `initialize`, or stateless self-describing requests. */
export type ProtocolEra = 'session' | 'stateless';

/** W3C Trace Context (and Baggage) the caller put in the request's `_meta`. */
export interface TraceContext {
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly baggage?: string;
}

/** The session services the context uses; the server session provides them. */
export interface ContextSession extends SessionInfo {
  /** The level set by `logging/setLevel`; undefined until the client sets one (then all is sent). */
  readonly logLevel: LoggingLevel | undefined;
  /** `roots/list`, cached until `notifications/roots/list_changed`. */
  listRoots(inbound: InboundRequest): Promise<Root[]>;
  /** Sends `notifications/resources/updated` to every subscribed session of the app. */
  resourceUpdated(uri: string): Promise<void>;
  /** Sends `notifications/resources/list_changed` to every session of the app. */
  resourceListChanged(): void;
  /** Remembers that this session started a URL elicitation (for `notifications/elicitation/complete`). */
  rememberElicitation(elicitationId: string): void;
  /** Sends `notifications/elicitation/complete` to the session that started `elicitationId`. */
  completeElicitation(elicitationId: string): Promise<boolean>;
  /** Why this session cannot carry server→client requests, when it cannot (stateless HTTP). */
  readonly serverRequestsUnavailable?: string;
  /** Closes the connection of a request's SSE stream (HTTP); false when the transport cannot. */
  closeStreamOf(requestId: RequestId): boolean;
  /** Stateless era: the answers gathered so far and the input this try still needs (MRTR). */
  readonly inputRound?: InputRound;
}

/** `ctx.resources`: resource notifications from inside a handler. */
export interface ContextResources {
  /** Tells every session subscribed to `uri` that it changed (`notifications/resources/updated`). */
  updated(uri: string): Promise<void>;
  /** Tells every session that the resource list changed (`notifications/resources/list_changed`). */
  listChanged(): void;
}

/**
 * The context of one request, injected with `@Ctx()`: who is calling, the cancellation
 * signal, and the utilities that talk back to the client (progress, logging, sampling,
 * elicitation, roots). It is created only for handlers that ask for it.
 */
export class McpContext {
  private lastProgress = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly inbound: InboundRequest,
    /** The session the request arrived on. */
    readonly session: SessionInfo,
  ) {}

  /** The JSON-RPC id of the request being handled. */
  get requestId(): RequestId {
    return this.inbound.id;
  }

  /** The method being handled, e.g. `tools/call`. */
  get method(): string {
    return this.inbound.method;
  }

  /** Aborts when the client cancels the request, the connection closes, or the app shuts down. */
  get signal(): AbortSignal {
    return this.inbound.signal;
  }

  /** The request's `params._meta`. */
  get meta(): Meta | undefined {
    return this.inbound.meta;
  }

  /** The protocol era of this request; handlers rarely need it, since `ctx` behaves the same in both. */
  get era(): ProtocolEra {
    return this.session.era ?? 'session';
  }

  /** `traceparent`, `tracestate` and `baggage` from the request's `_meta`, when the caller sent them. */
  get trace(): TraceContext {
    const meta = this.inbound.meta as Record<string, unknown> | undefined;
    const trace: { traceparent?: string; tracestate?: string; baggage?: string } = {};
    if (!meta) return trace;
    for (const key of ['traceparent', 'tracestate', 'baggage'] as const) {
      if (typeof meta[key] === 'string') trace[key] = meta[key] as string;
    }
    return trace;
  }

  /** The caller's progress token, when it asked for progress. */
  get progressToken(): ProgressToken | undefined {
    return this.inbound.meta?.progressToken;
  }

  /** Who the caller is, when the transport authenticated it. */
  get auth(): AuthInfo | undefined {
    return this.session.auth;
  }

  get clientInfo(): Implementation {
    return this.session.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.session.clientCapabilities;
  }

  /** Resource notifications: `ctx.resources.updated(uri)`. */
  get resources(): ContextResources {
    const session = this.services;
    return {
      updated: (uri) => session.resourceUpdated(uri),
      listChanged: () => session.resourceListChanged(),
    };
  }

  /**
   * Reports progress with `notifications/progress`. Sent only when the caller gave a
   * `progressToken` (otherwise nothing happens). `progress` must increase with every call.
   */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    if (typeof progress !== 'number' || Number.isNaN(progress)) {
      throw new TypeError(`ctx.progress(): progress must be a number, got ${String(progress)}`);
    }
    if (progress <= this.lastProgress) {
      throw new RangeError(
        `ctx.progress(): progress must increase with every call (MCP progress rule); got ${progress} after ${this.lastProgress}`,
      );
    }
    this.lastProgress = progress;
    const token = this.progressToken;
    if (token === undefined) return Promise.resolve();
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` exists since 2025-03-26.
    if (message !== undefined && versionAtLeast(this.session.behaviourVersion, '2025-03-26'))
      params.message = message;
    return this.inbound.notify({ method: Method.Progress, params });
  }

  /**
   * Sends a log message (`notifications/message`) when `level` is at or above the level the
   * client set with `logging/setLevel` (everything until it sets one). In the stateless era the
   * request itself opts in with `_meta["io.modelcontextprotocol/logLevel"]`; without it nothing
   * is sent.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!isLoggingLevel(level)) {
      throw new TypeError(
        `ctx.log(): unknown level ${JSON.stringify(level)}; use one of ${LOG_LEVELS.join(', ')}`,
      );
    }
    const threshold = this.services.logLevel;
    if (threshold === undefined && this.session.era === 'stateless') return Promise.resolve();
    if (threshold !== undefined && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold))
      return Promise.resolve();
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.inbound.notify({ method: Method.LoggingMessage, params });
  }

  /**
   * Asks the client to sample its model (`sampling/createMessage`). Needs the client's
   * `sampling` capability (and `sampling.tools` to pass `tools`); cancelled with the request.
   */
  sample(
    params: CreateMessageRequestParams,
    options: { timeoutMs?: number } = {},
  ): Promise<CreateMessageResult> {
    const unavailable = this.unavailable('ctx.sample()');
    if (unavailable) return Promise.reject(unavailable);
    const sampling = this.session.clientCapabilities.sampling;
    if (!sampling) {
      return Promise.reject(
        this.missing(
          { sampling: {} },
          `ctx.sample(): the client (${this.session.clientInfo.name}) did not declare the sampling capability, so it cannot sample for this server`,
        ),
      );
    }
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools) {
      return Promise.reject(
        this.missing(
          { sampling: { tools: {} } },
          'ctx.sample(): tools and toolChoice need the client capability sampling.tools (2025-11-25), which this client did not declare',
        ),
      );
    }
    const round = this.services.inputRound;
    if (round) return round.next<CreateMessageResult>({ method: Method.SamplingCreateMessage, params });
    return this.inbound
      .sendRequest<CreateMessageResult>(
        { method: Method.SamplingCreateMessage, params: params as unknown as Record<string, unknown> },
        options,
      )
      .catch(fromPeer(Method.SamplingCreateMessage));
  }

  /**
   * Asks the user for structured input with a form (`elicitation/create`, form mode). The form
   * comes from a DTO class (or a restricted JSON Schema); an accepted answer is validated and
   * transformed into the DTO.
   *
   * @example
   * ```ts
   * const answer = await ctx.elicit(Confirm, 'Delete all notes?');
   * if (answer.action === 'accept' && answer.content.confirm) { ... }
   * ```
   */
  elicit<T>(
    form: (new () => T) | object,
    message: string,
    options: ElicitOptions = {},
  ): Promise<ElicitOutcome<T>> {
    const unavailable = this.unavailable('ctx.elicit()');
    if (unavailable) return Promise.reject(unavailable);
    const round = this.services.inputRound;
    const ask = round
      ? (params: Record<string, unknown>) =>
          round.next<ElicitResult>({ method: Method.ElicitationCreate, params })
      : (params: Record<string, unknown>) =>
          this.inbound
            .sendRequest<ElicitResult>({ method: Method.ElicitationCreate, params }, options)
            .catch(fromPeer(Method.ElicitationCreate));
    return elicitForm<T>(ask, this.session, form, message, (capabilities, text) =>
      this.missing(capabilities, text),
    );
  }

  /**
   * Sends the user to a URL (`elicitation/create`, URL mode, 2025-11-25), e.g. to sign in to a
   * third party. `accept` means the user agreed to open it, not that the flow finished; call
   * `app.completeElicitation(elicitationId)` when it has.
   */
  elicitUrl(
    url: string,
    message: string,
    options: { elicitationId?: string; timeoutMs?: number } = {},
  ): Promise<UrlElicitOutcome> {
    const unavailable = this.unavailable('ctx.elicitUrl()');
    if (unavailable) return Promise.reject(unavailable);
    return elicitUrl(this.inbound, this.services, url, message, options);
  }

  /**
   * Tells the client that started URL elicitation `elicitationId` that it is complete
   * (`notifications/elicitation/complete`); false when that session is gone. Same as
   * `app.completeElicitation()`.
   */
  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.services.completeElicitation(elicitationId);
  }

  /** The client's roots (`roots/list`), cached for the session until they change. */
  roots(): Promise<Root[]> {
    const unavailable = this.unavailable('ctx.roots()');
    if (unavailable) return Promise.reject(unavailable);
    if (!this.session.clientCapabilities.roots) {
      return Promise.reject(
        this.missing(
          { roots: {} },
          `ctx.roots(): the client (${this.session.clientInfo.name}) did not declare the roots capability`,
        ),
      );
    }
    const round = this.services.inputRound;
    if (round) {
      return round
        .next<ListRootsResult>({ method: Method.RootsList })
        .then((result) => (Array.isArray(result?.roots) ? result.roots : []));
    }
    return this.services.listRoots(this.inbound);
  }

  /**
   * Ends the HTTP connection that carries this request's SSE stream after the events sent so
   * far; the client reconnects with `Last-Event-ID` and gets the rest (SSE polling, 2025-11-25).
   * Returns false when the transport cannot (stdio, JSON responses, nothing sent yet).
   */
  closeSseStream(): boolean {
    return this.services.closeStreamOf(this.inbound.id);
  }

  /** A missing client capability: a local error, recorded for −32021 in the stateless era. */
  private missing(capabilities: ClientCapabilities, message: string): Error {
    const round = this.services.inputRound;
    return round ? round.require(capabilities, message) : new CapabilityMissingError(message);
  }

  private unavailable(what: string): CapabilityMissingError | undefined {
    const reason = this.services.serverRequestsUnavailable;
    return reason === undefined ? undefined : new CapabilityMissingError(`${what}: ${reason}`);
  }

  private get services(): ContextSession {
    return this.session as ContextSession;
  }
}

export type { ElicitOutcome, ElicitResult, UrlElicitOutcome };
