import type { Connection } from '@gantry/core';
import {
  type AuthInfo,
  cancelledRequestIdOf,
  classifyMessage,
  ErrorCode,
  isObject,
  isRequestId,
  isStatelessVersion,
  type JSONRPCMessage,
  type JSONRPCRequest,
  principalOf,
  type RequestId,
} from '@gantry/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClusterUnavailableError } from '../cluster/cluster-sessions';
import { sendError } from '../errors';
import { refuseWhileDraining } from '../health';
import { type HttpSession, newId } from '../http-session';
import { authOf } from '../request-auth';
import { accepts, header } from '../request-headers';
import { logSessionOf } from '../request-log';
import { isStatelessPost, statelessRequestProblem } from '../stateless-http';
import { adoptTraceHeaders } from '../trace-headers';
import { transportRateLimit } from '../transport-rate-limit';
import type { EndpointContext } from './context';

/**
 * 429 with `Retry-After: 1` (RFC 9110 §10.2.3; RFC 6585 §4) when the requests of a POST would
 * exceed an in-flight cap, before the engine sees them; undefined when they fit.
 */
function refuseOverCap(
  context: EndpointContext,
  reply: FastifyReply,
  auth: AuthInfo | undefined,
  connection: Connection | undefined,
  requestIds: readonly RequestId[],
): FastifyReply | undefined {
  if (requestIds.length === 0) return undefined;
  const problem = context.host.inflightProblem(auth, connection, requestIds.length);
  if (problem === undefined) return undefined;
  reply.header('retry-after', '1');
  const id = requestIds.length === 1 ? (requestIds[0] as RequestId) : null;
  return sendError(reply, 429, problem.code, problem.message, id, problem.data);
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

/**
 * A stateless-era POST (MCP 2026-07-28, Transports / Streamable HTTP): classified and checked
 * against its headers once, then served as one exchange with the application. `Mcp-Session-Id`
 * and `Last-Event-ID` are ignored.
 */
async function postStateless(
  context: EndpointContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
): Promise<FastifyReply> {
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
  // Each stateless request is new work: while draining it goes to another instance.
  const refused = refuseWhileDraining(context.host, reply);
  if (refused) return refused;
  const message: JSONRPCRequest = classified.message;
  const problem = statelessRequestProblem(request, message, (name) => context.host.findTool(name));
  if (problem)
    return sendError(reply, problem.status, problem.code, problem.message, message.id, problem.data);
  const auth = authOf(request);
  const overCap = refuseOverCap(context, reply, auth, undefined, [message.id]);
  if (overCap) return overCap;
  await context.exchanges.serve(message, reply, auth, context.stepUpFor(request, reply), request.ip);
  return reply;
}

/**
 * What a POST step returns: undefined when it is done with the reply (an answer sent, or a
 * stream that sends one later), or a promise of the reply when it had to wait (opening a
 * session, a clustered lookup). Fastify waits on that promise, and through the reply's own
 * `then` until the response ends; the common case, a request on a session this node holds,
 * stays synchronous, since every promise is work again for an OpenTelemetry SDK's
 * async-hooks context manager.
 */
type Posted = undefined | Promise<FastifyReply>;

/** A session-era POST: one message or a 2025-03-26 batch, on a session or (stateless mode) alone. */
function postSession(
  context: EndpointContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
): Posted {
  const version = header(request, 'mcp-protocol-version');
  const batch = Array.isArray(body);
  if (batch && isStatelessVersion(version)) {
    sendError(reply, 400, ErrorCode.InvalidRequest, 'Invalid request: 2026-07-28 has no JSON-RPC batches');
    return undefined;
  }
  const messages: unknown[] = batch ? body : [body];
  if (batch && messages.length === 0) {
    sendError(reply, 400, ErrorCode.InvalidRequest, 'Invalid request: a batch must not be empty');
    return undefined;
  }
  // Classified as the Peer classifies them: it answers every request (unless cancelled) and,
  // in a batch, every invalid entry (JSON-RPC 2.0 §6: id null when it has no usable id).
  const requestIds: RequestId[] = [];
  let answered = false;
  let initialize = false;
  for (const message of messages) {
    const classified = classifyMessage(message);
    if (classified.kind === 'invalid' && !batch) {
      invalidMessage(reply, classified);
      return undefined;
    }
    if (classified.kind === 'invalid') answered = true;
    if (classified.kind === 'request') {
      requestIds.push(classified.message.id);
      if (classified.message.method === 'initialize') initialize = true;
    }
  }
  if (initialize && batch) {
    sendError(
      reply,
      400,
      ErrorCode.InvalidRequest,
      'Invalid request: initialize must not be part of a batch',
    );
    return undefined;
  }
  const post: SessionPost = { body, messages, requestIds, answered, batch, initialize, version };
  if (initialize || context.options.mode === 'stateless') return openAndPost(context, request, reply, post);

  const found = context.findSession(request, reply);
  if (found instanceof Promise) {
    return found.then((session) => {
      if (session) postOnSession(context, request, reply, session, post);
      return reply;
    });
  }
  if (found) postOnSession(context, request, reply, found, post);
  return undefined;
}

/** A classified session-era POST. */
interface SessionPost {
  readonly body: unknown;
  readonly messages: readonly unknown[];
  readonly requestIds: readonly RequestId[];
  /** The server answers something besides requests (a batch's invalid entries). */
  readonly answered: boolean;
  readonly batch: boolean;
  readonly initialize: boolean;
  /** The `Mcp-Protocol-Version` header. */
  readonly version: string | undefined;
}

/** `initialize`, or any POST in stateless mode: a new session (or one-POST connection) first. */
async function openAndPost(
  context: EndpointContext,
  request: FastifyRequest,
  reply: FastifyReply,
  post: SessionPost,
): Promise<FastifyReply> {
  const { options } = context;
  // New sessions (and stateless mode's one-POST connections) are refused while draining;
  // requests on open sessions are served until the shutdown grace ends.
  const refused = refuseWhileDraining(context.host, reply);
  if (refused) return refused;
  // No session yet: the principal's cap, before one is opened for nothing.
  const overCap = refuseOverCap(context, reply, authOf(request), undefined, post.requestIds);
  if (overCap) return overCap;
  let session: HttpSession;
  if (options.mode === 'stateless') {
    // Each POST stands alone: a connection of its own that needs no initialize.
    session = await context.openSession(
      undefined,
      authOf(request),
      post.initialize
        ? 'session'
        : { sessionless: { protocolVersion: post.version ?? '2025-03-26', reason: STATELESS_REASON } },
    );
    reply.raw.on('close', () => void session.close());
  } else if (context.cluster) {
    const opened = await openClusterSession(context, request, reply);
    if (!opened) return reply;
    session = opened;
  } else {
    // Legacy HTTP+SSE connections count too (the `sessions.max` option).
    if (context.sessions.size + context.legacy.size >= options.maxSessions) return atLimit(context, reply);
    const id = newId();
    session = await context.openSession(id, authOf(request), 'session');
    context.sessions.add(id, session);
    reply.header('mcp-session-id', id);
    logSessionOf(request, reply, id);
  }
  deliver(context, request, reply, session, post);
  return reply;
}

/** A POST on a session found by its `Mcp-Session-Id`. */
function postOnSession(
  context: EndpointContext,
  request: FastifyRequest,
  reply: FastifyReply,
  session: HttpSession,
  post: SessionPost,
): void {
  // Same principal (checked by the lookup), but maybe a refreshed or stepped-up token.
  const auth = authOf(request);
  if (auth && session.connection) session.connection.auth = auth;
  // A clustered session may run elsewhere; this node counts what it runs itself.
  if (refuseOverCap(context, reply, auth, session.connection, post.requestIds)) return;
  deliver(context, request, reply, session, post);
}

/** Hands the POST to its session, which answers on `reply` (or 202 when nothing needs an answer). */
function deliver(
  context: EndpointContext,
  request: FastifyRequest,
  reply: FastifyReply,
  session: HttpSession,
  post: SessionPost,
): void {
  // `request.ip`: the socket's address, or the client's with Fastify's `trustProxy` behind a proxy.
  if (session.connection) session.connection.remoteAddress = request.ip;
  if (post.batch && session.connection?.behaviourVersion !== '2025-03-26') {
    sendError(
      reply,
      400,
      ErrorCode.InvalidRequest,
      'Invalid request: JSON-RPC batches are only accepted in sessions that negotiated protocol version 2025-03-26',
    );
    return;
  }
  if (session.clustered && routedElsewhere(context, session, post.messages)) {
    reply.code(202).send();
    return;
  }
  if (post.initialize && context.options.mode !== 'stateless') endIfNotInitialized(context, session, reply);
  const stream = session.post(post.body, post.requestIds, reply, {
    stepUp: context.stepUpFor(request, reply),
    answered: post.answered,
  });
  if (!stream) reply.code(202).send();
}

/**
 * A session exists to carry what its `initialize` negotiated: when that answer was an error, the
 * session it opened ends once the answer is written, so a client that keeps failing fills no
 * slots (`sessions.max`) and its id answers 404 like any ended session.
 */
function endIfNotInitialized(context: EndpointContext, session: HttpSession, reply: FastifyReply): void {
  reply.raw.once('close', () => {
    if (session.connection?.behaviourVersion !== '') return;
    const ended = context.cluster ? context.cluster.end(session) : session.close();
    ended.catch(() => undefined);
  });
}

/** 503 for a full cluster, as for a full node (the `sessions.max` option holds cluster-wide). */
function atLimit(context: EndpointContext, reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    503,
    ErrorCode.InternalError,
    `Service Unavailable: the server is at its limit of ${context.options.maxSessions} sessions; try again later`,
  );
}

