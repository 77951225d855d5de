import type { SseEvent, SseParser } from './sse-parser';

/** How {@link readEventStream} finished. */
export type EventStreamEnd = 'ended' | 'stopped';

/**
 * Reads a `text/event-stream` body, handing each event to `onEvent` in order. Resolves
 * `'ended'` when the server ends the body, or `'stopped'` after the chunk in which `onEvent`
 * returned `false` (the body is then cancelled, which closes the connection). Rejects when the
 * connection fails or is aborted, or the parser refuses an event.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  parser: SseParser,
  onEvent: (event: SseEvent) => boolean | undefined,
): Promise<EventStreamEnd> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        parser.end();
        return 'ended';
      }
      // Events already received in this chunk are still delivered before stopping.
      let stop = false;
      for (const event of parser.push(value)) {
        if (onEvent(event) === false) stop = true;
      }
      if (stop) return 'stopped';
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
