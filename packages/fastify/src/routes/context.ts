import type { ApiKeyAuth, ConnectionHost, ConnectionMode } from '@gantry/core';
import { type AuthInfo, ErrorCode, isStatelessVersion, principalOf, type RequestId } from '@gantry/protocol';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import {
  type AuthOptions,
  authenticate,
  endpointUrls,
  InsufficientScopeError,
  insufficientScopeOutcome,
} from '../auth';
import { ClusterSessions, ClusterUnavailableError } from '../cluster/cluster-sessions';
import { sendError } from '../errors';
import { InMemoryEventStore } from '../event-store';
import { HttpSession, type HttpSessionOptions } from '../http-session';
import type { ResolvedOptions } from '../options';
import { authOf, setAuth } from '../request-auth';
import { header } from '../request-headers';
import { logSessionOf } from '../request-log';
import { SessionStore } from '../session-store';
import { StatelessExchanges } from '../stateless-exchange';
import { httpTransport } from '../trace-headers';
import { unsupportedVersionHeader } from '../version-header';

/** Answers an insufficient-scope error with an HTTP challenge; true when it did. */
export type StepUp = (error: { message: string; data?: unknown }) => boolean;

/**
 * What the MCP endpoint's routes share: the options, the application's `ConnectionHost`, the
 * open sessions and stateless exchanges, and the checks every route makes first.
 */
export class EndpointContext {
  readonly sessions: SessionStore;
  /** Set when the app has a cluster: the session era's sessions live in it. */
  readonly cluster?: ClusterSessions;
  readonly exchanges: StatelessExchanges;
  /** Open legacy HTTP+SSE connections, once their endpoints are registered. */
  legacy: { readonly size: number } = { size: 0 };
  private readonly sessionOptions: HttpSessionOptions;

  constructor(
    readonly options: ResolvedOptions,
    readonly host: ConnectionHost,
    /** The endpoint's full path, prefix included. */
    readonly mcpPath: string,
  ) {
    this.sessions = new SessionStore(options.idleTimeoutMs);
    const cluster = options.mode === 'stateless' ? undefined : host.cluster;
    // A cluster's streams live in its store: every node must read what any node wrote.
    if (cluster && !(options.eventStore instanceof InMemoryEventStore)) {
      host.logger.warn(
        "gantryMcp: the eventStore option is ignored in a cluster: streams live in the cluster link's store, which every node reads",
      );
    }
    this.sessionOptions = {
      responseMode: options.responseMode,
      eventStore: cluster ? cluster.link.events : options.eventStore,
      cluster: cluster && { events: cluster.link.events },
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      maxQueuedBytes: options.maxQueuedBytes,
      onOverflow: (reason) => host.logger.warn(reason),
      streams: host.telemetry,
    };
    if (cluster) {
      this.cluster = new ClusterSessions(
        cluster,
        (id, auth, principal, replica) => this.openReplica(id, auth, principal, replica),
        { ttlMs: options.idleTimeoutMs, max: options.maxSessions, replicaIdleMs: options.replicaIdleMs },
      );
    }
    this.exchanges = new StatelessExchanges(host, {
      responseMode: options.responseMode,
      // Stateless era: no event ids, no resumption, nothing kept once the POST is answered.
      sse: { ...this.sessionOptions, eventStore: undefined },
    });
  }

  /**
   * Verifies the bearer token (when auth is on); false when a challenge was sent instead.
   * Synchronous without auth, so an open endpoint's requests make no promise here.
   */
  readonly authenticated = (request: FastifyRequest, reply: FastifyReply): boolean | Promise<boolean> => {
    if (this.options.apiKeys) return this.keyAuthenticated(request, reply, this.options.apiKeys);
    if (!this.options.auth) return true;
    return this.tokenAuthenticated(request, reply, this.options.auth);
  };

  private async tokenAuthenticated(request: FastifyRequest, reply: FastifyReply, auth: AuthOptions) {
    const outcome = await authenticate(request, auth, endpointUrls(request, auth, this.mcpPath));
    if (outcome.ok) {
      setAuth(request, outcome.auth);
      return true;
    }
    for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
    reply.code(outcome.status).header('content-type', 'application/json').send(JSON.stringify(outcome.body));
    return false;
  }

  /** API keys: the same slot and session binding as OAuth, a plain `Bearer realm` challenge. */
  private async keyAuthenticated(request: FastifyRequest, reply: FastifyReply, keys: ApiKeyAuth) {
    const outcome = await keys.authenticate(request);
    if (outcome.ok) {
      setAuth(request, outcome.auth);
      return true;
    }
    reply.header('www-authenticate', outcome.challenge);
    const code = outcome.status === 400 ? ErrorCode.InvalidRequest : ErrorCode.ServerError;
    sendError(reply, outcome.status, code, outcome.message);
    return false;
  }