/** A new cluster-wide session for `initialize`, or an error already sent. */
async function openClusterSession(
  context: EndpointContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<HttpSession | undefined> {
  const cluster = context.cluster as NonNullable<EndpointContext['cluster']>;
  let session: HttpSession | undefined;
  try {
    session = await cluster.create(authOf(request), principalOf(authOf(request)));
  } catch (error) {
    if (error instanceof ClusterUnavailableError) {
      context.unavailable(reply, error);
      return undefined;
    }
    throw error;
  }
  if (!session) {
    atLimit(context, reply);
    return undefined;
  }
  reply.header('mcp-session-id', session.id);
  logSessionOf(request, reply, session.id);
  return session;
}

/**
 * In a cluster, client messages another node must handle go through the bus: the answer to a
 * request a node sent (its id names that node, `n:<node>:<seq>`), and cancellations, which
 * every node hears (the request may run anywhere). True when nothing is left for this node.
 */
function routedElsewhere(
  context: EndpointContext,
  session: HttpSession,
  messages: readonly unknown[],
): boolean {
  const link = context.host.cluster?.link;
  if (!link || session.id === undefined) return false;
  let local = false;
  for (const message of messages) {
    const id = (message as { id?: unknown }).id;
    const isAnswer = message !== null && typeof message === 'object' && !('method' in message);
    const node =
      isAnswer && typeof id === 'string' && id.startsWith('n:') ? id.slice(2, id.indexOf(':', 2)) : undefined;
    if (node !== undefined && node !== link.nodeId) {
      void link
        .publish({
          kind: 'client-message',
          sessionId: session.id,
          nodeId: node,
          message: message as JSONRPCMessage,
        })
        .catch((error) => context.host.logger.warn('An answer for another node was not forwarded:', error));
      continue;
    }
    local = true;
    if (cancelledRequestIdOf(message) !== undefined) {
      void link
        .publish({ kind: 'client-message', sessionId: session.id, message: message as JSONRPCMessage })
        .catch((error) => context.host.logger.warn('A cancellation was not forwarded:', error));
    }
  }
  return !local;
}

/** The id of a single JSON-RPC request (null for anything else), to answer an early error under. */
function requestIdOf(body: unknown): RequestId | null {
  return isObject(body) && isRequestId(body.id) ? body.id : null;
}

/** `POST <path>`: every client message, of either era. */
export function registerPost(fastify: FastifyInstance, context: EndpointContext): void {
  const { options } = context;
  // After authentication (the gate), before the body is read.
  const onRequest = options.rateLimit
    ? [context.gate, transportRateLimit(context.host, options.rateLimit)]
    : context.gate;
  // Not an async handler: see `Posted`. A step that sent its answer returns undefined, never
  // the reply (Fastify would send that again and log it).
  fastify.post(options.path, { bodyLimit: options.bodyLimit, onRequest }, (request, reply): Posted => {
    const contentType = header(request, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      sendError(
        reply,
        415,
        ErrorCode.InvalidRequest,
        'Unsupported Media Type: send Content-Type: application/json',
      );
      return undefined;
    }
    if (!accepts(request, 'application/json', 'text/event-stream')) {
      sendError(
        reply,
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: the Accept header must list application/json and text/event-stream',
      );
      return undefined;
    }
    const body = request.body;
    if (context.refusedVersion(request, reply, requestIdOf(body))) return undefined;
    adoptTraceHeaders(body, request.headers);
    if (isStatelessPost(body, header(request, 'mcp-protocol-version')))
      return postStateless(context, request, reply, body);
    return postSession(context, request, reply, body);
  });
}
