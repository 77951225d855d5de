import {
  ErrorCode,
  isJSONRPCErrorResponse,
  JSONRPC_VERSION,
  type JSONRPCErrorObject,
  type JSONRPCErrorResponse,
  McpError,
  type RequestId,
} from '@gantry/protocol';
import type { AuthChallenge } from './auth/types';
import { parseWwwAuthenticate } from './auth/www-authenticate';
import { excerpt, readBodyText } from './http-exchange';

/** Stable code of {@link HttpStatusError}, in the style of `LocalErrorCode`. */
export const HTTP_STATUS_ERROR_CODE = 'GANTRY_ERR_HTTP_STATUS';

/**
 * `data` of the JSON-RPC error an HTTP transport delivers in place of a response when the
 * HTTP exchange that carried the request failed (see {@link HttpStatusError.toErrorObject}).
 */
export interface HttpFailureData {
  httpStatus: number;
  /** The response body as text (possibly a JSON-RPC error without id, as the spec allows). */
  body: string;
  /** The answer's `WWW-Authenticate` header, when it had one (401 and 403 do). */
  wwwAuthenticate?: string;
}

/**
 * A server answered an HTTP transport's request with a non-2xx status. A local error: it
 * never crosses the wire. Sends that carried no JSON-RPC request (notifications, responses)
 * reject with it; a request gets a JSON-RPC error response built by `toErrorObject` instead,
 * so only that request rejects.
 */
export class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  readonly code = HTTP_STATUS_ERROR_CODE;
  /** The challenges of `wwwAuthenticate`, parsed (RFC 9110 §11.6.1); empty without one. */
  readonly challenges: readonly AuthChallenge[];

  constructor(
    /** The HTTP method: `POST`, `GET` or `DELETE`. */
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly body: string,
    /** The answer's `WWW-Authenticate` header (401, 403), as sent. */
    readonly wwwAuthenticate?: string,
  ) {
    super(
      `HTTP ${status}${statusText ? ` ${statusText}` : ''} from ${method} ${url}${body ? `: ${excerpt(body)}` : ''}${authHint(status, wwwAuthenticate)}`,
    );
    this.challenges = parseWwwAuthenticate(wwwAuthenticate);
  }

  /** Builds the error from a response, quoting up to `maxBytes` of its body. */
  static async fromResponse(
    method: string,
    url: URL,
    response: Response,
    maxBytes: number,
  ): Promise<HttpStatusError> {
    let text = '';
    try {
      text = await readBodyText(response, maxBytes);
    } catch {
      // The status says enough.
    }
    const challenge = response.headers.get('www-authenticate') ?? undefined;
    return new HttpStatusError(method, url.href, response.status, response.statusText, text, challenge);
  }

  /**
   * The error delivered for a request this exchange carried. Its code is the one of the
   * JSON-RPC error in the body when there is one (2025-11-25 transports: the body of an HTTP
   * error "MAY comprise a JSON-RPC error response that has no id"), else −32603; its message
   * names the status and quotes the body; its data is {@link HttpFailureData}.
   */
  toErrorObject(): JSONRPCErrorObject {
    const data: HttpFailureData = { httpStatus: this.status, body: this.body };
    if (this.wwwAuthenticate !== undefined) data.wwwAuthenticate = this.wwwAuthenticate;
    return { code: jsonRpcErrorCodeIn(this.body) ?? ErrorCode.InternalError, message: this.message, data };
  }
}

/** True for the statuses of an authorization failure (RFC 6750 §3.1): 401 and 403. */
export function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/** The challenge of a 401/403, for the error message. */
function authHint(status: number, wwwAuthenticate: string | undefined): string {
  return isAuthStatus(status) && wwwAuthenticate
    ? ` (WWW-Authenticate: ${excerpt(wwwAuthenticate, 300)})`
    : '';
}

/** The HTTP status of a failed request, when the error came from an HTTP transport's failed exchange. */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof HttpStatusError) return error.status;
  if (error instanceof McpError) {
    const data = error.data as Partial<HttpFailureData> | undefined;
    if (typeof data === 'object' && data !== null && typeof data.httpStatus === 'number')
      return data.httpStatus;
  }
  return undefined;
}

/** A JSON-RPC error response for `id`, as the transport hands it to the Peer. */
export function errorResponse(id: RequestId, error: JSONRPCErrorObject): JSONRPCErrorResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error };
}

function jsonRpcErrorCodeIn(body: string): number | undefined {
  const text = body.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJSONRPCErrorResponse(value) ? value.error.code : undefined;
  } catch {
    return undefined;
  }
}
