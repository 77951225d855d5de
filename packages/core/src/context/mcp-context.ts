import {
  type AuthInfo,
  CapabilityMissingError,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitResult,
  type Implementation,
  type InboundRequest,
  type LoggingLevel,
  type Meta,
  Method,
  type ProgressToken,
  type RequestId,
  type Root,
  versionAtLeast,
} from '@gantry/protocol';
import { ClientExtensions } from '../extensions/client-extensions';
import { checkInputKey } from '../stateless/input-key';
import type { ClientChannel, ContextSession, ProtocolEra, SessionInfo } from './context-session';
import {
  type ElicitOptions,
  type ElicitOutcome,
  elicitForm,
  elicitUrl,
  type UrlElicitOutcome,
} from './elicitation';
import { isLoggingLevel, LOG_LEVELS } from './log-levels';

export type { ProtocolEra, SessionInfo } from './context-session';

/** Options of `ctx.sample()`. */
export interface SampleOptions {
  /** Time the client has to answer; default the server's request timeout. */
  timeoutMs?: number;
  /**
   * The key of this request in a 2026-07-28 `input_required` result; default one Gantry makes
   * (`sampling-1`). The rules of `ElicitOptions.key` apply.
   */
  key?: string;
}

/** How a deferred task call turns into a task (see `McpContext.runAsTask`). */
export type TaskEscalation = () => Promise<{
  readonly inbound: InboundRequest;
  readonly session: ContextSession;
}>;

/** W3C Trace Context (and Baggage) the caller put in the request's `_meta`. */
export interface TraceContext {
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly baggage?: string;
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
  private channel?: ClientChannel;
  private clientExtensions?: ClientExtensions;
  /** The session the request arrived on (in the stateless era, the request itself). */
  session: SessionInfo;

  /** @internal Made by the handler pipeline. */
  constructor(
    private inbound: InboundRequest,
    private call: ContextSession,
  ) {
    this.session = call;
  }

  /** The JSON-RPC id of the request being handled. */
  get requestId(): RequestId {
    return this.inbound.id;
  }

  /** The task this call runs in (`@Tool({ task })`), or undefined for an ordinary call. */
  get taskId(): string | undefined {
    return (this.inbound as { taskId?: string }).taskId;
  }

