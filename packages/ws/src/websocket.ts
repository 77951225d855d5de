import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type ApiKeyAuth,
  type ConnectionHost,
  clientAddress,
  compileTrustProxy,
  connectionHostOf,
  type GantryApplication,
  type HealthOption,
  HostOriginPolicy,
  isApiKeyAuth,
  type McpListener,
  probeAnswer,
  RETRY_AFTER_SECONDS,
  resolveHealthPaths,
  type TransportInfo,
  type TrustFunction,
  type TrustProxy,
} from '@gantry/core';
import { type AuthInfo, DEFAULT_MAX_LINE_BYTES } from '@gantry/protocol';
import WebSocket, { WebSocketServer } from 'ws';
import {
  resolveFlowOptions,
  type WebSocketFlowOptions,
  WebSocketServerTransport,
  WsCloseCode,
} from './websocket-server-transport';

/** The WebSocket subprotocol of the MCP binding (as in the official TypeScript SDK). */
export const MCP_SUBPROTOCOL = 'mcp';

/**
 * Options shared by {@link websocket} and {@link attachWebSocket}; with the flow control of each
 * socket ({@link WebSocketFlowOptions}: `maxInflight`, `highWaterMark`, `maxQueuedBytes`).
 */
export interface WebSocketBindingOptions extends WebSocketFlowOptions {
  /** Path the upgrade must target. Default `/mcp`. */
  path?: string;
  /** Largest accepted frame in bytes; bigger frames close the socket with 1009. Default 4 MiB. */
  maxPayload?: number;
  /** Most sockets open at once; further upgrades are refused with 503. Default unlimited. */
  maxConnections?: number;
  /**
   * Interval of WebSocket ping frames; a peer that misses a pong by the next one is dropped
   * (while the server has stopped reading a socket for flow control, it cannot see pongs, and
   * that socket is not checked). Default 30 s; 0 turns it off.
   */
  heartbeatMs?: number;
  /**
   * Host names (without port, any case) the upgrade's `Host` header may name; others get 403
   * (DNS-rebinding protection). Default: on a loopback connection `localhost`, 127.0.0.0/8 literals
   * and `[::1]` only; otherwise any.
   */
  allowedHosts?: readonly string[];
  /**
   * Origins allowed to open a socket (`scheme://host[:port]`, any case, or `'*'` for any); others get
   * 403. Upgrades without an `Origin` header (non-browser clients) are always allowed; `Origin: null`
   * never is (unless `'*'`). Default: loopback origins (`http(s)://localhost`, 127.0.0.0/8 literals,
   * `[::1]`), plus, on a connection that is not loopback, the origin the `Host` header names
   * (browsers apply no CORS to WebSocket, so this check alone stops cross-site pages).
   */
  allowedOrigins?: readonly string[];
  /**
   * Which peers are proxies whose `X-Forwarded-For` names the client, for `ctx.remoteAddress`
   * and `@RateLimit({ by: 'ip' })`: the values of Fastify's `trustProxy` (addresses, CIDR ranges,
   * `'loopback'`, `'linklocal'`, `'uniquelocal'`, comma-separated or as an array; `true` for
   * every peer; or a function), so give `attachWebSocket` the value the Fastify app has. Default:
   * none, the socket's own address (behind nginx, nginx's). The Host and Origin checks always
   * judge the socket itself.
   */
  trustProxy?: TrustProxy;
  /**
   * Authenticates the upgrade request (e.g. its `Authorization: Bearer` header, with the same
   * resource-server rules as HTTP). Return the caller's {@link AuthInfo} (handlers see it as
   * `ctx.auth`), or `undefined` to accept the socket anonymously; throw to refuse with 401
   * (or with the error's `status` when it is 401 or 403). When the AuthInfo has `expiresAt`, the socket
   * is closed with 1008 when the token expires, so it never outlives it.
   *
   * Or `apiKeys({ keys })` (from `@gantry/core`): the upgrade must carry one of the keys as
   * `Authorization: Bearer <key>` or `X-API-Key: <key>`; others get 401 with
   * `WWW-Authenticate: Bearer realm="mcp"`.
   */
  authenticate?:
    | ((request: IncomingMessage) => AuthInfo | undefined | Promise<AuthInfo | undefined>)
    | ApiKeyAuth;
}

/** Options of {@link websocket}. */
export interface WebSocketOptions extends WebSocketBindingOptions {
  /** Address to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port to bind; 0 picks a free one (see {@link WebSocketListener.port}). */
  port: number;
  /**
   * Health probes on the listener's HTTP server: `GET /healthz` (200 `{"status":"ok"}`) and
   * `GET /readyz` (200, or 503 with `Retry-After` while not ready; the JSON body names every
   * check), without authentication or Host/Origin checks (they disclose nothing and change
   * nothing). Default on; `false` turns them off.
   */
  health?: HealthOption;
}

