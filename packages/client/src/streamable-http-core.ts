// What both eras of the Streamable HTTP client share: the endpoint, the fetch, the
// transport's lifetime, and how an answer is delivered or turned into errors (MCP
// 2025-11-25 and 2026-07-28, Basic / Transports §"Streamable HTTP").
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCErrorObject,
  ParseError,
  type RequestId,
} from '@gantry/protocol';
import { asError, type HttpHeadersOption, readBodyText, unreachableError } from './http-exchange';
import { errorResponse, HttpStatusError } from './http-status-error';
import { internalError } from './resumable-event-stream';

/** The transport as each era's exchange sees it. */
export interface HttpCore {
  /** The MCP endpoint. */
  readonly url: URL;
  readonly fetch: typeof fetch;
  /** The caller's extra headers. */
  readonly headers?: HttpHeadersOption;
  readonly maxMessageBytes: number;
  /** Aborts when the transport closes. */
  readonly lifetime: AbortSignal;
  /** True while the transport is open. */
  isOpen(): boolean;
  /** Throws `NotConnectedError` unless the transport is open. */
  assertOpen(): void;
  /** Hands a decoded value (a message or a batch) to the sink. */
  deliver(value: unknown): void;
  /** Ends the connection on the transport's own initiative. */
  fail(error: Error): void;
  reportError(error: Error): void;
}

/** Delivers a JSON-RPC error response for each id, so the Peer rejects exactly those requests. */
export function failRequests(core: HttpCore, ids: RequestId[], error: JSONRPCErrorObject): void {
  for (const id of ids) core.deliver(errorResponse(id, error));
}

export function statusError(core: HttpCore, method: string, response: Response): Promise<HttpStatusError> {
  return HttpStatusError.fromResponse(method, core.url, response, core.maxMessageBytes);
}

export function networkError(core: HttpCore, method: string, error: unknown): Error {
  return unreachableError(method, core.url, error, !core.isOpen());
}

/** Delivers a JSON answer; each request it holds no response for fails. */
export async function receiveJson(
  core: HttpCore,
  response: Response,
  requestIds: RequestId[],
): Promise<void> {
  let value: unknown;
  try {
    const text = await readBodyText(response, core.maxMessageBytes);
    value = JSON.parse(text);
  } catch (error) {
    if (!core.isOpen()) return;
    const reason =
      error instanceof SyntaxError ? `it is not JSON (${error.message})` : asError(error).message;
    return failRequests(
      core,
      requestIds,
      new ParseError(`Cannot read the server's JSON answer to POST ${core.url.href}: ${reason}`).toJSON(),
    );
  }
  const answered = responseIdsIn(value);
  core.deliver(value);
  const missing = requestIds.filter((id) => !answered.includes(id));
  if (missing.length > 0) {
    failRequests(
      core,
      missing,
      internalError(`The server's JSON answer to POST ${core.url.href} holds no response for this request`),
    );
  }
}

/** Ids of the responses in a decoded value (a message or a batch). */
export function responseIdsIn(value: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (
      (isJSONRPCResultResponse(item) || isJSONRPCErrorResponse(item)) &&
      item.id !== null &&
      item.id !== undefined
    ) {
      ids.push(item.id);
    }
  }
  return ids;
}
