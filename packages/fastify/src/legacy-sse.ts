import {
  type AuthInfo,
  ErrorCode,
  principalOf,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors';
import { newId } from './http-session';
import type { ResolvedOptions } from './options';
import type { SessionStore } from './session-store';
import { SSE_HEADERS, SseWriter } from './sse-writer';

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
  authenticated(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  authOf(request: FastifyRequest): AuthInfo | undefined;
  sessions: SessionStore;
}

/**
 * `GET <ssePath>` opens a legacy session; `POST <messagesPath>?sessionId=…` carries client messages.
 * Returns the count of open connections, which `sessions.max` counts with the Streamable HTTP sessions.
 */
export function registerLegacySse(
  fastify: FastifyInstance,
  options: ResolvedOptions & { legacySse: NonNullable<ResolvedOptions['legacySse']> },
  deps: LegacyDeps,
): { readonly size: number } {
  const { ssePath, messagesPath } = options.legacySse;
  const live = new Map<string, LegacySseSession>();

  const gate = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await deps.authenticated(request, reply))) return reply;
  };

  fastify.get(ssePath, { onRequest: gate, exposeHeadRoute: false }, async (request, reply) => {
    if (live.size + deps.sessions.size >= options.maxSessions) {
      return sendError(
        reply,
        503,
        ErrorCode.InternalError,
        `Service Unavailable: the server is at its limit of ${options.maxSessions} sessions`,
      );
    }
    const id = newId();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) headers[name] = String(value);
    reply.hijack();
    reply.raw.writeHead(200, { ...headers, ...SSE_HEADERS });
    const writer = new SseWriter(id, {
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      maxQueuedBytes: options.maxQueuedBytes,
      onOverflow: (reason) => options.app.logger.warn(reason),
      eventName: 'message',
    });
    writer.attach(reply.raw, false);
    const auth = deps.authOf(request);
    const session = new LegacySseSession(id, principalOf(auth), writer);
    live.set(id, session);
    // The 2024-11-05 transport: the first event names the URI to POST to.
    writer.raw(`event: endpoint\ndata: ${fastify.prefix}${messagesPath}?sessionId=${id}\n\n`);
    const server = await options.app.connect(session, { auth });
    reply.raw.on('close', () => {
      live.delete(id);
      void server.close();
    });
    return reply;
  });

  fastify.addHook('preClose', async () => {
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
    const session = live.get(id);
    if (!session || session.isClosed || session.principal !== principalOf(deps.authOf(request))) {
      return sendError(
        reply,
        404,
        ErrorCode.InvalidRequest,
        'Session not found: open a new one with GET on the SSE endpoint',
      );
    }
    session.deliver(request.body);
    return reply.code(202).header('content-type', 'text/plain').send('Accepted');
  });

  return {
    get size() {
      return live.size;
    },
  };
}
