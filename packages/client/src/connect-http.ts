import { ConnectionClosedError, McpError } from '@gantry/protocol';
import type { Client } from './client';
import type { ConnectOptions } from './client-options';
import { asError } from './http-exchange';
import { httpStatusOf } from './http-status-error';
import { SseClientTransport } from './sse-client-transport';
import {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './streamable-http-client-transport';

/** Options of {@link connectHttp}: those of both transports, plus the handshake's signal and era. */
export interface ConnectHttpOptions extends Omit<StreamableHttpClientTransportOptions, 'url'> {
  /** Aborts the handshake (both attempts). */
  signal?: ConnectOptions['signal'];
  /**
   * The protocol era (see {@link ConnectOptions.era}); default `'auto'`. HTTP+SSE carries the
   * session era only, so `'stateless'` never falls back to it.
   */
  era?: ConnectOptions['era'];
}

/** The connection {@link connectHttp} made, and the transport that carries it. */
export type HttpConnection =
  | { kind: 'streamable-http'; transport: StreamableHttpClientTransport }
  | { kind: 'sse'; transport: SseClientTransport };

/** 2025-11-25 transports §"Backwards Compatibility": the statuses that mean "not Streamable HTTP". */
const FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/**
 * Connects `client` to an HTTP server of any generation, as the spec tells clients to
 * (2026-07-28 and 2025-11-25 transports §"Backward Compatibility"): over Streamable HTTP,
 * `era: 'auto'` first POSTs a stateless-era `server/discover` and, unless the answer shows a
 * 2026-07-28 server, POSTs `initialize`; if that POST fails with HTTP 400, 404 or 405, `url`
 * is opened as a legacy HTTP+SSE stream and an `endpoint` event expected. Other failures
 * (network errors, 401, 500, a failed handshake after a successful `initialize`) are thrown
 * as they are.
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
  const { signal, era, ...transportOptions } = options;
  const streamable = new StreamableHttpClientTransport({ ...transportOptions, url });
  try {
    await client.connect(streamable, { signal, era });
    return { kind: 'streamable-http', transport: streamable };
  } catch (error) {
    // Only `initialize` can fail as a request here (a failed probe falls back to it): a
    // McpError carrying an HTTP status came from its POST, not from a later step.
    const status = error instanceof McpError ? httpStatusOf(error) : undefined;
    if (era === 'stateless' || status === undefined || !FALLBACK_STATUSES.has(status) || signal?.aborted) {
      throw error;
    }
    const legacy = new SseClientTransport({
      url,
      headers: options.headers,
      fetch: options.fetch,
      auth: options.auth,
      maxMessageBytes: options.maxMessageBytes,
      onError: options.onError,
    });
    try {
      await client.connect(legacy, { signal, era: 'session' });
    } catch (sessionError) {
      throw new ConnectionClosedError(
        `Cannot connect to ${String(url)}: POST initialize answered HTTP ${status}, so this is not a Streamable HTTP endpoint, and the HTTP+SSE fallback failed too: ${asError(sessionError).message}`,
        { cause: sessionError },
      );
    }
    return { kind: 'sse', transport: legacy };
  }
}
