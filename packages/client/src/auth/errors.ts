import { GantryError, LocalErrorCode } from '@gantry/protocol';

/**
 * An OAuth flow failed: discovery found no usable metadata, registration or the token endpoint
 * refused, the user denied access, or a step-up went past its limit. A local error
 * (`GANTRY_ERR_AUTHORIZATION`); `status` and `oauthError` say what the server answered, when it did.
 */
export class AuthorizationError extends GantryError {
  override name = 'AuthorizationError';
  /** The HTTP status of the answer that failed the flow, if any. */
  readonly status?: number;
  /** The OAuth `error` code (RFC 6749 §5.2, RFC 7591 §3.2.2), if the server gave one. */
  readonly oauthError?: string;

  constructor(message: string, options: { cause?: unknown; status?: number; oauthError?: string } = {}) {
    super(LocalErrorCode.Authorization, message, { cause: options.cause });
    this.status = options.status;
    this.oauthError = options.oauthError;
  }
}
