import { isUtf8 } from 'node:buffer';
import {
  type AuthInfo,
  classifyMessage,
  ErrorCode,
  isStatelessVersion,
  type JSONRPCMessage,
  principalOf,
  type RequestId,
  STATELESS_PROTOCOL_VERSIONS,
  StatelessMethod,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@gantry/protocol';
import {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  errorCodes as fastifyErrors,
} from 'fastify';
import fp from 'fastify-plugin';
import {
  authenticate,
  endpointUrls,
  InsufficientScopeError,
  insufficientScopeOutcome,
  registerProtectedResourceMetadata,
} from './auth';
import { sendError } from './errors';
import { HttpSession, newId } from './http-session';
import { registerLegacySse } from './legacy-sse';
import type { GantryMcpOptions, ResolvedOptions } from './options';
import { resolveOptions } from './resolve-options';
import { applyCors, hostOriginProblem, preflight } from './security';
import { SessionStore } from './session-store';
import { isStatelessPost, statelessRequestProblem, statelessStatus } from './stateless-http';

/** Versions accepted in `MCP-Protocol-Version` (the pre-release 2024-10-07 included). */
const HEADER_VERSIONS = new Set([
  ...SUPPORTED_PROTOCOL_VERSIONS,
  '2024-10-07',
  ...STATELESS_PROTOCOL_VERSIONS,
]);

/** The HTTP status of a stateless-era answer sent as JSON. */
function statelessAnswerStatus(message: JSONRPCMessage | JSONRPCMessage[]): number {
  const error = (message as { error?: { code?: unknown } }).error;
  return typeof error?.code === 'number' ? statelessStatus(error.code) : 200;
}

const STATELESS_REASON =
  'this server runs stateless HTTP, where each request stands alone and nothing can carry a request to the client and its answer back';

/** 400 for a body that is JSON but not a JSON-RPC message. */
function invalidMessage(
  reply: FastifyReply,
  invalid: { reason: string; id: RequestId | null },
): FastifyReply {
  return sendError(reply, 400, ErrorCode.InvalidRequest, `Invalid request: ${invalid.reason}`, invalid.id);
}

function accepts(request: FastifyRequest, ...types: string[]): boolean {
  const accept = request.headers.accept ?? '';
  // `*/*` accepts everything; SDK clients send both types explicitly.
  return accept.includes('*/*') || types.every((type) => accept.includes(type));
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Headers to copy onto hijacked (SSE) responses: what hooks and CORS set. */
function replyHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) headers[name] = String(value);
  return headers;
}

