import type { Transport, TransportSink, WireMessage } from './transport';

/**
 * One end of an in-memory pipe. Messages are copied through JSON, as they would be on a wire,
 * and delivered asynchronously, so tests see the same ordering and isolation as a real transport.
 */
export class InMemoryTransport implements Transport {
  private sink?: TransportSink;
  private other?: InMemoryTransport;
  private closed = false;
  /** Messages sent to this end before it started. */
  private queue: unknown[] = [];

  /** Two transports wired to each other: what one sends, the other receives. */
  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.other = b;
    b.other = a;
    return [a, b];
  }

  start(sink: TransportSink): void {
    if (this.sink) throw new Error('InMemoryTransport already started');
    this.sink = sink;
    const queued = this.queue;
    this.queue = [];
    for (const value of queued) sink.message(value);
  }

  send(message: WireMessage): Promise<void> {
    const other = this.other;
    if (this.closed || !other || other.closed)
      return Promise.reject(new Error('InMemoryTransport is closed'));
    const copy: unknown = JSON.parse(JSON.stringify(message));
    queueMicrotask(() => other.deliver(copy));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sink?.closed();
    const other = this.other;
    if (other && !other.closed) queueMicrotask(() => other.close());
  }

  private deliver(value: unknown): void {
    if (this.closed) return;
    if (this.sink) this.sink.message(value);
    else this.queue.push(value);
  }
}
