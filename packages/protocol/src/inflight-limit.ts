import { InternalError } from './errors';
import { isObject, isRequestId, type RequestId } from './jsonrpc';
import type { Transport } from './transport';
import { cancelledRequestIdOf } from './types';

/**
 * While the Peer awaits answers to its own requests, it reads up to this many times
 * `maxInflight` messages ahead: an answer may be behind requests that wait for a slot, and the
 * handlers that hold the slots may be the ones awaiting it.
 */
export const READ_AHEAD_WHILE_AWAITING = 16;

/** What the limit needs of its Peer. */
export interface InflightLimitHost {
  /** Handles a value the limit held back, as if it had just arrived. */
  dispatch(value: unknown): void;
  /** True while the Peer awaits answers to requests it sent. */
  awaitingAnswers(): boolean;
}

/** The id of `value` when it is a request (something that will be answered). */
function requestIdOf(value: unknown): RequestId | undefined {
  return isObject(value) && typeof value.method === 'string' && isRequestId(value.id) ? value.id : undefined;
}

/** True for what takes a slot: a request, or a batch holding one. */
function needsSlot(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => requestIdOf(item) !== undefined);
  return requestIdOf(value) !== undefined;
}

function isResponse(value: unknown): boolean {
  return isObject(value) && !('method' in value) && ('result' in value || 'error' in value);
}

/**
 * The in-flight limit of a Peer (`PeerOptions.maxInflight`). A request takes a slot from when
 * its handler starts until its response has been written (the transport's `send` settled) or
 * the other side cancels it (MCP 2025-11-25, Basic / Utilities §Cancellation: no response follows).
 * Writes that wait for a slow reader thus hold slots, so output congestion stops intake too.
 *
 * With every slot taken, on a transport that can pause:
 * - requests are held back in arrival order, and what arrives after them waits behind them;
 *   answers to the Peer's own requests and cancellations never wait (a held request that is
 *   cancelled is dropped, unanswered);
 * - once `maxInflight` messages are held (16 times as many while the Peer awaits an answer,
 *   which may be behind them), the Peer calls `transport.pauseReading()`, and `resumeReading()` when fewer
 *   are held; held messages go on as slots free.
 *
 * On a transport without `pauseReading()`/`resumeReading()` nothing is held: a request that finds every slot
 * taken is answered at once with −32603 naming the limit.
 */
export class InflightLimit {
  private readonly slots = new Set<object>();
  private readonly held: unknown[] = [];
  private transport?: Transport;
  private pausable = false;
  private paused = false;
  private drainScheduled = false;
  private closed = false;

  constructor(
    readonly max: number,
    private readonly host: InflightLimitHost,
  ) {
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new TypeError(`maxInflight must be a whole number ≥ 1 (got ${String(max)})`);
    }
  }

  attach(transport: Transport): void {
    this.transport = transport;
    this.pausable =
      typeof transport.pauseReading === 'function' && typeof transport.resumeReading === 'function';
  }

  /** Requests holding a slot now. */
  get active(): number {
    return this.slots.size;
  }

  /** True when `value` was held back (or dropped, a cancellation of a held request), not to be handled now. */
  hold(value: unknown): boolean {
    if (!this.pausable || this.closed || isResponse(value)) return false;
    const cancelled = cancelledRequestIdOf(value);
    if (cancelled !== undefined) {
      const index = this.held.findIndex((item) => requestIdOf(item) === cancelled);
      if (index === -1) return false;
      this.held.splice(index, 1);
      this.update();
      return true;
    }
    if (this.held.length === 0 && (this.slots.size < this.max || !needsSlot(value))) return false;
    this.held.push(value);
    this.update();
    return true;
  }

  /**
   * Gives `request` (a key) a slot. Returns the error to answer it with when the limit is
   * reached on a transport that cannot pause; a batch let through may exceed the limit.
   */
  acquire(request: object): InternalError | undefined {
    if (!this.pausable && this.slots.size >= this.max) {
      return new InternalError(
        `Too many requests in flight: this server runs at most ${this.max} at once (maxInflight); retry once one is answered`,
        { maxInflight: this.max },
      );
    }
    this.slots.add(request);
    return undefined;
  }

  /** Frees the slot of `request` (answered or cancelled); held messages go on in a microtask. */
  release(request: object): void {
    if (!this.slots.delete(request) || this.held.length === 0 || this.drainScheduled) return;
    this.drainScheduled = true;
    // Not from inside a send or a notification the Peer is still handling.
    queueMicrotask(() => this.drain());
  }

  /** Re-evaluates whether to read: call when the Peer starts or stops awaiting answers. */
  update(): void {
    if (!this.pausable || this.closed) return;
    const readAhead = this.host.awaitingAnswers() ? this.max * READ_AHEAD_WHILE_AWAITING : this.max;
    const pause = this.held.length >= readAhead;
    if (pause === this.paused) return;
    this.paused = pause;
    if (pause) this.transport?.pauseReading?.();
    else this.transport?.resumeReading?.();
  }

  /** The connection closed: forget everything. */
  close(): void {
    this.closed = true;
    this.held.length = 0;
    this.slots.clear();
  }

  private drain(): void {
    this.drainScheduled = false;
    while (!this.closed && this.held.length > 0) {
      if (needsSlot(this.held[0]) && this.slots.size >= this.max) break;
      this.host.dispatch(this.held.shift());
    }
    this.update();
  }
}
