import type { ServerResponse } from 'node:http';
import type { ClusterEventStore, StreamFollower } from '@gantry/core';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@gantry/protocol';
import type { FastifyReply } from 'fastify';
import { openSseResponse, sseComment, sseEvent } from '../sse-writer';

export interface StreamRelayOptions {
  readonly retryMs: number;
  readonly keepAliveMs: number;
  /** Bytes the connection may hold unsent before it is closed (the client resumes later). */
  readonly maxQueuedBytes: number;
  readonly onOverflow?: (reason: string) => void;
}

/**
 * One SSE connection that carries a stream kept in the cluster's event store: what another
 * node writes (a resumed POST stream), or what every node writes (a session's GET stream). The
 * events arrive from the store in stream order, each once, so a connection dropped at any
 * moment resumes with `Last-Event-ID` on any node without loss or duplicates (MCP 2025-11-25,
 * Basic › Transports › Streamable HTTP §Resumability and Redelivery).
 */
export class StreamRelay {
  private follower?: StreamFollower;
  private keepAlive?: NodeJS.Timeout;
  private done = false;
  private readonly closeListeners = new Set<() => void>();
  /** The SSE response, once the stream was found; chunks before that wait in `early`. */
  private response?: ServerResponse;
  private early: string[] = [];

  constructor(
    private readonly reply: FastifyReply,
    private readonly options: StreamRelayOptions,
  ) {
    reply.raw.on('close', () => this.finish());
  }

  /** True until the connection ends. */
  get isOpen(): boolean {
    return !this.done;
  }

  /**
   * Follows the stream after `lastEventId` and relays it. `prime`: first an event carrying that
   * id and no data, so a client that connected without `Last-Event-ID` has an id to resume from.
   * False when the id is unknown or expired (nothing was written).
   */
  async start(events: ClusterEventStore, lastEventId: string, prime: boolean): Promise<boolean> {
    // Before anything follows it: the follower may deliver events before `follow` resolves.
    if (prime) this.write(sseEvent({ id: lastEventId, retry: this.options.retryMs, data: '' }));
    const follower = await events.follow(lastEventId, {
      event: (id, message) => this.write(sseEvent({ id, data: JSON.stringify(message) })),
      end: () => this.finish(),
      lost: (requestIds, reason) => this.lost(requestIds, reason),
    });
    if (!follower) {
      // Nothing was written: the route still answers this request (400, unknown id).
      this.done = true;
      this.early = [];
      return false;
    }
    this.open();
    if (this.done) {
      follower.stop();
      this.finish(true);
      return true;
    }
    this.follower = follower;
    if (this.options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.write(sseComment('keep-alive')), this.options.keepAliveMs);
      this.keepAlive.unref();
    }
    return true;
  }

  /** Calls `listener` once the connection ends. */
  onClose(listener: () => void): void {
    if (this.done) listener();
    else this.closeListeners.add(listener);
  }

  /** Ends the connection (not the stream: it may be resumed again). */
  close(): void {
    this.finish();
  }

  /** Turns the reply into the SSE response and writes what arrived before. */
  private open(): void {
    const response = openSseResponse(this.reply);
    this.response = response;
    const early = this.early;
    this.early = [];
    for (const chunk of early) this.write(chunk);
  }

  private write(chunk: string): void {
    const response = this.response;
    if (!response) {
      if (!this.done) this.early.push(chunk);
      return;
    }
    if (response.writableEnded || response.destroyed) return;
    if (response.writableLength + chunk.length > this.options.maxQueuedBytes) {
      this.options.onOverflow?.(
        `SSE connection closed: the client is not reading (more than ${this.options.maxQueuedBytes} bytes queued; the maxQueuedBytes option sets the limit); it may resume with Last-Event-ID`,
      );
      response.destroy();
      this.finish();
      return;
    }
    response.write(chunk);
  }

  /** The node answering these requests died: they end with an error instead of never. */
  private lost(requestIds: readonly RequestId[], reason: string): void {
    for (const id of requestIds) {
      const error: JSONRPCMessage = {
        jsonrpc: '2.0',
        id,
        error: {
          code: ErrorCode.InternalError,
          message: `Internal error: ${reason}; send the request again`,
        },
      };
      this.write(sseEvent({ data: JSON.stringify(error) }));
    }
    this.finish();
  }

  private finish(force = false): void {
    if (this.done && !force) return;
    this.done = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.follower?.stop();
    const response = this.response;
    if (response && !response.writableEnded && !response.destroyed) response.end();
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
  }
}
