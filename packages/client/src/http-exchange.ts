import { ConnectionClosedError, GantryError, LocalErrorCode } from '@gantry/protocol';

/**
 * Extra HTTP headers sent with every request of an HTTP transport (e.g. `Authorization`):
 * a fixed record, or a function called before each request, so a token can be refreshed.
 * The transport's own headers (`Accept`, `Content-Type`, `MCP-Session-Id`,
 * `MCP-Protocol-Version`, `Last-Event-ID`) take precedence over these.
 */
export type HttpHeadersOption =
  | Record<string, string>
  | (() => Record<string, string> | Promise<Record<string, string>>);

/** Default largest response body or server-sent event accepted by the HTTP transports: 4 MiB. */
export const DEFAULT_MAX_HTTP_MESSAGE_BYTES = 4 * 1024 * 1024;

/** The user's headers for one request, as a `Headers` the transport then adds its own to. */
export async function resolveHeaders(option: HttpHeadersOption | undefined): Promise<Headers> {
  if (option === undefined) return new Headers();
  return new Headers(typeof option === 'function' ? await option() : option);
}

/** The media type of a response, lower-cased, without parameters (`text/event-stream`). */
export function mediaTypeOf(response: Response): string {
  const header = response.headers.get('content-type');
  if (!header) return '';
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * Reads a whole response body as UTF-8 text, refusing more than `maxBytes`: a server cannot
 * make the client buffer without bound.
 */
export async function readBodyText(response: Response, maxBytes: number): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        throw new GantryError(
          LocalErrorCode.MessageTooLarge,
          `HTTP response too large: the body exceeds ${maxBytes} bytes; raise maxMessageBytes if the server sends larger messages`,
        );
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
    if (total > maxBytes) await body.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Throws the body away so the connection can be reused; never fails. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

/** The start of a text, for error messages. */
export function excerpt(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The error of a fetch that got no HTTP answer: `closedMessage` when the transport's own
 * close aborted it, otherwise the network failure (connection refused, reset…). A failed OAuth
 * flow (an `auth` strategy's `AuthorizationError`) is not a network failure: it surfaces as itself.
 */
export function unreachableError(method: string, url: URL, error: unknown, closed: boolean): Error {
  if (error instanceof GantryError && error.code === LocalErrorCode.Authorization) return error;
  if (closed) return new ConnectionClosedError('Connection closed: the transport was closed');
  const cause = asError(error);
  // undici's "fetch failed" hides the reason (ECONNREFUSED…) in `cause`.
  const detail = cause.cause instanceof Error ? cause.cause.message : cause.message;
  return new ConnectionClosedError(`Cannot reach the MCP server: ${method} ${url.href} failed (${detail})`, {
    cause,
  });
}

/** An unknown thrown value as an Error. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Parses an http(s) URL option; anything else is a programmer error. */
export function parseHttpUrl(owner: string, url: string | URL | undefined): URL {
  let parsed: URL;
  try {
    parsed = new URL(url as string | URL);
  } catch {
    throw new TypeError(
      `${owner}: \`url\` must be an absolute http(s) URL (got ${JSON.stringify(String(url))})`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`${owner}: \`url\` must use http or https (got ${parsed.protocol})`);
  }
  return parsed;
}
