/**
 * The stateless era (2026-07-28): per-request `_meta` keys, `server/discover`, `resultType`,
 * multi round-trip requests and `subscriptions/listen`. See MCP 2026-07-28, Basic › Lifecycle and the `schema/2026-07-28` schema.
 */
import { UnsupportedProtocolVersionError } from './errors';
import type { JSONRPCRequest, Meta, Result } from './jsonrpc';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  ListRootsResult,
  ServerCapabilities,
} from './types';

/** Protocol versions spoken statelessly, newest first. */
export const STATELESS_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2026-07-28']);

/**
 * The −32022 a server answers for a version it does not speak statelessly (MCP 2026-07-28,
 * Basic › Versioning §"Protocol Version Negotiation"). `data.supported` is what a client can
 * retry with, `STATELESS_PROTOCOL_VERSIONS`, and the message names those same versions; the
 * session-era revisions are reached with `initialize` instead, so neither lists them.
 * `subject` names what carried the version (default: the version itself).
 */
export function unsupportedStatelessVersion(
  requested: string,
  subject = requested,
): UnsupportedProtocolVersionError {
  const supported = [...STATELESS_PROTOCOL_VERSIONS];
  return new UnsupportedProtocolVersionError(
    `Unsupported protocol version: ${subject}; supported: ${supported.join(', ')} (earlier revisions: send initialize)`,
    { supported, requested },
  );
}

/** The newest stateless-era version. */
export const LATEST_STATELESS_PROTOCOL_VERSION = '2026-07-28';

/** True for a version of the stateless era (2026-07-28 and later). */
export function isStatelessVersion(version: unknown): boolean {
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= '2026-07-28';
}

/** `_meta` keys of the stateless era. */
export const MetaKey = {
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  LogLevel: 'io.modelcontextprotocol/logLevel',
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Methods that exist only in the stateless era. */
export const StatelessMethod = {
  ServerDiscover: 'server/discover',
  SubscriptionsListen: 'subscriptions/listen',
  SubscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
} as const;

/** `result.resultType`: absent means `complete` (results of session-era servers). */
export type ResultType = 'complete' | 'input_required';

/** How shared caches may reuse a result (`cacheScope`). */
export type CacheScope = 'public' | 'private';

/** One request embedded in an `input_required` result. */
export type InputRequest =
  | { method: 'elicitation/create'; params: Record<string, unknown> }
  | { method: 'sampling/createMessage'; params: CreateMessageRequestParams }
  | { method: 'roots/list'; params?: Record<string, unknown> };

export type InputRequests = { [key: string]: InputRequest };

export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;

export type InputResponses = { [key: string]: InputResponse };

/** The server needs input before it can answer: the client retries with `inputResponses`. */
export interface InputRequiredResult extends Result {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
}

/** What a `subscriptions/listen` request opts in to. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  [key: string]: unknown;
}

/** The result of `server/discover`. */
export interface DiscoverResult extends Result {
  resultType: 'complete';
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}

/** The stateless-era fields of a request's `_meta`, once checked. */
export interface StatelessRequestMeta {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
}

/**
 * True when a request opens the stateless era: it carries a protocol version in its `_meta`.
 * `initialize` is always session era, whatever its `_meta` says.
 */
export function isStatelessRequest(request: Pick<JSONRPCRequest, 'method' | 'params'>): boolean {
  if (request.method === 'initialize') return false;
  const meta = request.params?._meta as Meta | undefined;
  return meta !== undefined && meta !== null && typeof meta === 'object' && MetaKey.ProtocolVersion in meta;
}

/** `=?base64?…?=`: whatever it wraps, a value of this form is meant as Base64 (2026-07-28 streamable HTTP). */
const SENTINEL = /^=\?base64\?(.*)\?=$/s;

/**
 * Encodes a value for an `Mcp-Name` / `Mcp-Param-*` header: as is when it is plain visible
 * ASCII without surrounding whitespace, else `=?base64?…?=` (2026-07-28 streamable HTTP).
 */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = typeof value === 'string' ? value : String(value);
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !SENTINEL.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/**
 * Decodes an `=?base64?…?=` header value; plain values are returned as they are. Undefined when
 * the wrapped text is not canonical padded Base64 (RFC 4648 §4): SEP-2243's test cases refuse
 * missing padding and characters outside the alphabet, which `Buffer.from` would skip silently.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (!match) return value;
  const bytes = Buffer.from(match[1], 'base64');
  // Re-encoding gives the input back only when it was canonical: whole quanta, padded, no stray characters.
  return bytes.toString('base64') === match[1] ? bytes.toString('utf8') : undefined;
}
