import { type AuthInfo, ErrorCode } from '@gantry/protocol';
import type { EndpointUrls } from './endpoint-urls';
import type { InsufficientScopeError } from './errors';
import type { AuthOptions } from './options';

/**
 * JSON-RPC code of 401 and 403 bodies. MCP fixes none: a 401/403 has no JSON-RPC meaning and
 * clients act on the status and `WWW-Authenticate`. −32000 (`ErrorCode.ServerError`) is the implementation-defined code
 * the official SDK and this package's Host/Origin 403 use for HTTP-level refusals; −32001 is
 * avoided because the SDK means "Session not found" by it.
 */
const AUTH_REFUSED = ErrorCode.ServerError;

/** The JSON-RPC error body of a refused request (id-less: no message was processed). */
export interface AuthErrorBody {
  jsonrpc: '2.0';
  id: null;
  error: { code: number; message: string };
}

/** A refused request: the status, the `WWW-Authenticate` header and a JSON-RPC error body to send. */
export interface AuthFailure {
  ok: false;
  status: 400 | 401 | 403;
  headers: Record<string, string>;
  body: AuthErrorBody;
}

/** The outcome of authenticating one request. */
export type AuthOutcome = { ok: true; auth: AuthInfo } | AuthFailure;

interface Challenge {
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
  scopes?: string[];
}

function refuse(
  status: AuthFailure['status'],
  endpoint: EndpointUrls,
  challenge: Challenge,
  code: number,
  message: string,
): AuthFailure {
  // RFC 6750 §3 attributes, in the order the official SDK writes them.
  const params: string[] = [];
  if (challenge.error) params.push(`error="${challenge.error}"`);
  if (challenge.description) params.push(`error_description="${quotable(challenge.description)}"`);
  if (challenge.scopes && challenge.scopes.length > 0) params.push(`scope="${challenge.scopes.join(' ')}"`);
  // RFC 9728 §5.1; a MUST on every 401 in 2025-06-18.
  params.push(`resource_metadata="${endpoint.metadataUrl}"`);
  return {
    ok: false,
    status,
    headers: { 'www-authenticate': `Bearer ${params.join(', ')}` },
    body: { jsonrpc: '2.0', id: null, error: { code, message } },
  };
}

/** No bearer token (RFC 6750 §3.1: no error code when the request carried no credentials). */
export function missingToken(options: AuthOptions, endpoint: EndpointUrls, message: string): AuthFailure {
  return refuse(401, endpoint, { scopes: options.requiredScopes }, AUTH_REFUSED, message);
}

/** A token was sent and is not good: expired, wrong audience, bad signature, unknown. */
export function invalidToken(options: AuthOptions, endpoint: EndpointUrls, reason: string): AuthFailure {
  return refuse(
    401,
    endpoint,
    { error: 'invalid_token', description: reason, scopes: options.requiredScopes },
    AUTH_REFUSED,
    `Invalid access token: ${reason}`,
  );
}

/** RFC 6750 §3.1 invalid_request → 400: a malformed Authorization header, a token in the URL. */
export function invalidRequest(endpoint: EndpointUrls, description: string): AuthFailure {
  return refuse(
    400,
    endpoint,
    { error: 'invalid_request', description },
    ErrorCode.InvalidRequest,
    `Bad Request: ${description}`,
  );
}

/**
 * The 403 step-up challenge for an InsufficientScopeError thrown by `verify`, a guard or a
 * handler. The challenged scopes are the server-wide `requiredScopes` plus the error's:
 * everything the operation needs, in one challenge (2026-07-28), granted ones included
 * (2025-11-25 recommends it so clients keep what they have).
 */
export function insufficientScopeOutcome(
  error: InsufficientScopeError,
  options: AuthOptions,
  endpoint: EndpointUrls,
): AuthFailure {
  const scopes = [...new Set([...(options.requiredScopes ?? []), ...error.requiredScopes])];
  return refuse(403, endpoint, { error: 'insufficient_scope', scopes }, AUTH_REFUSED, error.message);
}

/** The scopes a token lacks for the server-wide `requiredScopes`, as a 403 step-up challenge. */
export function missingScopes(options: AuthOptions, endpoint: EndpointUrls, missing: string[]): AuthFailure {
  const required = options.requiredScopes ?? [];
  return refuse(
    403,
    endpoint,
    { error: 'insufficient_scope', scopes: required },
    AUTH_REFUSED,
    `Insufficient scope: the access token lacks "${missing.join(' ')}"; this server needs "${required.join(' ')}"`,
  );
}

/**
 * RFC 6750 §3: error_description is limited to %x20-21 / %x23-5B / %x5D-7E, so a reason from a
 * verifier cannot break out of the quoted string.
 */
function quotable(text: string): string {
  return text
    .replace(/["\\]/g, "'")
    .replace(/[^\x20-\x7E]/g, '?')
    .slice(0, 200);
}
