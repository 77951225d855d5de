// How `Client.connect` settles the protocol era (MCP 2026-07-28, Basic / Versioning
// §"Backward Compatibility"): the `server/discover` probe, the session-era `initialize`
// handshake (MCP 2025-11-25, Basic / Lifecycle §"Initialization") as the fallback, and the
// era cache that lets the next connection try the remembered era first.
import {
  type DiscoverResult,
  ErrorCode,
  GantryError,
  type Implementation,
  type InitializeRequestParams,
  type InitializeResult,
  LATEST_PROTOCOL_VERSION,
  LATEST_STATELESS_PROTOCOL_VERSION,
  LocalErrorCode,
  McpError,
  type Meta,
  MetaKey,
  Method,
  type Peer,
  RequestCancelledError,
  type Result,
  type ServerCapabilities,
  STATELESS_PROTOCOL_VERSIONS,
  StatelessMethod,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@gantry/protocol';
import type { ClientOptions } from './client-options';
import { isObject, preview, protocolViolation } from './client-support';
import type { ClientTransportHooks } from './client-transport-hooks';
import {
  cachedEra,
  classifyProbeError,
  defaultEraCache,
  type EraCache,
  type EraPreference,
  pickStatelessVersion,
  rememberEra,
} from './era';
import { httpStatusOf } from './http-status-error';

/** What negotiation needs to know of the Client. */
export interface NegotiationSettings {
  readonly clientInfo: Implementation;
  readonly capabilities: InitializeRequestParams['capabilities'];
  /** The version asked for in `initialize`. */
  readonly requestedVersion: string;
  /** The stateless-era version asked for first when the cache names none. */
  readonly preferredStatelessVersion: string;
  /** How long a probe over a message stream waits for an answer. */
  readonly probeTimeoutMs: number;
  readonly eraCache: EraCache;
  /** The stateless-era `_meta` of a request at `version`. */
  statelessMeta(version: string): Meta;
}

/** The era `connect` settled on, with what the server said. */
export type Negotiated =
  | { era: 'stateless'; version: string; discover?: DiscoverResult }
  | { era: 'session'; initialize: InitializeResult };

const DEFAULT_PROBE_TIMEOUT_MS = 3_000;

/** Checks the Client's version and probe options and fills in their defaults. */
export function negotiationSettings(
  clientInfo: Implementation,
  options: ClientOptions,
  statelessMeta: (version: string) => Meta,
): NegotiationSettings {
  const version = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new TypeError(
      `Client: protocolVersion "${version}" is not supported; use one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  const stateless = options.statelessProtocolVersion ?? LATEST_STATELESS_PROTOCOL_VERSION;
  if (!STATELESS_PROTOCOL_VERSIONS.includes(stateless)) {
    throw new TypeError(
      `Client: statelessProtocolVersion "${stateless}" is not supported; use one of ${STATELESS_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  const probeTimeoutMs =
    options.probeTimeoutMs === undefined ? DEFAULT_PROBE_TIMEOUT_MS : options.probeTimeoutMs;
  if (typeof probeTimeoutMs !== 'number' || !(probeTimeoutMs > 0)) {
    throw new TypeError(
      `Client: probeTimeoutMs must be a positive number of milliseconds, got ${String(options.probeTimeoutMs)}`,
    );
  }
  return {
    clientInfo,
    capabilities: options.capabilities ?? {},
    requestedVersion: version,
    preferredStatelessVersion: stateless,
    probeTimeoutMs,
    eraCache: options.eraCache ?? defaultEraCache,
    statelessMeta,
  };
}

/** The era `connect` was asked for, checked against what the transport can carry. */
export function checkedEra(era: EraPreference | undefined, transport: Transport): EraPreference {
  const preference = era ?? 'auto';
  if (preference !== 'auto' && preference !== 'stateless' && preference !== 'session') {
    throw new TypeError(
      `Client.connect: era must be 'auto', 'stateless' or 'session' (got ${JSON.stringify(preference)})`,
    );
  }
  if (preference === 'stateless' && (transport as ClientTransportHooks).eraBinding === 'session-only') {
    throw new TypeError(
      `Client.connect: era 'stateless' cannot be spoken over ${transport.constructor.name}, which carries only the session era`,
    );
  }
  return preference;
}

/** One connection attempt of `Client.connect`. */
export interface Establishing {
  readonly peer: Peer;
  /** What the Peer connects to: the transport, possibly wrapped. */
  readonly transport: Transport;
  /** The transport's own hooks. */
  readonly hooks: ClientTransportHooks;
  readonly era: EraPreference;
  readonly signal?: AbortSignal;
  /** Called once the transport started, before the first message is sent. */
  started(): void;
  onError?: (error: Error) => void;
}

/**
 * Starts the transport under `signal` and settles the era. Aborting closes the connection
 * rather than cancelling `initialize`, which MCP 2025-11-25 forbids (Basic / Utilities
 * §"Cancellation": "The client MUST NOT cancel initialize"). On any failure after the
 * transport started, the connection is closed; an abort rejects with `RequestCancelledError`.
 */
export async function establish(attempt: Establishing, settings: NegotiationSettings): Promise<Negotiated> {
  const { peer, hooks, era, signal } = attempt;
  if (signal?.aborted) throw abortedConnect(era, signal);
  const onAbort = () => {
    peer.close().catch((error) => attempt.onError?.(error));
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    try {
      await peer.connect(attempt.transport);
    } catch (error) {
      // A transport whose start rejects has cleaned up after itself; closing it here could
      // end a connection it already serves (e.g. "already started").
      if (signal?.aborted) throw abortedConnect(era, signal);
      throw error;
    }
    attempt.started();
    try {
      return await negotiateEra(peer, hooks, era, signal, settings);
    } catch (error) {
      await peer.close().catch(() => {});
      if (signal?.aborted) throw abortedConnect(era, signal);
      throw error;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The error of a `connect` aborted by `signal`, named after the request it would send first. */
export function abortedConnect(era: EraPreference, signal: AbortSignal): RequestCancelledError {
  const firstMethod = era === 'session' ? Method.Initialize : StatelessMethod.ServerDiscover;
  return new RequestCancelledError(firstMethod, signal.reason);
}

/** What the server said of itself, by era. */
export function serverFacts(negotiated: Negotiated | undefined): {
  info?: Implementation;
  capabilities?: ServerCapabilities;
  instructions?: string;
} {
  if (negotiated?.era === 'session') {
    const { serverInfo, capabilities, instructions } = negotiated.initialize;
    return { info: serverInfo, capabilities, instructions };
  }
  const discover = negotiated?.discover;
  const info = discover?._meta?.[MetaKey.ServerInfo];
  return {
    info: isObject(info) ? (info as unknown as Implementation) : undefined,
    capabilities: discover?.capabilities,
    instructions: discover?.instructions,
  };
}

/** What `server/discover` (or a recognized stateless-era error) told `connect`. */
type StatelessOutcome = Extract<Negotiated, { era: 'stateless' }>;
type ProbeOutcome = StatelessOutcome | { era: 'session'; error?: unknown };

/** Picks the era as `era` says, probing (and consulting the era cache) for `'auto'`. */
export async function negotiateEra(
  peer: Peer,
  hooks: ClientTransportHooks,
  era: EraPreference,
  signal: AbortSignal | undefined,
  settings: NegotiationSettings,
): Promise<Negotiated> {
  const session = async (): Promise<Negotiated> => ({
    era: 'session',
    initialize: await handshake(peer, hooks, settings),
  });
  if (era === 'session' || (era === 'auto' && hooks.eraBinding === 'session-only')) return session();
  const probe = (version: string, probing: boolean) =>
    discover(peer, hooks, version, probing, signal, settings);
  if (era === 'stateless') {
    const outcome = await probe(settings.preferredStatelessVersion, false);
    if (outcome.era === 'session')
      throw notStatelessServer(settings.preferredStatelessVersion, outcome.error);
    return outcome;
  }
  const key = hooks.eraCacheKey;
  const cache = settings.eraCache;
  const cached = cachedEra(cache, key);
  if (cached?.era === 'session') {
    try {
      return await session();
    } catch (error) {
      // The server may have moved on: re-probe, unless the connection itself is gone.
      if (!(error instanceof McpError) || signal?.aborted || !peer.isConnected) throw error;
      const outcome = await probe(settings.preferredStatelessVersion, true);
      if (outcome.era === 'session') throw error;
      rememberEra(cache, key, { era: 'stateless', version: outcome.version });
      return outcome;
    }
  }
  const preferred =
    cached?.era === 'stateless' && cached.version ? cached.version : settings.preferredStatelessVersion;
  const outcome = await probe(preferred, true);
  if (outcome.era === 'stateless') {
    rememberEra(cache, key, { era: 'stateless', version: outcome.version });
    return outcome;
  }
  const negotiated = await session();
  rememberEra(cache, key, { era: 'session' });
  return negotiated;
}

/**
 * Sends `server/discover` with `version` in `_meta` (MCP 2026-07-28, Basic / Versioning; the
 * stdio back-compat probe). A `DiscoverResult` or a recognized stateless-era error means the
 * stateless era; a −32022 naming a common version is retried once with it. Anything else
 * means "not the stateless era", with the error that said so.
 */
async function discover(
  peer: Peer,
  hooks: ClientTransportHooks,
  version: string,
  probing: boolean,
  signal: AbortSignal | undefined,
  settings: NegotiationSettings,
): Promise<ProbeOutcome> {
  // A session-era server may stay silent; HTTP always answers.
  const timeoutMs = probing && hooks.eraBinding !== 'http' ? settings.probeTimeoutMs : undefined;
  for (let attempt = 0; ; attempt++) {
    let result: Result;
    try {
      result = await peer.request(
        { method: StatelessMethod.ServerDiscover, params: { _meta: settings.statelessMeta(version) } },
        { timeoutMs, signal },
      );
    } catch (error) {
      if (signal?.aborted || !peer.isConnected) throw error;
      const verdict = classifyProbeError(error);
      if (verdict.kind === 'refused') throw error;
      if (verdict.kind === 'session') return { era: 'session', error };
      if ((error as McpError).code !== ErrorCode.UnsupportedProtocolVersion)
        return { era: 'stateless', version };
      const supported = verdict.supported ?? [];
      const common = pickStatelessVersion(supported);
      if (common !== undefined && common !== version && attempt === 0) {
        version = common;
        continue;
      }
      // A version both sides speak, yet refused: a stateless-era server all the same.
      if (common !== undefined) return { era: 'stateless', version: common };
      // Dual-era servers may list session-era versions too: those mean "use initialize".
      if (supported.some((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v))) {
        return { era: 'session', error };
      }
      throw new GantryError(
        LocalErrorCode.ProtocolViolation,
        `The server speaks the stateless era but none of its versions (${supported.join(', ') || 'none named'}) is one this client supports (${STATELESS_PROTOCOL_VERSIONS.join(', ')})`,
        { cause: error },
      );
    }
    if (!isDiscoverResult(result)) {
      const error = protocolViolation(
        `server/discover answered with something other than a DiscoverResult: ${preview(result)}`,
      );
      return { era: 'session', error };
    }
    if (result.resultType !== undefined && result.resultType !== 'complete') {
      throw protocolViolation(
        `server/discover answered with resultType ${JSON.stringify(result.resultType)}`,
      );
    }
    // The server answered at `version`; prefer it when listed, else the newest common one.
    const chosen = result.supportedVersions.includes(version)
      ? version
      : (pickStatelessVersion(result.supportedVersions) ?? version);
    return { era: 'stateless', version: chosen, discover: result };
  }
}

/** The HTTP statuses a session-era server may answer a stateless-era POST with (2026-07-28 transports). */
const SESSION_ERA_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/**
 * What `era: 'stateless'` rejects with when `server/discover` showed a server that does not
 * speak `version` (a JSON-RPC error, HTTP 400/404/405, or an answer that is no DiscoverResult):
 * the server's error (same class, code and data; also the `cause`) under a message naming the
 * problem and the way out. Other failures (HTTP 401, 5xx, timeouts) are returned unchanged.
 */
function notStatelessServer(version: string, error: unknown): unknown {
  let answer: string;
  if (error instanceof McpError) {
    const status = httpStatusOf(error);
    if (status !== undefined && status >= 300 && !SESSION_ERA_STATUSES.has(status)) return error;
    answer = `answered ${error.code} ${error.message}`;
  } else if (error instanceof GantryError && error.code === LocalErrorCode.ProtocolViolation) {
    answer = error.message.replace(/^server\/discover /, '');
  } else return error;
  const message = `Client.connect: the server does not speak ${version} (server/discover ${answer}); connect with era 'auto' or 'session'`;
  const wrapped =
    error instanceof McpError
      ? McpError.fromError({ code: error.code, message, data: error.data })
      : new GantryError(LocalErrorCode.ProtocolViolation, message);
  return Object.assign(wrapped, { cause: error });
}

/**
 * The session-era handshake (MCP 2025-11-25, Basic / Lifecycle §"Initialization"):
 * `initialize`, a check of the answer, then `notifications/initialized`.
 */
export async function handshake(
  peer: Peer,
  hooks: ClientTransportHooks,
  settings: NegotiationSettings,
): Promise<InitializeResult> {
  const params: InitializeRequestParams = {
    protocolVersion: settings.requestedVersion,
    capabilities: settings.capabilities,
    clientInfo: settings.clientInfo,
  };
  const result = await peer.request<InitializeResult>({
    method: Method.Initialize,
    params: params as unknown as { [key: string]: unknown },
  });
  checkInitializeResult(result);
  // MCP 2025-06-18+, Basic / Transports §"Protocol Version Header": MCP-Protocol-Version on
  // every HTTP request after initialize.
  hooks.setProtocolVersion?.(result.protocolVersion);
  await peer.notify({ method: Method.Initialized });
  return result;
}

function isDiscoverResult(result: Result): result is DiscoverResult {
  return (
    Array.isArray(result.supportedVersions) &&
    result.supportedVersions.every((version) => typeof version === 'string') &&
    isObject(result.capabilities)
  );
}

function checkInitializeResult(result: InitializeResult): void {
  if (
    typeof result.protocolVersion !== 'string' ||
    !SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)
  ) {
    // MCP 2025-11-25, Basic / Lifecycle §"Version Negotiation": "If the client does not
    // support the version in the server's response, it SHOULD disconnect."
    throw protocolViolation(
      `The server answered initialize with protocol version ${JSON.stringify(result.protocolVersion)}, which this client does not support (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}); the connection was closed`,
    );
  }
  if (typeof result.serverInfo !== 'object' || result.serverInfo === null) {
    throw protocolViolation(`The server answered initialize without "serverInfo": ${preview(result)}`);
  }
  if (typeof result.capabilities !== 'object' || result.capabilities === null) {
    throw protocolViolation(`The server answered initialize without "capabilities": ${preview(result)}`);
  }
}
