/** What `node --watch` reported on stdout about the process it runs. */
export type WatchEvent = 'restarting' | 'completed' | 'failed' | 'waiting' | 'restarted';

/**
 * `node --watch` writes its own status lines ("Restarting 'src/main.ts'", "Completed running …")
 * on stdout, which a stdio server shares with the protocol (Node 20 `internal/main/watch_mode`).
 * They start with these words, after an optional screen clear and colour code.
 */
const WATCH_STATUS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape codes are what node writes
  /^(?:\x1bc)?(?:\x1b\[\d+m)?(Restarting '|Completed running '|Failed running '|Waiting for graceful termination\.\.\.|Gracefully restarted ')/;

const EVENTS: Record<string, WatchEvent> = {
  "Restarting '": 'restarting',
  "Completed running '": 'completed',
  "Failed running '": 'failed',
  'Waiting for graceful termination...': 'waiting',
  "Gracefully restarted '": 'restarted',
};

const NEWLINE = 0x0a;

/**
 * Splits the stdout of `node --watch` into the server's lines, passed on byte for byte, and the
 * watcher's status lines, reported as events. Lines are held only until their newline, which
 * ends every message of the stdio transport.
 */
export class WatchOutputFilter {
  private pending: Buffer[] = [];

  constructor(
    private readonly forward: (chunk: Buffer) => void,
    private readonly onEvent: (event: WatchEvent) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1) {
      let line = chunk.subarray(start, newline + 1);
      if (this.pending.length > 0) {
        this.pending.push(line);
        line = Buffer.concat(this.pending);
        this.pending = [];
      }
      this.line(line);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  /** Passes on an unfinished last line when the stream ends. */
  end(): void {
    if (this.pending.length === 0) return;
    const rest = Buffer.concat(this.pending);
    this.pending = [];
    this.forward(rest);
  }

  private line(line: Buffer): void {
    // A protocol message starts with "{": the common case skips the text conversion.
    const match = line[0] === 0x7b ? null : WATCH_STATUS.exec(line.toString('utf8'));
    if (match) this.onEvent(EVENTS[match[1]]);
    else this.forward(line);
  }
}
