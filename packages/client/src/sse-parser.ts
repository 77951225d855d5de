import { GantryError, LocalErrorCode } from '@gantry/protocol';

/** Default largest event (its data plus any unfinished line) the parser buffers: 4 Mi characters. */
export const DEFAULT_MAX_SSE_EVENT_CHARS = 4 * 1024 * 1024;

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event` field; absent means the default type, `message`. */
  event?: string;
  /** The `data` fields joined with `\n`. May be empty (a `data:` line with no value). */
  data: string;
  /**
   * The stream's last event id when the event was dispatched (WHATWG `lastEventId`): it
   * persists across events until an `id` field changes it. Absent while empty.
   */
  id?: string;
  /** The reconnection time set by a valid `retry` field in this event's block. */
  retry?: number;
}

/** Options of {@link SseParser}. */
export interface SseParserOptions {
  /** Largest event (data buffer plus unfinished line) accepted, in characters; default 4 Mi. */
  maxEventChars?: number;
  /** The last event id carried over from an earlier connection of the same stream (WHATWG keeps it across reconnections). */
  lastEventId?: string;
}

const LF = 0x0a;
const BOM = '\ufeff';
const DIGITS = /^[0-9]+$/;

/**
 * An incremental `text/event-stream` parser (WHATWG HTML "Server-sent events", §9.2.6
 * "Interpreting an event stream"). Feed it chunks as they arrive; each `push` returns the
 * events completed by that chunk.
 *
 * - Bytes are decoded as UTF-8 with a streaming decoder, so a character split across chunks
 *   is decoded whole; invalid sequences become U+FFFD, as the standard requires.
 * - Lines end with CR, LF or CRLF, also when the CR and the LF arrive in different chunks.
 * - One leading BOM is skipped; comment lines (`:`) and unknown fields are ignored.
 * - `retry` is honoured only when it is all ASCII digits.
 * - An event with no `data` field is not dispatched, but its `id` still becomes the last
 *   event id ({@link lastEventId}); an event cut off by the end of the stream is dropped.
 *
 * Exceeding `maxEventChars` throws a `GantryError` (`GANTRY_ERR_MESSAGE_TOO_LARGE`); the
 * parser is unusable afterwards.
 *
 * @example
 * const parser = new SseParser();
 * for await (const chunk of response.body) for (const event of parser.push(chunk)) handle(event);
 */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private readonly maxEventChars: number;
  /** The unfinished last line. */
  private line = '';
  /** The previous chunk ended with CR: an LF opening the next one belongs to it. */
  private pendingCR = false;
  private started = false;
  private data = '';
  private hasData = false;
  private eventType = '';
  private idBuffer = '';
  private blockRetry?: number;
  private events: SseEvent[] = [];
  private lastId = '';
  private reconnectMs?: number;

  constructor(options: SseParserOptions = {}) {
    this.maxEventChars = options.maxEventChars ?? DEFAULT_MAX_SSE_EVENT_CHARS;
    this.lastId = options.lastEventId ?? '';
    this.idBuffer = this.lastId;
  }

  /** The last event id of the stream (set when an event is dispatched); `''` if none. */
  get lastEventId(): string {
    return this.lastId;
  }

  /** The latest valid `retry` value, in milliseconds, if the stream sent one. */
  get retry(): number | undefined {
    return this.reconnectMs;
  }

  /** Parses the next chunk; returns the events it completed, in order. */
  push(chunk: string | Uint8Array): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    this.feed(text);
    const events = this.events;
    this.events = [];
    return events;
  }

  /**
   * Ends the stream. Undecodable trailing bytes and an event without its closing blank line
   * are discarded (WHATWG: "If the file ends in the middle of an event … the incomplete
   * event is not dispatched").
   */
  end(): void {
    this.decoder.decode();
    this.line = '';
    this.pendingCR = false;
    this.idBuffer = this.lastId;
    this.resetEvent();
  }

  private feed(text: string): void {
    let start = 0;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith(BOM)) start = 1;
    }
    if (this.pendingCR && start < text.length) {
      this.pendingCR = false;
      if (text.charCodeAt(start) === LF) start++;
    }
    // Next CR and LF positions, each searched again only once passed: linear in the chunk.
    let nextCR = text.indexOf('\r', start);
    let nextLF = text.indexOf('\n', start);
    while (nextCR !== -1 || nextLF !== -1) {
      const isCR = nextCR !== -1 && (nextLF === -1 || nextCR < nextLF);
      const position = isCR ? nextCR : nextLF;
      const line = this.line === '' ? text.slice(start, position) : this.line + text.slice(start, position);
      this.line = '';
      this.processLine(line);
      start = position + 1;
      if (isCR) {
        if (start === text.length) this.pendingCR = true;
        else if (nextLF === start) start++;
      }
      if (nextCR !== -1 && nextCR < start) nextCR = text.indexOf('\r', start);
      if (nextLF !== -1 && nextLF < start) nextLF = text.indexOf('\n', start);
    }
    if (start < text.length) this.line += text.slice(start);
    if (this.line.length + this.data.length > this.maxEventChars) {
      throw new GantryError(
        LocalErrorCode.MessageTooLarge,
        `Server-sent event too large: an event may hold at most ${this.maxEventChars} characters; raise maxEventChars if the server sends larger messages`,
      );
    }
  }

  private processLine(line: string): void {
    if (line === '') return this.dispatch();
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'event':
        this.eventType = value;
        return;
      case 'data':
        this.data = this.hasData ? `${this.data}\n${value}` : value;
        this.hasData = true;
        return;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        return;
      case 'retry':
        if (DIGITS.test(value)) {
          this.reconnectMs = Number.parseInt(value, 10);
          this.blockRetry = this.reconnectMs;
        }
        return;
    }
  }

  private dispatch(): void {
    // WHATWG: the last event id is set even when nothing is dispatched.
    this.lastId = this.idBuffer;
    if (this.hasData) {
      const event: SseEvent = { data: this.data };
      if (this.eventType !== '') event.event = this.eventType;
      if (this.lastId !== '') event.id = this.lastId;
      if (this.blockRetry !== undefined) event.retry = this.blockRetry;
      this.events.push(event);
    }
    this.resetEvent();
  }

  private resetEvent(): void {
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.blockRetry = undefined;
    // The id buffer persists between events (WHATWG), so it is not reset here.
  }
}
