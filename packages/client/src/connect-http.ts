import { ConnectionClosedError, McpError } from '@gantry/protocol';
import type { Client, ConnectOptions } from './client';
import { asError } from './http-exchange';
import { httpStatusOf } from './http-status-error';
import { SseClientTransport } from './sse-client-transport';
import {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './streamable-http-client-transport';

/** Options of {@link connectHttp}: those of both transports, plus the handshake's signal. */
export interface ConnectHttpOptions extends Omit<StreamableHttpClientTransportOptions, 'url'> {
  /** Aborts the handshake (both attempts). */
  signal?: ConnectOptions['signal'];
}

/** The connection {@link connectHttp} made, and the transport that carries it. */
export type HttpConnection =
  | { kind: 'streamable-http'; transport: StreamableHttpClientTransport }
  | { kind: 'sse'; transport: SseClientTransport };

/** 2025-11-25 transports §"Backwards Compatibility": the statuses that mean "not Streamable HTTP". */
const FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/**
 * Connects `client` to an HTTP server of either generation, as the spec tells clients to
 * (2025-11-25 transports §"Backwards Compatibility"): POST `initialize` to `url` as
 * Streamable HTTP; if that POST fails with HTTP 400, 404 or 405, open `url` as a legacy
 * HTTP+SSE stream and expect an `endpoint` event. Other failures (network errors, 401, 500,
 * a failed handshake after a successful `initialize`) are thrown as they are.
 *
 * @example
 * const { kind } = await connectHttp(client, 'http://127.0.0.1:3000/mcp');
 * // kind: 'streamable-http' | 'sse'
 */
export async function connectHttp(
  client: Client,
  url: string | URL,
  options: ConnectHttpOptions = {},
): Promise<HttpConnection> {
  const { signal, ...transportOptions } = options;
  const streamable = new StreamableHttpClientTransport({ ...transportOptions, url });
  try {
    await client.connect(streamable, { signal });
    return { kind: 'streamable-http', transport: streamable };
  } catch (error) {
    // Only `initialize` can fail as a request here: a McpError carrying an HTTP status came
    // from its POST, not from a later step of the handshake.
    const status = error instanceof McpError ? httpStatusOf(error) : undefined;
    if (status === undefined || !FALLBACK_STATUSES.has(status) || signal?.aborted) throw error;
    const legacy = new SseClientTransport({
      url,
      headers: options.headers,
      fetch: options.fetch,
      maxMessageBytes: options.maxMessageBytes,
      onError: options.onError,
    });
    try {
      await client.connect(legacy, { signal });
    } catch (legacyError) {
      throw new ConnectionClosedError(
        `Cannot connect to ${String(url)}: POST initialize answered HTTP ${status}, so this is not a Streamable HTTP endpoint, and the HTTP+SSE fallback failed too: ${asError(legacyError).message}`,
        { cause: legacyError },
      );
    }
    return { kind: 'sse', transport: legacy };
  }
}
