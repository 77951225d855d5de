// The server-sent event streams of the Streamable HTTP client (2025-11-25 transports
// §"Sending Messages to the Server", §"Listening for Messages from the Server",
// §"Resumability and Redelivery"): reading one connection, and reconnecting with
// `Last-Event-ID` while the stream is still needed.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ConnectionClosedError,
  ErrorCode,
  GantryError,
  type JSONRPCErrorObject,
  LocalErrorCode,
  ParseError,
  type RequestId,
} from '@gantry/protocol';
import { readEventStream } from './event-stream-reader';
import { asError, excerpt } from './http-exchange';
import { type ReconnectOptions, reconnectDelay } from './reconnect-policy';
import { SseParser } from './sse-parser';

/** One server-sent event stream: the one answering a POST (resumed with GET), or the standalone GET stream. */
export interface EventStream {
  readonly kind: 'request' | 'standalone';
  readonly controller: AbortController;
  /** Aborts with the stream's controller or when the transport closes. */
  readonly signal: AbortSignal;
  /** Request streams: ids whose responses are still awaited on this stream. */
  readonly awaiting: Set<RequestId>;
  /** The last event id received; `''` if none (WHATWG keeps it across reconnections). */
  lastEventId: string;
  /** The server's latest `retry`, in milliseconds. */
  retryMs?: number;
  /** Events dispatched so far, to tell a stream that brought news from one that did not. */
  events: number;
}

/** What opening a GET stream gave: a stream to read, a failure worth retrying, or an end. */
export type GetOutcome =
  | { kind: 'open'; response: Response }
  | { kind: 'retry'; error: Error }
  | { kind: 'stop'; error: Error; quiet: boolean };

/** What the stream loops need from their transport. */
export interface EventStreamHost {
  readonly url: URL;
  readonly reconnect: ReconnectOptions;
  readonly maxMessageBytes: number;
  /** Opens a GET stream, resuming after `stream.lastEventId` when there is one. */
  openGet(stream: EventStream): Promise<GetOutcome>;
  /** Hands one decoded message (or batch) to the sink. */
  deliver(value: unknown): void;
  /** Rejects every request the stream still owes. */
  failStream(stream: EventStream, error: JSONRPCErrorObject): void;
  reportError(error: Error): void;
}

/** A new stream, stopped by its own controller or by the transport's `lifetime` signal. */
export function newEventStream(kind: EventStream['kind'], lifetime: AbortSignal): EventStream {
  const controller = new AbortController();
  return {
    kind,
    controller,
    signal: AbortSignal.any([controller.signal, lifetime]),
    awaiting: new Set(),
    lastEventId: '',
    events: 0,
  };
}

/** Reads a POST's SSE answer and, while responses are owed, resumes it with GET + Last-Event-ID. */
export async function followRequestStream(
  host: EventStreamHost,
  stream: EventStream,
  first: Response,
): Promise<void> {
  let response: Response | undefined = first;
  let failures = 0;
  let lastError: Error | undefined;
  for (;;) {
    if (response) {
      const error = await readConnection(host, stream, response);
      response = undefined;
      if (stream.awaiting.size === 0 || stream.signal.aborted) return;
      if (error instanceof GantryError && error.code === LocalErrorCode.MessageTooLarge) {
        // Resuming would replay the same event.
        return host.failStream(stream, internalError(error.message));
      }
      if (error) {
        failures++;
        lastError = error;
      } else {
        // A clean end is polling (SEP-1699), not a failure: the server may close at any time.
        failures = 0;
      }
      if (stream.lastEventId === '') {
        return host.failStream(
          stream,
          internalError(
            `The server's SSE answer to POST ${host.url.href} ended before the response${error ? ` (${error.message})` : ''}, and it sent no event id to resume from`,
          ),
        );
      }
    }
    if (failures > host.reconnect.maxRetries) {
      return host.failStream(
        stream,
        internalError(
          `Gave up resuming the SSE answer to POST ${host.url.href} after ${failures} failed attempts: ${lastError?.message}`,
        ),
      );
    }
    if (!(await waitToReconnect(stream, reconnectDelay(host.reconnect, stream.retryMs, failures)))) return;
    if (stream.awaiting.size === 0) return;
    const outcome = await host.openGet(stream);
    if (stream.signal.aborted) return;
    if (outcome.kind === 'open') response = outcome.response;
    else if (outcome.kind === 'retry') {
      failures++;
      lastError = outcome.error;
    } else {
      return host.failStream(stream, internalError(`Cannot resume the SSE answer: ${outcome.error.message}`));
    }
  }
}

/**
 * The GET stream for server-initiated messages (2025-11-25 transports §"Listening for
 * Messages from the Server"). An attempt fails when it errors or ends without any event;
 * an event resets the count.
 */
export async function followStandaloneStream(host: EventStreamHost, stream: EventStream): Promise<void> {
  let failures = 0;
  for (;;) {
    const outcome = await host.openGet(stream);
    if (stream.signal.aborted) return;
    if (outcome.kind === 'stop') {
      if (!outcome.quiet) host.reportError(outcome.error);
      return;
    }
    let error: Error | undefined;
    if (outcome.kind === 'retry') {
      error = outcome.error;
      failures++;
    } else {
      const before = stream.events;
      error = await readConnection(host, stream, outcome.response);
      if (stream.signal.aborted) return;
      failures = stream.events > before ? 0 : failures + 1;
    }
    if (failures > host.reconnect.maxRetries) {
      host.reportError(
        new ConnectionClosedError(
          `Gave up the GET stream of ${host.url.href} for server-initiated messages after ${failures} failed attempts${error ? `: ${error.message}` : ' (each ended without an event)'}`,
          { cause: error },
        ),
      );
      return;
    }
    if (!(await waitToReconnect(stream, reconnectDelay(host.reconnect, stream.retryMs, failures)))) return;
  }
}

/**
 * Reads one connection of a stream, delivering each message. Resolves with the error that
 * ended it, or undefined when the server ended it or every awaited response arrived.
 */
async function readConnection(
  host: EventStreamHost,
  stream: EventStream,
  response: Response,
): Promise<Error | undefined> {
  const parser = new SseParser({ maxEventChars: host.maxMessageBytes, lastEventId: stream.lastEventId });
  try {
    await readEventStream(response.body!, parser, (event) => {
      stream.events++;
      // Events of other types are not MCP messages; an empty data field is a priming event.
      if ((event.event === undefined || event.event === 'message') && event.data.trim() !== '') {
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch (error) {
          host.reportError(
            new ParseError(
              `A server-sent event from ${host.url.href} is not JSON (${(error as Error).message}): ${excerpt(event.data, 200)}`,
            ),
          );
          return undefined;
        }
        host.deliver(value);
      }
      return stream.kind === 'request' && stream.awaiting.size === 0 ? false : undefined;
    });
    return undefined;
  } catch (error) {
    return asError(error);
  } finally {
    stream.lastEventId = parser.lastEventId;
    if (parser.retry !== undefined) stream.retryMs = parser.retry;
  }
}

/** Waits before a reconnection; false if the stream was stopped meanwhile. */
async function waitToReconnect(stream: EventStream, ms: number): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: stream.signal });
    return true;
  } catch {
    return false;
  }
}

/** A −32603 error object, delivered for a request whose answer was lost. */
export function internalError(message: string): JSONRPCErrorObject {
  return { code: ErrorCode.InternalError, message };
}