/** The listener returned by {@link websocket}. */
export interface WebSocketListener extends McpListener {
  /** The bound port, once listening. */
  readonly port: number;
  /** `ws://host:port/path`, once listening. */
  readonly url: string;
  /** The open sockets, each an MCP connection (see `WebSocketServerTransport.flow`). */
  readonly connections: ReadonlySet<WebSocketServerTransport>;
}

/** What {@link attachWebSocket} returns. */
export interface WebSocketAttachment {
  /** The open sockets, each an MCP connection (see `WebSocketServerTransport.flow`). */
  readonly connections: ReadonlySet<WebSocketServerTransport>;
  /** Closes every socket with 1001 and stops handling upgrades on `server`. */
  close(): Promise<void>;
}

/** A WebSocket runs over TCP (OpenTelemetry `network.transport`, `network.protocol.name`). */
const WEBSOCKET_TRANSPORT: TransportInfo = Object.freeze({ network: 'tcp', protocol: 'websocket' });

const NO_CONNECTIONS: ReadonlySet<WebSocketServerTransport> = new Set();

/**
 * The Host/Origin checks of a binding, the same rules as Streamable HTTP's; off loopback, an Origin
 * must also name the Host itself, since browsers apply no CORS to WebSocket.
 */
function hostOriginPolicy(owner: string, options: WebSocketBindingOptions): HostOriginPolicy {
  try {
    return new HostOriginPolicy({
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      sameOriginOffLoopback: true,
    });
  } catch (error) {
    throw new TypeError(`${owner}: ${(error as Error).message}`);
  }
}

function refuse(
  socket: Duplex,
  status: number,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = `${message.replace(/[\r\n]+/g, ' ')}\n`;
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.once('finish', () => socket.destroy());
}

/**
 * The MCP binding over one `ws` server in `noServer` mode: checks each upgrade (path, Host and
 * Origin, subprotocol, connection limit), then serves every accepted socket as its own session.
 */
class WebSocketGateway {
  private readonly wss: WebSocketServer;
  readonly transports = new Set<WebSocketServerTransport>();
  private readonly flow: Required<WebSocketFlowOptions>;
  private readonly alive = new WeakSet<WebSocket>();
  private readonly path: string;
  private readonly hostOrigin: HostOriginPolicy;
  private readonly trust: TrustFunction | undefined;
  private heartbeat?: NodeJS.Timeout;
  private closing?: Promise<void>;