async function gantryMcpPlugin(fastify: FastifyInstance, raw: GantryMcpOptions): Promise<void> {
  const options = resolveOptions(raw);
  const { app, path } = options;
  app.server.stateless.warnIfKeyIsEphemeral();
  const sessions = new SessionStore(options.idleTimeoutMs);
  /** Open legacy HTTP+SSE connections, once their endpoints are registered below. */
  let legacy: { readonly size: number } = { size: 0 };
  const authByRequest = new WeakMap<FastifyRequest, AuthInfo>();
  const mcpPath = `${fastify.prefix}${path}`;

  // JSON bodies: a parse failure is a JSON-RPC parse error (−32700) with HTTP 400. JSON-RPC
  // messages are UTF-8 (MCP 2025-11-25, Transports; RFC 8259 §8.1): a body that is not is
  // refused, as stdio refuses such a line, rather than decoded with U+FFFD. A DELETE ends the
  // session whatever it carries, so its body is never parsed.
  const parseFailure = (message: string) => {
    const failure = new Error(`Parse error: ${message}`) as Error & { statusCode: number; mcpCode: number };
    failure.statusCode = 400;
    failure.mcpCode = ErrorCode.ParseError;
    return failure;
  };
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    (request, body, done) => {
      if (request.method === 'DELETE') return done(null, undefined);
      const bytes = body as Buffer;
      if (!isUtf8(bytes)) return done(parseFailure('the body is not valid UTF-8'), undefined);
      try {
        done(null, JSON.parse(bytes.toString('utf8')));
      } catch (error) {
        done(parseFailure((error as Error).message), undefined);
      }
    },
  );
  // Any other media type: 415, as Fastify answers by default, except on DELETE (read and dropped).
  fastify.addContentTypeParser('*', (request, payload, done) => {
    if (request.method !== 'DELETE') {
      return done(
        new fastifyErrors.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']),
        undefined,
      );
    }
    payload.on('error', (error) => done(error, undefined));
    payload.on('end', () => done(null, undefined));
    payload.resume();
  });

  fastify.setErrorHandler(
    (error: Error & { statusCode?: number; code?: string; mcpCode?: number }, _request, reply) => {
      if (error.mcpCode !== undefined)
        return sendError(reply, error.statusCode ?? 400, error.mcpCode, error.message);
      switch (error.code) {
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return sendError(
            reply,
            413,
            ErrorCode.InvalidRequest,
            `Request body too large: at most ${options.bodyLimit} bytes`,
          );
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return sendError(
            reply,
            415,
            ErrorCode.InvalidRequest,
            'Unsupported Media Type: send Content-Type: application/json',
          );
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return sendError(reply, 400, ErrorCode.InvalidRequest, 'Invalid request: the body is empty');
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
          return sendError(
            reply,
            400,
            ErrorCode.InvalidRequest,
            'Invalid request: the Content-Length does not match the body',
          );
      }
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) app.logger.error('HTTP request failed:', error);
      // No stack traces in responses.
      return sendError(
        reply,
        status,
        status === 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest,
        status === 500 ? 'Internal error' : error.message,
      );
    },
  );

  // DNS-rebinding protection and CORS first, then authentication (2025-11-25: invalid Origin → 403).
  fastify.addHook('onRequest', async (request, reply) => {
    const problem = hostOriginProblem(request, options, request.url.startsWith('/.well-known/'));
    if (problem) return sendError(reply, 403, -32000, problem);
    applyCors(request, reply, options);
  });

  // RFC 9728 metadata lives at the origin's root, which a prefixed plugin cannot reach: then the
  // app registers `protectedResourceMetadata` at its root (docs/auth.md).
  if (options.auth && fastify.prefix === '') {
    registerProtectedResourceMetadata(fastify, options.auth, mcpPath);
  } else if (options.auth) {
    app.logger.warn(
      `gantryMcp is registered under the prefix ${fastify.prefix}, so it cannot serve the OAuth metadata at the root: ` +
        `register protectedResourceMetadata on the root instance with { auth, mcpPath: '${mcpPath}' }`,
    );
  }

  const authenticated = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    if (!options.auth) return true;
    const outcome = await authenticate(request, options.auth, endpointUrls(request, options.auth, mcpPath));
    if (outcome.ok) {
      authByRequest.set(request, outcome.auth);
      return true;
    }
    for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
    reply.code(outcome.status).header('content-type', 'application/json').send(JSON.stringify(outcome.body));
    return false;
  };

  const sessionOptions = {
    responseMode: options.responseMode,
    eventStore: options.eventStore,
    retryMs: options.retryMs,
    keepAliveMs: options.keepAliveMs,
    maxQueuedBytes: options.maxQueuedBytes,
    onOverflow: (reason: string) => app.logger.warn(reason),
    outboxLimit: 1000,
  };

  /** Stateless-era requests being answered (listen streams among them). */
  const live = new Set<HttpSession>();
  // Stateless era: no event ids, no resumption, nothing kept once the POST is answered.
  const statelessSessionOptions = { ...sessionOptions, eventStore: undefined, outboxLimit: 0 };

  const openSession = async (
    id: string | undefined,
    auth: AuthInfo | undefined,
    stateless = false,
  ): Promise<HttpSession> => {
    const session = new HttpSession(
      id,
      principalOf(auth),
      auth,
      stateless ? statelessSessionOptions : sessionOptions,
    );
    session.server = await app.connect(session, { auth, streams: session });
    return session;
  };

  /** The session a request names, or an error already sent. */
  const findSession = (request: FastifyRequest, reply: FastifyReply): HttpSession | undefined => {
    const id = header(request, 'mcp-session-id');
    if (id === undefined) {
      sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        'Bad Request: the Mcp-Session-Id header is required; send initialize first to get one',
      );
      return undefined;
    }
    const session = sessions.get(id);
    // A token of another principal gets the same answer as an unknown session: nothing leaks.
    if (!session || session.isClosed || session.principal !== principalOf(authByRequest.get(request))) {
      sendError(
        reply,
        404,
        ErrorCode.InvalidRequest,
        'Session not found: it ended or never existed; send initialize to start a new one',
      );
      return undefined;
    }
    return session;
  };

  fastify.options(path, async (request, reply) => preflight(request, reply, options));

  // Authentication and the version header come before the body is read: an unauthenticated
  // client cannot make the server parse anything.
  const gate = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await authenticated(request, reply))) return reply;
    const version = header(request, 'mcp-protocol-version');
    // Any version we do not speak: 400 with −32022 (2026-07-28); session-era clients only need
    // the 400. `data.supported` lists the stateless versions, which a client can simply retry
    // with; the session era is reached through initialize instead.
    if (version !== undefined && !HEADER_VERSIONS.has(version)) {
      return sendError(
        reply,
        400,
        ErrorCode.UnsupportedProtocolVersion,
        `Unsupported protocol version: MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${[...STATELESS_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS].join(', ')}`,
        null,
        { supported: [...STATELESS_PROTOCOL_VERSIONS], requested: version },
      );
    }
  };

  /** Answers an insufficient-scope error with a 403 challenge (when auth is on). */
  const stepUpFor = (request: FastifyRequest, reply: FastifyReply) => {
    const auth = options.auth;
    if (!auth) return undefined;
    return (error: { message: string; data?: unknown }) => {
      const scopes = (error.data as { requiredScopes?: string[] }).requiredScopes ?? [];
      const outcome = insufficientScopeOutcome(
        new InsufficientScopeError(scopes, error.message),
        auth,
        endpointUrls(request, auth, mcpPath),
      );
      for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
      reply
        .code(outcome.status)
        .header('content-type', 'application/json')
        .send(JSON.stringify(outcome.body));
      return true;
    };
  };

  /**
   * A stateless-era POST (2026-07-28): checked against its headers, then served on its own
   * short-lived connection. Closing the response stream cancels the request; `Mcp-Session-Id`
   * and `Last-Event-ID` are ignored.
   */
  const serveStateless = async (request: FastifyRequest, reply: FastifyReply, body: unknown) => {
    const classified = classifyMessage(body);
    if (classified.kind === 'notification') return reply.code(202).send();
    if (classified.kind === 'response') {
      return sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        'Invalid request: clients do not send JSON-RPC responses in 2026-07-28',
      );
    }
    if (classified.kind === 'invalid') return invalidMessage(reply, classified);
    const message = classified.message;
    const problem = statelessRequestProblem(request, message, (name) => app.registry.tools.get(name));
    if (problem)
      return sendError(reply, problem.status, problem.code, problem.message, message.id, problem.data);
    const session = await openSession(undefined, authByRequest.get(request), true);
    live.add(session);
    reply.raw.on('close', () => {
      live.delete(session);
      void session.close();
    });
    session.post(body, [message.id], reply, stepUpFor(request, reply), {
      prime: false,
      statusOf: statelessAnswerStatus,
      // A listen stream is SSE whatever the configured mode: notifications are its point. Other
      // answers become SSE only once a notification precedes them, so that an error that comes
      // first keeps its HTTP status (404, 400).
      responseMode:
        message.method === StatelessMethod.SubscriptionsListen
          ? 'sse'
          : options.responseMode === 'sse'
            ? 'auto'
            : undefined,
    });
    return reply;
  };

  fastify.post(path, { bodyLimit: options.bodyLimit, onRequest: gate }, async (request, reply) => {
    const contentType = header(request, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      return sendError(
        reply,
        415,
        ErrorCode.InvalidRequest,
        'Unsupported Media Type: send Content-Type: application/json',
      );
    }
    if (!accepts(request, 'application/json', 'text/event-stream')) {
      return sendError(
        reply,
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: the Accept header must list application/json and text/event-stream',
      );
    }
    const version = header(request, 'mcp-protocol-version');
    const body = request.body;
    if (isStatelessPost(body, version)) return serveStateless(request, reply, body);
    const batch = Array.isArray(body);
    if (batch && isStatelessVersion(version)) {
      return sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        'Invalid request: 2026-07-28 has no JSON-RPC batches',
      );
    }
    const messages: unknown[] = batch ? body : [body];
    if (batch && messages.length === 0)
      return sendError(reply, 400, ErrorCode.InvalidRequest, 'Invalid request: a batch must not be empty');
    // Classified as the Peer classifies them: it answers every request (unless cancelled) and,
    // in a batch, every invalid entry (JSON-RPC 2.0 §6: id null when it has no usable id).
    const requestIds: RequestId[] = [];
    let answered = false;
    let initialize = false;
    for (const message of messages) {
      const classified = classifyMessage(message);
      if (classified.kind === 'invalid' && !batch) return invalidMessage(reply, classified);
      if (classified.kind === 'invalid') answered = true;
      if (classified.kind === 'request') {
        requestIds.push(classified.message.id);
        if (classified.message.method === 'initialize') initialize = true;
      }
    }
    if (initialize && batch) {
      return sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        'Invalid request: initialize must not be part of a batch',
      );
    }

    let session: HttpSession;
    if (options.mode === 'stateless') {
      session = await openSession(undefined, authByRequest.get(request));
      if (!initialize) session.server?.assumeInitialized(version ?? '2025-03-26', STATELESS_REASON);
      reply.raw.on('close', () => void session.close());
    } else if (initialize) {
      // Legacy HTTP+SSE connections count too (docs/http.md, Sessions).
      if (sessions.size + legacy.size >= options.maxSessions) {
        return sendError(
          reply,
          503,
          ErrorCode.InternalError,
          `Service Unavailable: the server is at its limit of ${options.maxSessions} sessions; try again later`,
        );
      }
      const id = newId();
      session = await openSession(id, authByRequest.get(request));
      sessions.add(id, session);
      reply.header('mcp-session-id', id);
    } else {
      const found = findSession(request, reply);
      if (!found) return reply;
      session = found;
      // Same principal (checked above), but maybe a refreshed or stepped-up token.
      const auth = authByRequest.get(request);
      if (auth && session.server) session.server.auth = auth;
    }
    if (batch && session.server?.behaviourVersion !== '2025-03-26') {
      return sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
      );
    }
    const stream = session.post(body, requestIds, reply, stepUpFor(request, reply), { answered });
    if (!stream) return reply.code(202).send();
    return reply;
  });

  /** Where stateless-era traffic would use a session-era GET or DELETE: 405 (transports.md §4.7). */
  const statelessOnly = (request: FastifyRequest, reply: FastifyReply, what: string) => {
    if (!isStatelessVersion(header(request, 'mcp-protocol-version'))) return undefined;
    return sendError(
      reply,
      405,
      ErrorCode.MethodNotFound,
      `Method Not Allowed: 2026-07-28 has no ${what}; ${what === 'GET stream' ? 'POST subscriptions/listen for notifications' : 'there are no sessions'}`,
    );
  };

  // No automatic HEAD route: a HEAD must not open (and hold) the session's SSE stream.
  fastify.get(path, { onRequest: gate, exposeHeadRoute: false }, async (request, reply) => {
    if (statelessOnly(request, reply, 'GET stream')) return reply;
    if (options.mode === 'stateless') {
      return sendError(
        reply,
        405,
        ErrorCode.MethodNotFound,
        'Method Not Allowed: this endpoint is stateless; there is no GET stream',
      );
    }
    if (!accepts(request, 'text/event-stream')) {
      return sendError(
        reply,
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: the Accept header must list text/event-stream',
      );
    }
    const session = findSession(request, reply);
    if (!session) return reply;
    session.lastSeen = Date.now();
    const lastEventId = header(request, 'last-event-id');
    if (lastEventId !== undefined) {
      if (await session.resume(lastEventId, reply, replyHeaders(reply))) return reply;
      return sendError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId)} is unknown or expired`,
      );
    }
    if (!session.openStandalone(reply, replyHeaders(reply))) {
      return sendError(
        reply,
        409,
        ErrorCode.InvalidRequest,
        'Conflict: this session already has a GET stream open',
      );
    }
    return reply;
  });

  fastify.delete(path, { onRequest: gate }, async (request, reply) => {
    if (statelessOnly(request, reply, 'session to end')) return reply;
    if (options.mode === 'stateless') {
      return sendError(
        reply,
        405,
        ErrorCode.MethodNotFound,
        'Method Not Allowed: this endpoint is stateless; there is no session to end',
      );
    }
    const session = findSession(request, reply);
    if (!session) return reply;
    await session.close();
    return reply.code(200).send();
  });

  if (options.legacySse) {
    legacy = registerLegacySse(
      fastify,
      options as ResolvedOptions & { legacySse: NonNullable<ResolvedOptions['legacySse']> },
      {
        authenticated,
        authOf: (request) => authByRequest.get(request),
        sessions,
      },
    );
  }

  // Before the server waits for in-flight requests: open SSE streams would otherwise hold it.
  fastify.addHook('preClose', async () => {
    // Listen streams end with their final result first (a graceful end, not a disconnect).
    await Promise.all(
      [...live].map(async (session) => {
        if (session.server) await app.server.endSubscriptions(session.server);
        await session.close();
      }),
    );
    await sessions.closeAll();
  });
}

/**
 * Serves a Gantry application over Streamable HTTP (and legacy HTTP+SSE) in a Fastify app.
 * An encapsulated plugin: it respects prefixes, and its hooks and parsers stay inside it.
 *
 * @example
 * ```ts
 * const fastify = Fastify();
 * fastify.get('/health', async () => 'ok');
 * await fastify.register(gantryMcp, { app, path: '/mcp' });
 * await fastify.listen({ host: '127.0.0.1', port: 3000 });
 * ```
 */
export const gantryMcp = fp(gantryMcpPlugin, { name: '@gantry/fastify', fastify: '5.x', encapsulate: true });
