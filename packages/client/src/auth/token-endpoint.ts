// What every grant shares: oauth4webapi's request options (our fetch, loopback HTTP allowed),
// the token response as a StoredTokens, and the library's errors as AuthorizationErrors.
import type { AuthorizationServer, HttpRequestOptions, TokenEndpointResponse } from 'oauth4webapi';
import type { AuthorizationServerMetadata } from './discovery';
import { AuthorizationError } from './errors';
import { isLoopbackHttp } from './insecure-http';
import { oauthLibrary } from './oauth-library';
import type { StoredTokens } from './types';

export interface EndpointSettings {
  readonly fetch: typeof fetch;
  readonly allowInsecureHttp: boolean;
  readonly signal?: AbortSignal;
}

/** oauth4webapi's per-request options: our fetch, and plain HTTP only where it is allowed. */
export function requestOptions(
  server: AuthorizationServerMetadata,
  settings: EndpointSettings,
): HttpRequestOptions<'POST', URLSearchParams> {
  const library = oauthLibrary();
  const endpoint = new URL(server.token_endpoint ?? server.issuer);
  return {
    signal: settings.signal,
    [library.customFetch]: (url: string, init: RequestInit) => settings.fetch(url, init),
    [library.allowInsecureRequests]: settings.allowInsecureHttp || isLoopbackHttp(endpoint),
  } as HttpRequestOptions<'POST', URLSearchParams>;
}

/** The metadata as oauth4webapi's `AuthorizationServer`. */
export function asServer(server: AuthorizationServerMetadata): AuthorizationServer {
  return server as unknown as AuthorizationServer;
}

/**
 * Token types other than `Bearer`/`DPoP` are accepted as bearer-usable: some servers answer
 * `N_A` (RFC 8693 §2.2.1, for issued tokens that are not access tokens) to grants whose result
 * is still sent as a bearer token.
 */
export const recognizedTokenTypes = new Proxy({}, { get: () => () => {}, has: () => true }) as Record<
  Lowercase<string>,
  () => void
>;

/** A token response as the store keeps it; `requestedScope` stands in when none is echoed. */
export function storedTokens(
  response: TokenEndpointResponse,
  requestedScope: string | undefined,
  previous?: StoredTokens,
): StoredTokens {
  return {
    accessToken: response.access_token,
    tokenType: response.token_type,
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    expiresAt: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : undefined,
    scope: response.scope ?? requestedScope,
  };
}

/** An oauth4webapi failure (or a network one) as an AuthorizationError naming the step. */
export function flowError(step: string, error: unknown): AuthorizationError {
  if (error instanceof AuthorizationError) return error;
  const library = oauthLibrary();
  if (error instanceof library.ResponseBodyError) {
    return new AuthorizationError(
      `${step} failed: the authorization server answered HTTP ${error.status} ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
      { cause: error, status: error.status, oauthError: error.error },
    );
  }
  if (error instanceof library.WWWAuthenticateChallengeError) {
    // A token endpoint's 401 with a challenge: RFC 6749 §5.2 answers a failed client
    // authentication so (`invalid_client`), usually with a Basic challenge naming no error.
    const named = error.cause
      .map((challenge) => challenge.parameters.error)
      .find((value) => value !== undefined);
    const code = named ?? (error.status === 401 ? 'invalid_client' : undefined);
    return new AuthorizationError(
      `${step} failed: the authorization server answered HTTP ${error.status}${code ? ` ${code}` : ''}`,
      { cause: error, status: error.status, oauthError: code },
    );
  }
  if (error instanceof library.AuthorizationResponseError) {
    return new AuthorizationError(
      `${step} failed: the authorization server redirected back with ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
      { cause: error, oauthError: error.error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AuthorizationError(`${step} failed: ${message}`, { cause: error });
}

/** Expired, or expiring within the next 30 s, when the server said when. */
export function isExpiring(tokens: StoredTokens, now = Date.now()): boolean {
  return tokens.expiresAt !== undefined && tokens.expiresAt - 30_000 <= now;
}

/** The `Authorization` header value for `tokens` (MCP sends access tokens as Bearer, RFC 6750 §2.1). */
export function authorizationHeader(tokens: StoredTokens): string {
  return `${tokens.tokenType.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer'} ${tokens.accessToken}`;
}

/** Space-separated scope sets. */
export function scopeSet(scope: string | undefined): Set<string> {
  return new Set((scope ?? '').split(' ').filter((item) => item !== ''));
}

export function joinScopes(scopes: Iterable<string>): string | undefined {
  const text = [...scopes].join(' ');
  return text === '' ? undefined : text;
}
