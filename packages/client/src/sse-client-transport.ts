import {
  ConnectionClosedError,
  GantryError,
  isJSONRPCRequest,
  LocalErrorCode,
  NotConnectedError,
  ParseError,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import { authorizedFetch } from './auth/authorized-fetch';
import type { McpAuth } from './auth/types';
import type { ClientTransportHooks } from './client-transport-hooks';
import { readEventStream } from './event-stream-reader';
import {
  asError,
  DEFAULT_MAX_HTTP_MESSAGE_BYTES,
  discardBody,
  excerpt,
  type HttpHeadersOption,
  mediaTypeOf,
  parseHttpUrl,
  resolveHeaders,
  unreachableError,
} from './http-exchange';
import { errorResponse, HttpStatusError } from './http-status-error';
import { SseParser } from './sse-parser';

/** Options of {@link SseClientTransport}. */
export interface SseClientTransportOptions {
  /** The SSE endpoint the client opens with GET (often `…/sse`). */
  url: string | URL;
  /** Extra headers for the GET and every POST, or a function called before each request. */
  headers?: HttpHeadersOption;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
  /** How requests are authorized (see `StreamableHttpClientTransportOptions.auth`). */
  auth?: McpAuth;
  /** Largest server-sent event accepted; default 4 MiB. */
  maxMessageBytes?: number;
  /** Problems nobody awaits, such as a `message` event that is not JSON. Default: ignored. */
  onError?: (error: Error) => void;
}

type State = 'idle' | 'starting' | 'open' | 'closed';

/** Settles `start` once the `endpoint` event arrives, or the stream fails first. */
interface EndpointWaiter {
  resolve(endpoint: URL): void;
  reject(error: Error): void;
}

/**
 * Client side of the legacy HTTP+SSE transport (2024-11-05 transports §"HTTP with SSE"),
 * for servers that predate Streamable HTTP.
 *
 * `start` opens the SSE stream with GET and waits for the `endpoint` event; its data is
 * resolved against the SSE URL and must have the same origin (a server cannot send the
 * client's messages elsewhere). Each message is then POSTed there as JSON, and every
 * `message` event is delivered. An HTTP error on a POST carrying a request rejects that
 * request with a JSON-RPC error (see {@link HttpStatusError}); other failed POSTs reject
 * their `send`. The connection ends when either side closes the stream: there is no
 * resumption in this transport.
 *
 * @example
 * await client.connect(new SseClientTransport({ url: 'http://127.0.0.1:3000/sse' }));
 */
export class SseClientTransport implements Transport, ClientTransportHooks {
  /** The SSE endpoint. */
  readonly url: URL;
  /** HTTP+SSE (2024-11-05) carries the session era only: `era: 'auto'` goes straight to `initialize`. */
  readonly eraBinding = 'session-only' as const;
  private readonly fetchImpl: typeof fetch;
  private readonly maxMessageBytes: number;
  private state: State = 'idle';
  private sink?: TransportSink;
  private postUrl?: URL;
  /** Aborts the SSE stream and every POST when the transport closes. */
  private readonly lifetime = new AbortController();

  constructor(private readonly options: SseClientTransportOptions) {
    this.url = parseHttpUrl('SseClientTransport', options?.url);
    const baseFetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.fetchImpl = options.auth ? authorizedFetch(baseFetch, options.auth) : baseFetch;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_HTTP_MESSAGE_BYTES;
  }

  /** The URL messages are POSTed to, once the server has sent its `endpoint` event. */
  get endpoint(): URL | undefined {
    return this.postUrl;
  }

  /** Opens the SSE stream; resolves once the server has named the endpoint to POST to. */
  async start(sink: TransportSink): Promise<void> {
    if (this.state === 'starting' || this.state === 'open') {
      throw new GantryError(LocalErrorCode.AlreadyStarted, 'SseClientTransport already started');
    }
    if (this.state === 'closed')
      throw new NotConnectedError('SseClientTransport was closed; create a new one');
    this.state = 'starting';
    this.sink = sink;
    try {
      const headers = await resolveHeaders(this.options.headers);
      headers.set('accept', 'text/event-stream');
      let response: Response;
      try {
        response = await this.fetchImpl(this.url, { method: 'GET', headers, signal: this.lifetime.signal });
      } catch (error) {
        throw unreachableError('GET', this.url, error, this.state !== 'starting');
      }
      if (!response.ok) {
        throw await HttpStatusError.fromResponse('GET', this.url, response, this.maxMessageBytes);
      }
      const body = response.body;
      if (mediaTypeOf(response) !== 'text/event-stream' || !body) {
        await discardBody(response);
        throw new GantryError(
          LocalErrorCode.ProtocolViolation,
          `The server answered GET ${this.url.href} with ${mediaTypeOf(response) || 'no Content-Type'} instead of text/event-stream; is this an HTTP+SSE endpoint?`,
        );
      }
      await new Promise<URL>((resolve, reject) => {
        this.read(body, { resolve, reject }).catch((error) => this.options.onError?.(asError(error)));
      });
      // `read` opened the transport on the endpoint event, unless `close` came first.
      if ((this.state as State) !== 'open')
        throw new ConnectionClosedError('Connection closed: the transport was closed');
    } catch (error) {
      if (this.state === 'starting') this.state = 'closed';
      this.lifetime.abort();
      this.sink = undefined;
      throw error;
    }
  }

  /** POSTs one message to the endpoint; settles once the server has accepted it. */
  async send(message: WireMessage): Promise<void> {
    const postUrl = this.postUrl;
    if (this.state !== 'open' || !postUrl) {
      throw new NotConnectedError(
        this.state === 'closed'
          ? 'Not connected: the HTTP+SSE transport is closed'
          : 'Not connected: the HTTP+SSE transport has not received its endpoint yet',
      );
    }
    const messages = Array.isArray(message) ? message : [message];
    const requestIds = messages.filter(isJSONRPCRequest).map((request) => request.id);
    const headers = await resolveHeaders(this.options.headers);
    headers.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await this.fetchImpl(postUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal: this.lifetime.signal,
      });
    } catch (error) {
      throw unreachableError('POST', postUrl, error, this.state !== 'open');
    }
    if (response.ok) {
      // The response travels on the SSE stream; the POST's body ("Accepted") means nothing.
      await discardBody(response);
      return;
    }
    const error = await HttpStatusError.fromResponse('POST', postUrl, response, this.maxMessageBytes);
    if (requestIds.length === 0) throw error;
    for (const id of requestIds) this.deliver(errorResponse(id, error.toErrorObject()));
  }

  /** Closes the SSE stream (2024-11-05: there is no other way to end the connection). */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.lifetime.abort();
    this.finish();
  }

  private async read(body: ReadableStream<Uint8Array>, waiter: EndpointWaiter): Promise<void> {
    let pending: EndpointWaiter | undefined = waiter;
    let failure: Error | undefined;
    const parser = new SseParser({ maxEventChars: this.maxMessageBytes });
    try {
      await readEventStream(body, parser, (event) => {
        if (event.event === 'endpoint') {
          if (!pending) return undefined; // Later endpoint events are ignored.
          const endpoint = this.resolveEndpoint(event.data);
          if (endpoint instanceof Error) {
            pending.reject(endpoint);
            pending = undefined;
            return false;
          }
          // Open from here on, so messages in the same chunk are delivered.
          this.postUrl = endpoint;
          if (this.state === 'starting') this.state = 'open';
          pending.resolve(endpoint);
          pending = undefined;
          return undefined;
        }
        // An event without a type is a `message` event (WHATWG).
        if (event.event !== undefined && event.event !== 'message') return undefined;
        if (pending) {
          this.options.onError?.(
            new GantryError(
              LocalErrorCode.ProtocolViolation,
              `The server sent a message before its endpoint event; dropped: ${excerpt(event.data, 200)}`,
            ),
          );
          return undefined;
        }
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch (error) {
          this.options.onError?.(
            new ParseError(
              `A message event from ${this.url.href} is not JSON (${(error as Error).message}): ${excerpt(event.data, 200)}`,
            ),
          );
          return undefined;
        }
        this.deliver(value);
        return undefined;
      });
    } catch (error) {
      failure = asError(error);
    }
    if (pending) {
      pending.reject(
        failure && this.state !== 'closed'
          ? new ConnectionClosedError(
              `The SSE stream of ${this.url.href} failed before its endpoint event: ${failure.message}`,
              {
                cause: failure,
              },
            )
          : new ConnectionClosedError(`The SSE stream of ${this.url.href} ended before its endpoint event`),
      );
      return;
    }
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.lifetime.abort();
    this.finish(
      failure
        ? new ConnectionClosedError(`The SSE stream of ${this.url.href} failed (${failure.message})`, {
            cause: failure,
          })
        : new ConnectionClosedError(`The server ended the SSE stream of ${this.url.href}`),
    );
  }

  /**
   * The endpoint event's URI, resolved against the SSE URL. It must share the SSE URL's
   * origin: otherwise a server could direct the client's messages, and the headers sent with
   * them, to another host.
   */
  private resolveEndpoint(data: string): URL | Error {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.url);
    } catch {
      return new GantryError(
        LocalErrorCode.ProtocolViolation,
        `The server's endpoint event holds no valid URL: ${JSON.stringify(excerpt(data, 200))}`,
      );
    }
    if (endpoint.origin !== this.url.origin) {
      return new GantryError(
        LocalErrorCode.ProtocolViolation,
        `The server's endpoint ${endpoint.href} is not on the origin of ${this.url.href} (${this.url.origin}); refusing to send messages there`,
      );
    }
    return endpoint;
  }

  private deliver(value: unknown): void {
    if (this.state === 'open') this.sink?.message(value);
  }

  private finish(error?: Error): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.closed(error);
  }
}
