import type {
  AuthInfo,
  ClientCapabilities,
  Implementation,
  InboundRequest,
  LoggingLevel,
  Method,
  RequestId,
  Result,
  Root,
} from '@gantry/protocol';

/** The two eras of MCP: sessions opened by `initialize`, or stateless self-describing requests. */
export type ProtocolEra = 'session' | 'stateless';

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
  /** The remote address of the connection, where the transport has one (HTTP, WebSocket). */
  readonly remoteAddress?: string;
  /** The transport's session id (`Mcp-Session-Id` on Streamable HTTP), where it has one. */
  readonly sessionId?: string;
  /**
   * `session`: a session opened by `initialize` (2024-11-05 … 2025-11-25). `stateless`: one
   * stateless request of 2026-07-28, described by its own `_meta`. Absent means session.
   */
  readonly era?: ProtocolEra;
}

/** The requests a server sends its client through a `ClientChannel` (roots have their own). */
export type ClientRequestMethod = typeof Method.ElicitationCreate | typeof Method.SamplingCreateMessage;

/** Options of one request to the client (`ctx.elicit()`, `ctx.sample()`, `ctx.roots()`, `ctx.elicitUrl()`). */
export interface ClientRequestOptions {
  /** Time the client has to answer (session era); default the server's request timeout. */
  timeoutMs?: number;
  /**
   * The key of this input request in a stateless-era `input_required` result (checked with
   * `checkInputKey`); Gantry makes one when it is absent. Sessions and tasks do not use it.
   */
  key?: string;
}

/**
 * How one call talks back to its client: server→client requests (sampling, elicitation), the
 * client's roots, and the error for a capability the call cannot ask for. Each era has its own:
 * a session sends requests over its connection; a stateless-era request collects them into an
 * `input_required` result and replays the answers of the client's retry.
 */
export interface ClientChannel {
  /** Why this call cannot send requests to the client at all (stateless HTTP serving a session-era request). */
  readonly unavailable: string | undefined;
  /** Sends `method` to the client and resolves with its answer. */
  request<T extends Result>(
    method: ClientRequestMethod,
    params: Record<string, unknown>,
    options?: ClientRequestOptions,
  ): Promise<T>;
  /** The error for needing `capabilities` the client did not declare (stateless era: also answered with −32021). */
  missing(capabilities: ClientCapabilities, message: string): Error;
  /** The client's roots (`roots/list`); `key` as for `request`. */
  roots(options?: { key?: string }): Promise<Root[]>;
}

/**
 * What one call sees of where it arrived, in either era: the client (`SessionInfo`), its log
 * level, the server's fan-out notifications, and the channel back to the client. A
 * `ServerSession` provides it for the session era, a `StatelessCall` for one stateless request.
 */
export interface ContextSession extends SessionInfo {
  /** Whether a log message at `level` goes to the client. */
  logs(level: LoggingLevel): boolean;
  /** Sends `notifications/resources/updated` to every subscriber of the app. */
  resourceUpdated(uri: string): Promise<void>;
  /** Sends `notifications/resources/list_changed` to every session of the app. */
  resourceListChanged(): void;
  /** Sends `notifications/elicitation/complete` to the session that started `elicitationId`. */
  completeElicitation(elicitationId: string): Promise<boolean>;
  /** The channel back to the client for the request `inbound`. */
  channel(inbound: InboundRequest): ClientChannel;
  /** Closes the connection of a request's SSE stream, where the transport can (Streamable HTTP). */
  closeStreamOf?(requestId: RequestId): boolean;
}
