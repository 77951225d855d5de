/** Lines given in one tick: written with one `write` call, settled by one promise. */
class Batch {
  readonly lines: string[] = [];
  /** Bytes of the lines, counted only while the output pushes back (the queue that is bounded). */
  bytes = 0;
  private promise?: Promise<void>;
  private resolvePromise?: () => void;

  /** The promise every line of this batch returns; created on first need. */
  get settled(): Promise<void> {
    this.promise ??= new Promise<void>((resolve) => {
      this.resolvePromise = resolve;
    });
    return this.promise;
  }

  settle(): void {
    this.resolvePromise?.();
  }
}

export interface LineWriterEvents {
  /** The output pushed back (true) or drained (false): the transport pauses its input meanwhile. */
  congestion(congested: boolean): void;
  /** More than `maxQueuedBytes` would wait for the output: the client is not reading. */
  overflow(queuedBytes: number): void;
  /** Everything given so far has been handed to the operating system. */
  idle(): void;
}

/**
 * Writes lines to a stream with backpressure. Lines given in the same tick are joined into one
 * `write` call. The promise `write` returns settles once its line was handed to the stream
 * and the stream did not push back, or else on the stream's `drain`: a handler that awaits its
 * sends (`ctx.log`, `ctx.progress`) waits for a client that reads slowly. While the stream
 * pushes back, later lines wait here, up to `maxQueuedBytes`; one more is an overflow.
 *
 * Promises still pending when the writer is closed settle too (their lines are dropped), as a
 * cancelled request's notifications are: the connection's end reaches handlers through their
 * abort signal, not through every send.
 */
export class LineWriter {
  private batch = new Batch();
  /** The batch whose `write` returned false; it settles on `drain`. */
  private awaitingDrain?: Batch;
  private flushScheduled = false;
  /** `write` calls whose callback has not run yet. */
  private writing = 0;
  private closed = false;
  private readonly onDrain = () => this.drained();
  private readonly onWritten = () => {
    this.writing--;
    this.checkIdle();
  };

  constructor(
    private readonly output: NodeJS.WritableStream,
    private readonly rawWrite: (chunk: string, callback: () => void) => boolean,
    private readonly maxQueuedBytes: number,
    private readonly events: LineWriterEvents,
  ) {
    output.on('drain', this.onDrain);
  }

  /** True when nothing waits here and every `write` call has completed. */
  get isIdle(): boolean {
    return this.batch.lines.length === 0 && this.awaitingDrain === undefined && this.writing === 0;
  }

  /** Queues one line (with its newline); see the class comment for when the promise settles. */
  write(line: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const batch = this.batch;
    if (this.awaitingDrain) {
      const bytes = Buffer.byteLength(line);
      if (batch.bytes + bytes > this.maxQueuedBytes) {
        this.events.overflow(batch.bytes + bytes);
        return Promise.resolve();
      }
      batch.bytes += bytes;
    } else if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flush);
    }
    batch.lines.push(line);
    return batch.settled;
  }

  /** Writes what is queued now, whether or not the stream pushes back (closing). */
  flushNow(): void {
    const batch = this.batch;
    if (batch.lines.length === 0) return;
    this.batch = new Batch();
    this.writeBatch(batch);
  }

  /** Stops writing. `drop` forgets what is queued; otherwise it is handed to the stream first. */
  close(drop: boolean): void {
    if (this.closed) return;
    if (!drop) this.flushNow();
    this.closed = true;
    this.output.off('drain', this.onDrain);
    this.awaitingDrain?.settle();
    this.awaitingDrain = undefined;
    this.batch.settle();
    this.batch = new Batch();
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.closed || this.awaitingDrain) return;
    this.flushNow();
  };

  private writeBatch(batch: Batch): void {
    const lines = batch.lines;
    this.writing++;
    const accepted = this.rawWrite(lines.length === 1 ? lines[0] : lines.join(''), this.onWritten);
    if (accepted || this.closed) {
      batch.settle();
      return;
    }
    // The stream holds more than its high-water mark: wait for the client to read.
    this.awaitingDrain = batch;
    this.events.congestion(true);
  }

  private drained(): void {
    const batch = this.awaitingDrain;
    if (!batch || this.closed) return;
    this.awaitingDrain = undefined;
    batch.settle();
    this.flushNow();
    if (!this.awaitingDrain) this.events.congestion(false);
    this.checkIdle();
  }

  private checkIdle(): void {
    if (!this.closed && this.isIdle) this.events.idle();
  }
}