  constructor(
    private readonly host: ConnectionHost,
    private readonly options: WebSocketBindingOptions,
  ) {
    this.path = options.path ?? '/mcp';
    this.flow = resolveFlowOptions('websocket', options);
    this.hostOrigin = hostOriginPolicy('websocket', options);
    this.trust = compileTrustProxy('websocket', options.trustProxy);
    host.servesNetwork();
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload ?? DEFAULT_MAX_LINE_BYTES,
      perMessageDeflate: false,
      clientTracking: false,
      handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
    });
    const heartbeatMs = options.heartbeatMs ?? 30_000;
    if (heartbeatMs > 0) {
      this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
      this.heartbeat.unref();
    }
  }

  /** Whether this gateway serves `req`'s path (query ignored). */
  matches(req: IncomingMessage): boolean {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    return (q === -1 ? url : url.slice(0, q)) === this.path;
  }

  /** Handles an `upgrade` whose path matches. */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => {});
    if (this.closing) return refuse(socket, 503, 'Service Unavailable', 'The MCP server is shutting down');
    // A draining app takes no new connection; the sockets open are served until its grace ends.
    const refusal = this.host.refusal;
    if (refusal !== undefined) {
      return refuse(socket, 503, 'Service Unavailable', `Service Unavailable: ${refusal}`, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
    }
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      return refuse(socket, 426, 'Upgrade Required', 'Expected a WebSocket upgrade');
    }
    // Judged on this socket's addresses, not the bind address: attachWebSocket may run before listen().
    const problem = this.hostOrigin.problemWith({
      host: req.headers.host,
      origin: req.headers.origin,
      localAddress: req.socket.localAddress,
      remoteAddress: req.socket.remoteAddress,
    });
    if (problem) return refuse(socket, 403, 'Forbidden', problem);
    const offered = (req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    if (!offered.includes(MCP_SUBPROTOCOL)) {
      return refuse(
        socket,
        400,
        'Bad Request',
        `Expected WebSocket subprotocol "${MCP_SUBPROTOCOL}" (Sec-WebSocket-Protocol: ${MCP_SUBPROTOCOL})`,
      );
    }
    const max = this.options.maxConnections;
    if (max !== undefined && this.transports.size >= max) {
      return refuse(socket, 503, 'Service Unavailable', `Too many connections (at most ${max})`);
    }
    const remoteAddress = clientAddress(req, this.trust);
    const authenticate = this.options.authenticate;
    if (!authenticate) {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, undefined, remoteAddress));
      return;
    }
    if (isApiKeyAuth(authenticate))
      return this.upgradeWithKey(req, socket, head, authenticate, remoteAddress);
    Promise.resolve()
      .then(() => authenticate(req))
      .then(
        (auth) => {
          if (this.closing)
            return refuse(socket, 503, 'Service Unavailable', 'The MCP server is shutting down');
          this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, auth, remoteAddress));
        },
        (error: unknown) => {
          const status = (error as { status?: unknown })?.status === 403 ? 403 : 401;
          const message = error instanceof Error ? error.message : 'Unauthorized';
          if (status === 403) return refuse(socket, 403, 'Forbidden', message);
          refuse(socket, 401, 'Unauthorized', message, { 'WWW-Authenticate': 'Bearer' });
        },
      );
  };

  /** API keys on upgrade: the same rules and refusals as on HTTP (`apiKeys` in @gantry/core). */
  private upgradeWithKey(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    keys: ApiKeyAuth,
    remoteAddress: string | undefined,
  ): void {
    keys.authenticate(req).then(
      (outcome) => {
        if (this.closing)
          return refuse(socket, 503, 'Service Unavailable', 'The MCP server is shutting down');
        if (!outcome.ok) {
          const reason = outcome.status === 400 ? 'Bad Request' : 'Unauthorized';
          return refuse(socket, outcome.status, reason, outcome.message, {
            'WWW-Authenticate': outcome.challenge,
          });
        }
        this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, outcome.auth, remoteAddress));
      },
      (error: unknown) => {
        // A failing `verify` is the server's fault, not the client's.
        this.host.logger.error('API key verification failed:', error);
        refuse(socket, 500, 'Internal Server Error', 'API key verification failed');
      },
    );
  }

  private accept(ws: WebSocket, auth?: AuthInfo, remoteAddress?: string): void {
    const transport = new WebSocketServerTransport(ws, this.flow);
    this.transports.add(transport);
    this.alive.add(ws);
    ws.on('pong', () => this.alive.add(ws));
    const telemetry = this.host.telemetry;
    telemetry?.streamOpened('websocket');
    ws.once('close', () => {
      this.transports.delete(transport);
      telemetry?.streamClosed('websocket');
    });
    if (this.closing) {
      void transport.close(WsCloseCode.GoingAway, 'Server shutting down');
      return;
    }
    const lifetime = auth?.expiresAt === undefined ? undefined : auth.expiresAt * 1000 - Date.now();
    // Beyond setTimeout's range (about 24.8 days) the token outlives any realistic socket.
    if (lifetime !== undefined && lifetime <= 2_147_483_647) {
      const timer = setTimeout(
        () => void transport.close(WsCloseCode.PolicyViolation, 'Access token expired'),
        Math.max(0, lifetime),
      );
      timer.unref();
      ws.once('close', () => clearTimeout(timer));
    }
    const options = {
      auth,
      remoteAddress,
      maxInflight: this.flow.maxInflight,
      transport: WEBSOCKET_TRANSPORT,
    };
    this.host.connect(transport, options).catch((error) => {
      this.host.logger.error('WebSocket session failed:', error);
      void transport.close(WsCloseCode.InternalError, 'Server error');
    });
  }

  private beat(): void {
    for (const transport of this.transports) {
      const socket = transport.socket;
      // A socket the server stopped reading cannot show its pongs; flow control ends the pause.
      if (transport.flow.readingPaused) {
        this.alive.add(socket);
        continue;
      }
      if (!this.alive.has(socket)) {
        socket.terminate();
        continue;
      }
      this.alive.delete(socket);
      try {
        socket.ping();
      } catch {
        socket.terminate();
      }
    }
  }

  /** Closes every socket with 1001 (going away) and waits for the closing handshakes. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.heartbeat) clearInterval(this.heartbeat);
      await Promise.all(
        [...this.transports].map((t) => {
          t.closeCode = WsCloseCode.GoingAway;
          return t.close(WsCloseCode.GoingAway, 'Server shutting down');
        }),
      );
      await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    })();
    return this.closing;
  }
}

/**
 * Serves the application over WebSocket on its own port: one socket, one MCP connection, in
 * either era as on stdio (session era: `initialize` first, requests both ways, `ping`, close =
 * shutdown; stateless era 2026-07-28: per-request `_meta`, detected per message).
 *
 * The binding (not defined by the MCP spec; see docs/websocket.md): subprotocol `mcp`,
 * one UTF-8 JSON-RPC message per text frame, binary frames closed with 1003, frames over
 * `maxPayload` closed with 1009, flow control both ways, `app.close()` closes every socket with 1001.
 *
 * @example
 * ```ts
 * await app.listen(websocket({ port: 3001 }));
 * ```
 */