  /**
   * The `onRequest` of the endpoint's routes. Authentication comes before the body is read: an
   * unauthenticated client cannot make the server parse anything. GET and DELETE have no body,
   * so their version header is checked here too; a POST's once its body names the request id.
   */
  readonly gate = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    // A callback hook that replied does not call done(): Fastify then skips the rest.
    const admit = (passed: boolean) => {
      if (!passed) return;
      if (request.method !== 'POST' && this.refusedVersion(request, reply, null)) return;
      done();
    };
    const passed = this.authenticated(request, reply);
    if (typeof passed === 'boolean') return admit(passed);
    passed.then(admit, done);
  };

  /**
   * Any `MCP-Protocol-Version` we do not speak: 400 with −32022, answered under `id`
   * (session-era clients only need the 400). False when the header is absent or spoken.
   */
  refusedVersion(request: FastifyRequest, reply: FastifyReply, id: RequestId | null): boolean {
    const error = unsupportedVersionHeader(request);
    if (!error) return false;
    sendError(reply, 400, error.code, error.message, id, error.data);
    return true;
  }

  /** Opens a session-era HTTP session (`id` undefined: one that stands alone, stateless mode). */
  async openSession(
    id: string | undefined,
    auth: AuthInfo | undefined,
    mode: ConnectionMode,
  ): Promise<HttpSession> {
    const session = new HttpSession(id, principalOf(auth), auth, this.sessionOptions);
    session.connection = await this.host.connect(session, {
      auth,
      mode,
      streams: session,
      transport: httpTransport(id),
    });
    return session;
  }

  /** This node's replica of a cluster-wide session. */
  private async openReplica(
    id: string,
    auth: AuthInfo | undefined,
    principal: string | undefined,
    replica: Parameters<ConstructorParameters<typeof ClusterSessions>[1]>[3],
  ): Promise<HttpSession> {
    const session = new HttpSession(id, principal, auth, this.sessionOptions);
    session.connection = await this.host.connect(session, {
      auth,
      streams: session,
      replica: { id, principal, record: replica.record, save: replica.save },
      transport: httpTransport(id),
    });
    return session;
  }

  /** 503 with `Retry-After`: the cluster's store is down; the node recovers by itself when it returns. */
  unavailable(reply: FastifyReply, error: ClusterUnavailableError): FastifyReply {
    reply.header('retry-after', '2');
    return sendError(
      reply,
      503,
      ErrorCode.InternalError,
      `Service Unavailable: ${error.message}; session-era requests are refused until it returns (the 2026-07-28 stateless era keeps working)`,
    );
  }

  /**
   * The session a request names, or an error already sent. Synchronous unless clustered (the
   * lookup may go to Redis), so a single node's POST makes no promise here.
   */
  findSession(
    request: FastifyRequest,
    reply: FastifyReply,
  ): HttpSession | undefined | Promise<HttpSession | undefined> {
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
    if (!this.cluster) return this.sessionOrNotFound(request, reply, id, this.sessions.get(id));
    return this.findClustered(this.cluster, request, reply, id);
  }

  private async findClustered(
    cluster: ClusterSessions,
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
  ): Promise<HttpSession | undefined> {
    let session: HttpSession | undefined;
    try {
      session = await cluster.find(id, principalOf(authOf(request)));
    } catch (error) {
      if (error instanceof ClusterUnavailableError) {
        this.unavailable(reply, error);
        return undefined;
      }
      throw error;
    }
    return this.sessionOrNotFound(request, reply, id, session);
  }

  private sessionOrNotFound(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    session: HttpSession | undefined,
  ): HttpSession | undefined {
    // A token of another principal gets the same answer as an unknown session: nothing leaks.
    if (!session || session.isClosed || session.principal !== principalOf(authOf(request))) {
      sendError(
        reply,
        404,
        ErrorCode.InvalidRequest,
        'Session not found: it ended or never existed; send initialize to start a new one',
      );
      return undefined;
    }
    logSessionOf(request, reply, id);
    return session;
  }

  /** Answers an insufficient-scope error with a 403 challenge (when auth is on). */
  stepUpFor(request: FastifyRequest, reply: FastifyReply): StepUp | undefined {
    const auth = this.options.auth;
    if (!auth) return undefined;
    return (error) => {
      const scopes = (error.data as { requiredScopes?: string[] }).requiredScopes ?? [];
      const outcome = insufficientScopeOutcome(
        new InsufficientScopeError(scopes, error.message),
        auth,
        endpointUrls(request, auth, this.mcpPath),
      );
      for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
      reply
        .code(outcome.status)
        .header('content-type', 'application/json')
        .send(JSON.stringify(outcome.body));
      return true;
    };
  }

  /** Where the session era's GET or DELETE meets stateless-only traffic or mode: a 405, or undefined. */
  refuseWithoutSessions(request: FastifyRequest, reply: FastifyReply, what: 'GET stream' | 'session to end') {
    // MCP 2026-07-28, Transports / Streamable HTTP: no GET stream, no sessions to end.
    if (isStatelessVersion(header(request, 'mcp-protocol-version'))) {
      return sendError(
        reply,
        405,
        ErrorCode.MethodNotFound,
        `Method Not Allowed: 2026-07-28 has no ${what}; ${what === 'GET stream' ? 'POST subscriptions/listen for notifications' : 'there are no sessions'}`,
      );
    }
    if (this.options.mode === 'stateless') {
      return sendError(
        reply,
        405,
        ErrorCode.MethodNotFound,
        `Method Not Allowed: this endpoint is stateless; there is no ${what}`,
      );
    }
    return undefined;
  }

  /** Ends every stream and session (the plugin's `preClose`). */
  async close(): Promise<void> {
    // Listen streams end with their final result first (a graceful end, not a disconnect).
    await this.exchanges.close();
    await this.sessions.closeAll();
    await this.cluster?.closeAll();
  }
}
