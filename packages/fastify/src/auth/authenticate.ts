import type { AuthInfo } from '@gantry/protocol';
import type { FastifyRequest } from 'fastify';
import {
  type AuthOutcome,
  insufficientScopeOutcome,
  invalidRequest,
  invalidToken,
  missingScopes,
  missingToken,
} from './challenge';
import { type EndpointUrls, sameResource } from './endpoint-urls';
import { InsufficientScopeError, InvalidTokenError } from './errors';
import type { AuthOptions } from './options';

const NO_TOKEN = 'Authentication required: send an OAuth access token as "Authorization: Bearer <token>"';

// RFC 7235 §2.1 credentials = auth-scheme [ 1*SP token68 ]; the scheme is case-insensitive.
const credentialsPattern = /^([^\s]+)(?:[ ]+(.*))?$/;

/**
 * Authenticates one request to the MCP endpoint, before any JSON-RPC processing (OAuth 2.1
 * §5.2; MCP 2025-06-18 and later "Token Handling"). In order:
 *
 * 1. `access_token` in the query string → 400 `invalid_request`, even beside a good header
 *    (2025-06-18: tokens MUST NOT be in the URI; refusing makes the leak visible).
 * 2. No `Authorization` header, or another scheme than Bearer → 401 challenge.
 *    `Bearer` without a single token after it → 400 `invalid_request`.
 * 3. `options.verify(token)`: undefined or InvalidTokenError → 401 `invalid_token`;
 *    InsufficientScopeError → 403; any other error rejects the promise (a server failure).
 * 4. `expiresAt` (seconds) not in the future → 401 `invalid_token` "token expired".
 * 5. `checkResource` (default on) and `resource` set but naming another resource → 401.
 * 6. A missing `requiredScopes` entry → 403 `insufficient_scope` listing all required scopes.
 *
 * Every refusal carries `WWW-Authenticate: Bearer …, resource_metadata="<metadataUrl>"`, and
 * 401s `scope="<requiredScopes>"` when there are any.
 *
 * @example
 * ```ts
 * const outcome = await authenticate(request, auth, endpointUrls(request, auth, '/mcp'));
 * if (!outcome.ok) return reply.code(outcome.status).headers(outcome.headers).send(outcome.body);
 * ```
 */
export async function authenticate(
  request: FastifyRequest,
  options: AuthOptions,
  endpoint: EndpointUrls,
): Promise<AuthOutcome> {
  if (tokenInQuery(request.url)) {
    return invalidRequest(
      endpoint,
      'access tokens must not be sent in the query string; send them in the Authorization header',
    );
  }
  const header = request.headers.authorization;
  if (header === undefined || header === '') return missingToken(options, endpoint, NO_TOKEN);
  const match = credentialsPattern.exec(header.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') return missingToken(options, endpoint, NO_TOKEN);
  const token = match[2]?.trim();
  if (!token || /\s/.test(token)) {
    return invalidRequest(endpoint, "malformed Authorization header; expected 'Bearer <token>'");
  }

  let auth: AuthInfo | undefined;
  try {
    auth = await options.verify(token, request);
  } catch (error) {
    if (error instanceof InvalidTokenError)
      return invalidToken(options, endpoint, error.message || 'token rejected');
    if (error instanceof InsufficientScopeError) return insufficientScopeOutcome(error, options, endpoint);
    throw error;
  }
  if (auth === undefined || auth === null) return invalidToken(options, endpoint, 'token not recognized');
  if (!Array.isArray(auth.scopes)) {
    throw new TypeError(
      'Auth verify returned an AuthInfo without a scopes array; return scopes: [] when the token has none',
    );
  }

  // The verifier may return cached AuthInfo (introspection), so expiry is checked here too.
  if (typeof auth.expiresAt === 'number' && auth.expiresAt * 1000 <= Date.now()) {
    return invalidToken(options, endpoint, 'token expired');
  }
  // RFC 8707 / MCP "Access Token Privilege Restriction": only tokens issued for this server.
  if (
    options.checkResource !== false &&
    auth.resource !== undefined &&
    !sameResource(auth.resource, endpoint.resourceUrl)
  ) {
    return invalidToken(options, endpoint, 'token was issued for another resource');
  }
  const required = options.requiredScopes;
  if (required && required.length > 0) {
    const granted = auth.scopes;
    const missing = required.filter((scope) => !granted.includes(scope));
    if (missing.length > 0) return missingScopes(options, endpoint, missing);
  }
  return { ok: true, auth };
}

/** RFC 6750 §2.3 names the URI query parameter `access_token`. */
function tokenInQuery(url: string): boolean {
  const q = url.indexOf('?');
  if (q === -1) return false;
  return new URLSearchParams(url.slice(q + 1)).has('access_token');
}