export function websocket(options: WebSocketOptions): WebSocketListener {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  resolveFlowOptions('websocket', options);
  hostOriginPolicy('websocket', options);
  compileTrustProxy('websocket', options.trustProxy);
  const health = resolveHealthPaths('websocket', options.health, true);
  let server: Server | undefined;
  let gateway: WebSocketGateway | undefined;
  let port = 0;
  return {
    get port() {
      return port;
    },
    get url() {
      const name = host.includes(':') ? `[${host}]` : host;
      return `ws://${name}:${port}${path}`;
    },
    get connections(): ReadonlySet<WebSocketServerTransport> {
      return gateway?.transports ?? NO_CONNECTIONS;
    },
    async listen(connectionHost: ConnectionHost): Promise<void> {
      if (server) throw new Error('This WebSocket listener is already listening');
      const g = new WebSocketGateway(connectionHost, options);
      gateway = g;
      const s = createServer((req, res) => {
        const probe = health && probeOf(req, health);
        if (probe) {
          const answer = probeAnswer(connectionHost, probe);
          res.writeHead(answer.status, answer.headers);
          res.end(req.method === 'HEAD' ? undefined : answer.body);
          return;
        }
        res.writeHead(426, {
          'Content-Type': 'text/plain; charset=utf-8',
          Upgrade: 'websocket',
          Connection: 'Upgrade',
        });
        res.end(`This endpoint speaks MCP over WebSocket (subprotocol "${MCP_SUBPROTOCOL}")\n`);
      });
      s.on('upgrade', (req, socket, head) => {
        if (g.matches(req)) g.handleUpgrade(req, socket, head);
        else {
          socket.on('error', () => {});
          refuse(socket, 404, 'Not Found', `No MCP endpoint here; use ${path}`);
        }
      });
      server = s;
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(options.port, host, () => {
          s.off('error', reject);
          resolve();
        });
      });
      port = (s.address() as AddressInfo).port;
    },
    async close(): Promise<void> {
      await gateway?.close();
      const s = server;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
  };
}

/** Which probe a plain HTTP request to the standalone listener asks for (GET or HEAD, query ignored). */
function probeOf(
  req: IncomingMessage,
  paths: { readonly healthPath: string; readonly readyPath: string },
): 'alive' | 'ready' | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path === paths.healthPath) return 'alive';
  if (path === paths.readyPath) return 'ready';
  return undefined;
}

/**
 * Serves the application over WebSocket on an existing HTTP server (plain `node:http`, or
 * `fastify.server`), on its `upgrade` event at `path`. Upgrades to other paths are left to other
 * `upgrade` listeners, or refused with 404 when there are none. Closing the app closes the sockets.
 *
 * @example
 * ```ts
 * const fastify = Fastify();
 * attachWebSocket(app, { server: fastify.server, path: '/mcp/ws' });
 * await fastify.listen({ port: 3000 });
 * ```
 */
export function attachWebSocket(
  app: GantryApplication,
  options: WebSocketBindingOptions & { server: Server },
): WebSocketAttachment {
  const { server } = options;
  const host = connectionHostOf(app);
  const gateway = new WebSocketGateway(host, options);
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (gateway.matches(req)) return gateway.handleUpgrade(req, socket, head);
    if (server.listenerCount('upgrade') <= 1) {
      socket.on('error', () => {});
      refuse(socket, 404, 'Not Found', 'No WebSocket endpoint here');
    }
  };
  server.on('upgrade', onUpgrade);
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      server.off('upgrade', onUpgrade);
      await gateway.close();
    })();
    return closed;
  };
  // `app.close()` closes the attachment too, so that every socket gets 1001.
  const unregister = host.onClose(close);
  return {
    connections: gateway.transports,
    close: () => {
      unregister();
      return close();
    },
  };
}
