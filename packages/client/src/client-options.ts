import type {
  ClientCapabilities,
  InboundRequest,
  JSONRPCNotification,
  ProgressNotificationParams,
  RequestOptions,
  Result,
} from '@gantry/protocol';
import type { EraCache, EraPreference } from './era';

/** Options of {@link Client}. */
export interface ClientOptions {
  /**
   * What this client can do: sent in `initialize` (session era) and in every request's
   * `_meta` (stateless era). Declare only what the handlers set with `setRequestHandler` serve.
   */
  capabilities?: ClientCapabilities;
  /** Default timeout of every request, `initialize` and `server/discover` included; default 60 000 ms. */
  requestTimeoutMs?: number;
  /** The version asked for in `initialize`; default `LATEST_PROTOCOL_VERSION`. Must be a supported one. */
  protocolVersion?: string;
  /**
   * The stateless-era version to ask for first; default `LATEST_STATELESS_PROTOCOL_VERSION`.
   * Must be one of `STATELESS_PROTOCOL_VERSIONS`. A server that answers −32022 names the
   * versions it supports, and a common one is used instead.
   */
  statelessProtocolVersion?: string;
  /**
   * How long `connect` (era `'auto'`, over a message stream such as stdio or WebSocket) waits
   * for the answer to its `server/discover` probe before it falls back to `initialize`: a
   * session-era server may never answer it. Default 3 000 ms. HTTP probes get a definite
   * answer and wait `requestTimeoutMs`.
   */
  probeTimeoutMs?: number;
  /**
   * Most `input_required` rounds one stateless-era `tools/call`, `prompts/get` or
   * `resources/read` may take before the client gives up; default 8.
   */
  maxInputRounds?: number;
  /** Send `clientInfo` in every stateless-era request's `_meta` (the spec's SHOULD); default true. */
  sendClientInfo?: boolean;
  /**
   * Return stateless-era results exactly as received. By default they are given the shape of
   * session-era results, so code and tests need not branch on the era: the envelope fields the
   * client consumes are removed: `resultType` (the client acts on it), the caching hints
   * `ttlMs` / `cacheScope`, and `_meta["io.modelcontextprotocol/serverInfo"]` (see
   * `serverInfo`). Default false.
   */
  rawResults?: boolean;
  /**
   * Errors nobody awaits: failed sends, throwing notification handlers, tools dropped from
   * `tools/list` for invalid `x-mcp-header` annotations. Default: ignored.
   */
  onError?: (error: Error) => void;
  /** Called once when a connection ends, with the transport's error if it ended on its own. */
  onClose?: (error?: Error) => void;
  /**
   * Where `connect` (era `'auto'`) remembers which era each server spoke and looks it up
   * next time; a `Map<string, CachedEra>` will do. Default: one cache shared by every Client
   * of the process (see `clearEraCache`).
   */
  eraCache?: EraCache;
}

/** Options of {@link Client.connect}. */
export interface ConnectOptions {
  /**
   * Aborts the handshake. The connection is closed rather than `initialize` cancelled, which
   * the 2025-11-25 lifecycle forbids ("The client MUST NOT cancel initialize").
   */
  signal?: AbortSignal;
  /**
   * Which protocol era to speak (default `'auto'`):
   * - `'stateless'`: the stateless era (2026-07-28) only: `server/discover`, then per-request `_meta`;
   * - `'session'`: the session era only: the `initialize` handshake;
   * - `'auto'`: probe with `server/discover`; a `DiscoverResult` or a recognized stateless-era
   *   error (−32020/−32021/−32022, or −32601 with HTTP 404) means the stateless era; any other
   *   error, or silence for `probeTimeoutMs`, falls back to `initialize`. The outcome is cached
   *   per server (see `clearEraCache`) and tried first next time; when it fails, the other
   *   era is tried.
   */
  era?: EraPreference;
}

/** Options of one request. */
export type ClientRequestOptions = Omit<RequestOptions, 'relatedRequestId' | 'onId'>;

/** Options of {@link Client.callTool}, {@link Client.getPrompt} and {@link Client.readResource}. */
export interface CallToolOptions {
  /**
   * Aborting cancels the request (`notifications/cancelled`; over stateless-era HTTP, the POST
   * is aborted) and rejects with `RequestCancelledError`.
   */
  signal?: AbortSignal;
  /** Time to wait for each response; default the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Receives `notifications/progress` for this call; setting it sends a `progressToken`. */
  onProgress?: (progress: ProgressNotificationParams) => void;
  /** Restart the timeout on each progress notification; setting it sends a `progressToken` too. */
  resetTimeoutOnProgress?: boolean;
  /** Upper bound on the whole wait when progress resets the timeout. */
  maxTotalTimeoutMs?: number;
}

/**
 * How a request handler was reached in the stateless era: the server asked for input inside
 * an `input_required` result (multi round-trip request), not with a JSON-RPC request.
 */
export interface InputRequestContext {
  readonly era: 'stateless';
  /** The input request's method (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
  readonly method: string;
  /** The server's key for this input request. */
  readonly key: string;
  /** The request that needs the input (`tools/call`, `prompts/get`, `resources/read`). */
  readonly request: { readonly method: string; readonly params?: { readonly [key: string]: unknown } };
  /** Aborts when the call that needs the input is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Answers one server → client request (sampling, elicitation, roots). In the session era it
 * is a JSON-RPC request and the second argument is the `InboundRequest`; in the stateless era
 * it is an input request of an `input_required` result and the second argument is an
 * {@link InputRequestContext}. Session era: throw an `McpError` to answer with it. Stateless
 * era: a throw fails the call that needed the input.
 */
export type ClientRequestHandler = (
  params: { [key: string]: unknown },
  request: InboundRequest | InputRequestContext,
) => Result | Promise<Result>;

/** Receives one server notification. */
export type NotificationHandler = (notification: JSONRPCNotification) => void;
