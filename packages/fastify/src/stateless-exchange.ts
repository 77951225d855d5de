import type { ConnectionHost, Exchange } from '@gantry/core';
import { type AuthInfo, ConnectionClosedError, type JSONRPCRequest, StatelessMethod } from '@gantry/protocol';
import type { FastifyReply } from 'fastify';
import { newId } from './http-session';
import { RequestStream, type ResponseMode } from './request-stream';
import type { SseWriterOptions } from './sse-writer';
import { statelessAnswerStatus } from './stateless-http';
import { HTTP_TRANSPORT } from './trace-headers';

interface LiveExchange {
  readonly exchange: Exchange;
  /** Aborts the handler and ends the answer (client gone, or the app closing). */
  end(): void;
}

/**
 * Stateless-era requests being answered (MCP 2026-07-28, Transports / Streamable HTTP): each
 * POST is one single-use exchange with the application — no session, no connection — answered
 * as JSON, or as an SSE stream once the handler sends notifications first.
 */
export class StatelessExchanges {
  private readonly live = new Set<LiveExchange>();

  constructor(
    private readonly host: ConnectionHost,
    private readonly options: { readonly responseMode: ResponseMode; readonly sse: SseWriterOptions },
  ) {}

  /**
   * Serves `request` (classified, and its headers checked against it) and answers it on
   * `reply`. Closing the response stream cancels the request.
   */
  async serve(
    request: JSONRPCRequest,
    reply: FastifyReply,
    auth: AuthInfo | undefined,
    stepUp?: (error: { message: string; data?: unknown }) => boolean,
    remoteAddress?: string,
  ): Promise<void> {
    const stream = new RequestStream({
      reply,
      ids: [request.id],
      mode: this.modeOf(request),
      sse: this.options.sse,
      prime: false,
      statusOf: (answer) => statelessAnswerStatus(answer, request),
      stepUp,
      newStreamId: () => newId(9),
    });
    let cancel: ((reason?: unknown) => void) | undefined;
    const exchange: Exchange = {
      auth,
      transport: HTTP_TRANSPORT,
      remoteAddress,
      bindCancel: (cancelExchange) => {
        cancel = cancelExchange;
      },
      // In `json` mode a notification has nowhere to go: it is dropped.
      notify: (notification) => stream.related(notification),
    };
    let done = false;
    const live: LiveExchange = {
      exchange,
      end: () => {
        this.live.delete(live);
        if (!done)
          cancel?.(new ConnectionClosedError('Connection closed: the HTTP exchange ended before its answer'));
        stream.abort();
      },
    };
    this.live.add(live);
    reply.raw.on('close', live.end);
    const response = await this.host.exchange(request, exchange);
    done = true;
    if (response) stream.respond(request.id, response);
  }

  /** Ends listen streams with their final result, then every exchange still open. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.live].map(async (live) => {
        await this.host.endSubscriptions(live.exchange);
        live.end();
      }),
    );
  }

  private modeOf(request: JSONRPCRequest): ResponseMode {
    // A listen stream is SSE whatever the configured mode: notifications are its point. Other
    // answers become SSE only once a notification precedes them, so that an error that comes
    // first keeps its HTTP status (404, 400).
    if (request.method === StatelessMethod.SubscriptionsListen) return 'sse';
    return this.options.responseMode === 'sse' ? 'auto' : this.options.responseMode;
  }
}