  /**
   * Ends the call's `input_required` rounds and continues it as a task (MCP 2026-07-28 tasks
   * extension: input gathered before the task exists is gathered synchronously). Only for a
   * tool with `@Tool({ task, deferTask: true })` called with the extension declared: the request
   * is answered with the task, and from here on `ctx` (signal, elicit, progress) is the task's.
   * Resolves false, changing nothing, where the call cannot become a task (another era, a
   * client without the extension, or already a task).
   */
  async runAsTask(): Promise<boolean> {
    const escalate = (this.call as { escalate?: TaskEscalation }).escalate;
    if (escalate === undefined || this.taskId !== undefined) return false;
    const next = await escalate();
    this.inbound = next.inbound;
    this.call = next.session;
    this.session = next.session;
    this.channel = undefined;
    return true;
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

  /** The remote address of the connection (HTTP, WebSocket); undefined on stdio and in memory. */
  get remoteAddress(): string | undefined {
    return this.session.remoteAddress;
  }

  get clientInfo(): Implementation {
    return this.session.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.session.clientCapabilities;
  }

  /**
   * The extensions the client declared for this request (2026-07-28: in this request's
   * `_meta`; session era: in `initialize`): `has(id)`, `get(id)` (its settings), and
   * `require(id)`, which throws the era's missing-capability error (−32021 in 2026-07-28).
   */
  get extensions(): ClientExtensions {
    this.clientExtensions ??= new ClientExtensions(this.session.clientCapabilities, (capabilities, message) =>
      this.client.missing(capabilities, message),
    );
    return this.clientExtensions;
  }

  /** Resource notifications: `ctx.resources.updated(uri)`. */
  get resources(): ContextResources {
    const call = this.call;
    return {
      updated: (uri) => call.resourceUpdated(uri),
      listChanged: () => call.resourceListChanged(),
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
    // In a 2026-07-28 task, progress is the task's status message, asked for or not.
    const asStatus = (this.inbound as { progressAsStatus?: boolean }).progressAsStatus === true;
    if (token === undefined && !asStatus) return Promise.resolve();
    const params: Record<string, unknown> = { progress };
    if (token !== undefined) params.progressToken = token;
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
    if (!this.call.logs(level)) return Promise.resolve();
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.inbound.notify({ method: Method.LoggingMessage, params });
  }

  /**
   * Asks the client to sample its model (`sampling/createMessage`). Needs the client's
   * `sampling` capability (and `sampling.tools` to pass `tools`); cancelled with the request.
   * `key` names the request in a 2026-07-28 `input_required` result, as for `ctx.elicit()`.
   */
  sample(params: CreateMessageRequestParams, options: SampleOptions = {}): Promise<CreateMessageResult> {
    checkInputKey(options.key, 'ctx.sample()');
    const client = this.client;
    const unavailable = this.unavailable(client, 'ctx.sample()');
    if (unavailable) return Promise.reject(unavailable);
    const sampling = this.session.clientCapabilities.sampling;
    if (!sampling) {
      return Promise.reject(
        client.missing(
          { sampling: {} },
          `ctx.sample(): the client (${this.session.clientInfo.name}) did not declare the sampling capability, so it cannot sample for this server`,
        ),
      );
    }
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools) {
      return Promise.reject(
        client.missing(
          { sampling: { tools: {} } },
          'ctx.sample(): tools and toolChoice need the client capability sampling.tools (2025-11-25), which this client did not declare',
        ),
      );
    }
    return client.request<CreateMessageResult>(
      Method.SamplingCreateMessage,
      params as unknown as Record<string, unknown>,
      options,
    );
  }

  /**
   * Asks the user for structured input with a form (`elicitation/create`, form mode). The form
   * comes from a DTO class (or a restricted JSON Schema); an accepted answer is validated and
   * transformed into the DTO. In the 2026-07-28 era the question is an input request of the
   * call's `input_required` result, under `options.key` when given (see `ElicitOptions.key`;
   * a malformed key throws a `TypeError` in either era).
   *
   * @example
   * ```ts
   * const answer = await ctx.elicit(Confirm, 'Delete all notes?', { key: 'confirm_delete' });
   * if (answer.action === 'accept' && answer.content.confirm) { ... }
   * ```
   */
  elicit<T>(
    form: (new () => T) | object,
    message: string,
    options: ElicitOptions = {},
  ): Promise<ElicitOutcome<T>> {
    checkInputKey(options.key, 'ctx.elicit()');
    const client = this.client;
    const unavailable = this.unavailable(client, 'ctx.elicit()');
    if (unavailable) return Promise.reject(unavailable);
    return elicitForm<T>(client, this.session, form, message, options);
  }

  /**
   * Sends the user to a URL (`elicitation/create`, URL mode, 2025-11-25), e.g. to sign in to a
   * third party. `accept` means the user agreed to open it, not that the flow finished; call
   * `app.completeElicitation(elicitationId)` when it has. `key` as for `ctx.elicit()`.
   */
  elicitUrl(
    url: string,
    message: string,
    options: { elicitationId?: string; timeoutMs?: number; key?: string } = {},
  ): Promise<UrlElicitOutcome> {
    checkInputKey(options.key, 'ctx.elicitUrl()');
    const client = this.client;
    const unavailable = this.unavailable(client, 'ctx.elicitUrl()');
    if (unavailable) return Promise.reject(unavailable);
    return elicitUrl(client, this.session, url, message, options);
  }

  /**
   * Tells the client that started URL elicitation `elicitationId` that it is complete
   * (`notifications/elicitation/complete`); false when that session is gone. Same as
   * `app.completeElicitation()`.
   */
  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.call.completeElicitation(elicitationId);
  }

  /**
   * The client's roots (`roots/list`), cached for the session until they change. `key` names
   * the request in a 2026-07-28 `input_required` result, as for `ctx.elicit()`.
   */
  roots(options: { key?: string } = {}): Promise<Root[]> {
    checkInputKey(options.key, 'ctx.roots()');
    const client = this.client;
    const unavailable = this.unavailable(client, 'ctx.roots()');
    if (unavailable) return Promise.reject(unavailable);
    if (!this.session.clientCapabilities.roots) {
      return Promise.reject(
        client.missing(
          { roots: {} },
          `ctx.roots(): the client (${this.session.clientInfo.name}) did not declare the roots capability`,
        ),
      );
    }
    return client.roots(options);
  }

  /**
   * Ends the HTTP connection that carries this request's SSE stream after the events sent so
   * far; the client reconnects with `Last-Event-ID` and gets the rest (SSE polling, 2025-11-25).
   * Returns false when the transport cannot (stdio, JSON responses, nothing sent yet).
   */
  closeSseStream(): boolean {
    return this.call.closeStreamOf?.(this.inbound.id) ?? false;
  }

  /** The era's channel back to the client, made on first use. */
  private get client(): ClientChannel {
    this.channel ??= this.call.channel(this.inbound);
    return this.channel;
  }

  private unavailable(client: ClientChannel, what: string): CapabilityMissingError | undefined {
    const reason = client.unavailable;
    return reason === undefined ? undefined : new CapabilityMissingError(`${what}: ${reason}`);
  }
}

export type { ElicitOutcome, ElicitResult, UrlElicitOutcome };
