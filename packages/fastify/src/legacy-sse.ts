import {
  ErrorCode,
  type JSONRPCMessage,
  principalOf,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors';
import { refuseWhileDraining } from './health';
import { newId } from './http-session';
import type { ResolvedOptions } from './options';
import { authOf } from './request-auth';
import { logSessionOf } from './request-log';
import type { SessionStore } from './session-store';
import { openSseResponse, SseWriter, sseEvent } from './sse-writer';
import { adoptTraceHeaders, httpTransport } from './trace-headers';

/**
 * One 2024-11-05 HTTP+SSE connection: everything the server sends travels as `message`
 * events on the GET stream; the client POSTs to the endpoint it was given.
 */
class LegacySseSession implements Transport {
  private sink?: TransportSink;
  private closed = false;

  constructor(
    readonly id: string,
    readonly principal: string | undefined,
    private readonly writer: SseWriter,
  ) {}

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  deliver(value: unknown): void {
    this.sink?.message(value);
  }

  send(message: WireMessage): Promise<void> {
    return this.writer.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.end();
    this.sink?.closed();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

interface LegacyDeps {
  /** Verifies the bearer token (when auth is on); false when a challenge was sent instead. */
  readonly authenticated: (request: FastifyRequest, reply: FastifyReply) => boolean | Promise<boolean>;
  /** The Streamable HTTP sessions, counted with these against `sessions.max`. */
  readonly sessions: SessionStore;
}

/**
 * `GET <ssePath>` opens a legacy session; `POST <messagesPath>?sessionId=…` carries client messages.
 * Returns the count of open connections, which `sessions.max` counts with the Streamable HTTP sessions.
 */
export function registerLegacySse(
  fastify: FastifyInstance,
  options: ResolvedOptions,
  paths: { readonly ssePath: string; readonly messagesPath: string },
  deps: LegacyDeps,
): { readonly size: number } {
  const { ssePath, messagesPath } = paths;
  const host = options.host;
  const live = new Map<string, LegacySseSession>();

  const gate = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await deps.authenticated(request, reply))) return reply;
  };

  fastify.get(ssePath, { onRequest: gate, exposeHeadRoute: false }, async (request, reply) => {
    // A legacy GET opens a session: refused while draining, as initialize is.
    const refused = refuseWhileDraining(host, reply);
    if (refused) return refused;
    if (live.size + deps.sessions.size >= options.maxSessions) {
      return sendError(
        reply,
        503,
        ErrorCode.InternalError,
        `Service Unavailable: the server is at its limit of ${options.maxSessions} sessions`,
      );
    }
    const id = newId();
    logSessionOf(request, reply, id);
    const response = openSseResponse(reply);
    const writer = new SseWriter(id, {
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      maxQueuedBytes: options.maxQueuedBytes,
      onOverflow: (reason) => host.logger.warn(reason),
      eventName: 'message',
      streams: host.telemetry,
    });
    writer.attach(response, false);
    const auth = authOf(request);
    const session = new LegacySseSession(id, principalOf(auth), writer);
    live.set(id, session);
    // The 2024-11-05 transport: the first event names the URI to POST to.
    writer.raw(sseEvent({ event: 'endpoint', data: `${fastify.prefix}${messagesPath}?sessionId=${id}` }));
    const connection = await host.connect(session, { auth, transport: httpTransport(id) });
    response.on('close', () => {
      live.delete(id);
      void connection.close();
    });
    return reply;
  });

  // In a cluster, a POST may reach a node other than the one holding the GET stream: that node
  // forwards it on the cluster bus, and the node holding the session delivers it (below).
  const cluster = host.cluster;
  const unsubscribe = cluster?.onMessage((message) => {
    if (message.kind !== 'client-message' || message.nodeId !== undefined) return;
    const session = live.get(message.sessionId);
    if (!session || session.isClosed || session.principal !== message.principal) return;
    session.deliver(message.message);
  });

  fastify.addHook('preClose', async () => {
    unsubscribe?.();
    await Promise.all([...live.values()].map((session) => session.close()));
  });

  fastify.post(messagesPath, { bodyLimit: options.bodyLimit, onRequest: gate }, async (request, reply) => {
    const id = (request.query as { sessionId?: unknown }).sessionId;
    if (typeof id !== 'string') {
      return sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        'Bad Request: the sessionId query parameter is required',
      );
    }
    logSessionOf(request, reply, id);
    const session = live.get(id);
    const principal = principalOf(authOf(request));
    if (!session && cluster) {
      // Not held here: the node holding it (if any) delivers it. This node cannot tell an
      // unknown id from one held elsewhere without asking every node, so it accepts both; the
      // 2024-11-05 transport answers on the SSE stream, never in this response.
      try {
        await cluster.link.publish({
          kind: 'client-message',
          sessionId: id,
          principal,
          message: request.body as JSONRPCMessage,
        });
      } catch (error) {
        host.logger.warn('A legacy SSE message for another node was not forwarded:', error);
        return sendError(
          reply,
          503,
          ErrorCode.InternalError,
          'Service Unavailable: the cluster backend is unreachable, so the message cannot reach its session',
        );
      }
      return reply.code(202).header('content-type', 'text/plain').send('Accepted');
    }
    if (!session || session.isClosed || session.principal !== principal) {
      return sendError(
        reply,
        404,
        ErrorCode.InvalidRequest,
        'Session not found: open a new one with GET on the SSE endpoint',
      );
    }
    adoptTraceHeaders(request.body, request.headers);
    session.deliver(request.body);
    return reply.code(202).header('content-type', 'text/plain').send('Accepted');
  });

  return {
    get size() {
      return live.size;
    },
  };
}
