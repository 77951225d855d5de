import { ErrorCode, McpError } from '@gantry/protocol';

/**
 * The bearer token is not acceptable: expired, issued for another resource, badly signed,
 * unknown. A `verify` function throws it with a short reason, which reaches the client as the
 * `error_description` of a 401 `invalid_token` challenge (RFC 6750 §3.1), so keep it free of
 * secrets.
 *
 * @example
 * ```ts
 * verify: async (token) => {
 *   const row = await tokens.find(token);
 *   if (!row) throw new InvalidTokenError('unknown token');
 *   return { token, clientId: row.clientId, scopes: row.scopes, expiresAt: row.expiresAt };
 * }
 * ```
 */
export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

/**
 * The token is valid but lacks scopes this request needs. Thrown by `verify`, a guard or a
 * handler, it becomes a 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"` (2025-11-25 "Scope Challenge Handling"), the client's cue to step up.
 *
 * List every scope the operation needs, not only the missing ones: 2025-11-25 clients replace
 * their scopes with the challenged set, and 2026-07-28 asks for all of them in one challenge.
 *
 * @example
 * ```ts
 * if (!ctx.auth?.scopes.includes('notes:write')) throw new InsufficientScopeError(['notes:read', 'notes:write']);
 * ```
 */
export class InsufficientScopeError extends McpError {
  override name = 'InsufficientScopeError';

  constructor(
    readonly requiredScopes: string[],
    message?: string,
  ) {
    // A programmer error: throw here rather than send a broken challenge later.
    if (
      !Array.isArray(requiredScopes) ||
      requiredScopes.length === 0 ||
      !requiredScopes.every(isScopeToken)
    ) {
      throw new TypeError(
        `InsufficientScopeError: requiredScopes must be a non-empty array of scope tokens (no spaces, quotes or backslashes); got ${JSON.stringify(requiredScopes)}`,
      );
    }
    // An McpError, so that from a handler or guard it leaves the pipeline as a JSON-RPC error
    // the HTTP layer recognizes (data.insufficientScope) and answers with a 403 challenge.
    super(
      ErrorCode.ServerError,
      message ?? `Insufficient scope: this request needs ${requiredScopes.join(' ')}`,
      {
        insufficientScope: true,
        requiredScopes,
      },
    );
  }
}

/** RFC 6749 §3.3 scope-token: 1*( %x21 / %x23-5B / %x5D-7E ). */
export function isScopeToken(value: unknown): value is string {
  return typeof value === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(value);
}
