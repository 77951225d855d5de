import {
  isObject,
  isRequestId,
  Method,
  type RequestId,
  StatelessMethod,
  type WireMessage,
} from '@gantry/protocol';

type Json = Record<string, unknown>;

/**
 * Counts the requests a transport received and has not answered yet, by id, from what goes
 * through it: a request adds one, its response (or the client's `notifications/cancelled`,
 * after which no response comes, MCP 2025-11-25 Utilities §Cancellation) takes it away. A
 * count per id, since a duplicate id is answered too (with an error).
 *
 * `subscriptions/listen` (2026-07-28) is not counted: it is answered only when the connection
 * ends, so waiting for it would wait for ever.
 */
export class UnansweredRequests {
  private readonly counts = new Map<RequestId, number>();
  private total = 0;
  /** Ids of the batch being delivered: a batch refused as a whole is answered by one error with id null. */
  private batchInDelivery?: RequestId[];

  get size(): number {
    return this.total;
  }

  /** Notes one decoded inbound value; call {@link delivered} once the sink has handled it. */
  received(value: unknown): void {
    if (!Array.isArray(value)) {
      this.receivedOne(value);
      return;
    }
    const ids: RequestId[] = [];
    for (const item of value) {
      const id = this.receivedOne(item);
      if (id !== undefined) ids.push(id);
    }
    this.batchInDelivery = ids;
  }

  delivered(): void {
    this.batchInDelivery = undefined;
  }

  /** Notes one outbound message; returns true if it answered a counted request. */
  sent(message: WireMessage): boolean {
    if (!Array.isArray(message)) return this.sentOne(message);
    let answered = false;
    for (const item of message) answered = this.sentOne(item) || answered;
    return answered;
  }

  private receivedOne(value: unknown): RequestId | undefined {
    if (!isObject(value) || typeof value.method !== 'string') return undefined;
    if (isRequestId(value.id)) {
      if (value.method === StatelessMethod.SubscriptionsListen) return undefined;
      this.counts.set(value.id, (this.counts.get(value.id) ?? 0) + 1);
      this.total++;
      return value.id;
    }
    if (value.method === Method.Cancelled && isObject(value.params) && isRequestId(value.params.requestId)) {
      this.release(value.params.requestId);
    }
    return undefined;
  }

  private sentOne(message: object): boolean {
    const m = message as Json;
    if ('method' in m) return false;
    if (isRequestId(m.id)) return this.release(m.id);
    if (m.id === null && this.batchInDelivery) {
      // The batch was refused as a whole (not 2025-03-26, or empty): none of it runs.
      for (const id of this.batchInDelivery) this.release(id);
      this.batchInDelivery = [];
      return true;
    }
    return false;
  }

  private release(id: RequestId): boolean {
    const count = this.counts.get(id);
    if (count === undefined) return false;
    if (count === 1) this.counts.delete(id);
    else this.counts.set(id, count - 1);
    this.total--;
    return true;
  }
}
