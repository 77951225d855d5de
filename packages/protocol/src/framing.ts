import { isUtf8 } from 'node:buffer';
import { InvalidRequestError, ParseError } from './errors';

/** Default largest line accepted by newline framing: 4 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface LineDecoderEvents {
  /** A decoded JSON value (anything JSON.parse accepts). */
  value(value: unknown): void;
  /** A line that is not valid UTF-8, not JSON, or longer than the limit. */
  invalid(error: ParseError | InvalidRequestError): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Newline-delimited JSON decoding (MCP stdio framing). Lines may arrive split across chunks.
 *
 * A line longer than `maxLineBytes` is dropped up to its newline and reported once as an
 * invalid request; the stream stays usable for the lines after it. Blank lines are ignored.
 */
export class LineDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of an oversized line. */
  private discarding = false;

  constructor(
    private readonly events: LineDecoderEvents,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1) {
      if (this.discarding) {
        this.discarding = false;
      } else if (this.pendingBytes === 0) {
        this.line(chunk, start, newline);
      } else {
        this.pending.push(chunk.subarray(start, newline));
        const whole = Buffer.concat(this.pending, this.pendingBytes + newline - start);
        this.pending = [];
        this.pendingBytes = 0;
        this.line(whole, 0, whole.length);
      }
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length && !this.discarding) {
      const rest = chunk.length - start;
      if (this.pendingBytes + rest > this.maxLineBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        this.discarding = true;
        this.tooLarge();
      } else {
        this.pending.push(chunk.subarray(start));
        this.pendingBytes += rest;
      }
    }
  }

  /** Bytes held for a line whose newline has not arrived yet. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Forgets a partial line, e.g. when the stream ends without a final newline. */
  reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }

  private line(buffer: Buffer, start: number, end: number): void {
    if (end > start && buffer[end - 1] === CARRIAGE_RETURN) end--;
    if (end - start > this.maxLineBytes) return this.tooLarge();
    if (end === start) return;
    const bytes = buffer.subarray(start, end);
    if (!isUtf8(bytes)) {
      this.events.invalid(new ParseError('Parse error: the message is not valid UTF-8'));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      this.events.invalid(new ParseError(`Parse error: ${(error as Error).message}`));
      return;
    }
    this.events.value(value);
  }

  private tooLarge(): void {
    this.events.invalid(
      new InvalidRequestError(`Message too large: a line may hold at most ${this.maxLineBytes} bytes`, {
        maxBytes: this.maxLineBytes,
      }),
    );
  }
}

/** Serializes one message as a line. JSON.stringify escapes newlines inside strings. */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
