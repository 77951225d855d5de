import { GantryError, LocalErrorCode } from '@gantry/protocol';

/**
 * An OAuth authorization failed on the client's side: the user did not come back through the
 * redirect in time, cancelled, or the authorization server refused. Local: it never crosses
 * the wire. The underlying error, when there is one, is `cause`.
 */
export class AuthorizationError extends GantryError {
  override name = 'AuthorizationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(LocalErrorCode.Authorization, message, options);
  }
}
