// The nginx configuration recommended for Gantry nodes behind a plain round-robin load balancer
// (docs/deploy.md shows its output; packages/redis/test/nginx.int.spec.ts runs a real nginx on
// it), generated in one place so the page and the tests cannot drift apart.
//
// What it must get right for MCP Streamable HTTP (MCP 2025-11-25, Basic › Transports ›
// Streamable HTTP): a POST may be answered with an SSE stream and `GET /mcp` opens a long-lived
// one, so responses are neither buffered nor cached and reads may stay idle for long; the
// protocol headers (`Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`, and the
// 2026-07-28 `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*`) are plain hyphenated names, which nginx
// passes both ways unchanged without `underscores_in_headers`.

/** Gantry's default `bodyLimit` (@gantry/fastify): 4 MiB. */
const GANTRY_BODY_LIMIT = 4 * 1024 * 1024;

/** Options of {@link nginxConfig}. */
export interface NginxConfigOptions {
  /**
   * What the `server` listens on: a port (`80`), an address and port (`127.0.0.1:8080`,
   * `[::]:80`) or with parameters (`443 ssl`, with your `ssl_certificate` lines beside it),
   * written after `listen` as given.
   */
  listen: number | string;
  /**
   * The Gantry nodes, as `http://host:port` (or `host:port`). Requests go to them round robin,
   * with no stickiness. At least one; https upstreams are not supported.
   */
  upstreams: readonly string[];
  /** `server_name`; default none (the server answers any Host). */
  serverName?: string;
  /** The location proxied to the nodes. Default `/`. */
  location?: string;
  /** Name of the `upstream` block. Default `gantry`. */
  upstreamName?: string;
  /**
   * `client_max_body_size`, in bytes: keep it equal to the nodes' `bodyLimit` so nginx and Gantry
   * refuse the same bodies (413). Default 4 MiB, Gantry's default.
   */
  maxBodyBytes?: number;
  /**
   * `proxy_read_timeout`, in seconds: how long an SSE stream may go without a byte before nginx
   * closes it. Gantry writes a keep-alive comment every 25 s by default. Default 3600 (1 hour).
   */
  readTimeoutSec?: number;
  /** `max_fails` of each node: failed attempts before nginx stops trying it. Default 1. */
  maxFails?: number;
  /** `fail_timeout` of each node, in seconds: the window for `maxFails` and how long it rests. Default 10. */
  failTimeoutSec?: number;
  /** `keepalive`: idle connections to the nodes each nginx worker keeps open. Default 32. */
  keepalive?: number;
}

// Characters that would end or split a directive if interpolated: whitespace, ';', braces,
// quotes, '#', '$' (variables), '\'.
const UNSAFE = /[\s;{}'"#$\\]/;

function safe(value: string, name: string): string {
  if (value === '' || UNSAFE.test(value)) {
    throw new TypeError(
      `nginxConfig: ${name} ${JSON.stringify(value)} cannot be written into nginx.conf (empty, or it holds whitespace, ';', '{', '}', quotes, '#', '$' or '\\')`,
    );
  }
  return value;
}

function positiveInteger(value: number | undefined, name: string, fallback: number, zeroOk = false): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < (zeroOk ? 0 : 1)) {
    throw new TypeError(
      `nginxConfig: ${name} must be a ${zeroOk ? 'non-negative' : 'positive'} integer, got ${value}`,
    );
  }
  return value;
}

/** `http://127.0.0.1:3001` or `127.0.0.1:3001` → `127.0.0.1:3001`. */
function upstreamAddress(upstream: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(upstream) ? upstream : `http://${upstream}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TypeError(
      `nginxConfig: upstream ${JSON.stringify(upstream)} is not host:port or an http:// URL`,
    );
  }
  if (url.protocol !== 'http:') {
    throw new TypeError(
      `nginxConfig: upstream ${JSON.stringify(upstream)} must be http:// (nodes behind the balancer speak plain HTTP)`,
    );
  }
  if (url.port === '' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.username) {
    throw new TypeError(
      `nginxConfig: upstream ${JSON.stringify(upstream)} must be a host and an explicit port, with no path (http://10.0.0.5:3000)`,
    );
  }
  return safe(url.host, 'upstream');
}

/** A byte count in nginx's size syntax: `4m`, `512k` or plain bytes. */
function size(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}m`;
  if (bytes % 1024 === 0) return `${bytes / 1024}k`;
  return String(bytes);
}

/**
 * The nginx configuration for Gantry nodes behind nginx as a plain round-robin load balancer: an
 * `upstream` block with the nodes and a `server` block proxying to it, for the `http` context
 * (Debian's `/etc/nginx/conf.d/gantry.conf`). Each directive that matters is explained in
 * docs/deploy.md.
 *
 * Round robin without stickiness: a session-era deployment on more than one node needs sessions
 * any node can serve (@gantry/redis); the stateless 2026-07-28 era needs only a shared
 * `requestState` key (`GANTRY_STATE_KEY`).
 *
 * `proxy_next_upstream error timeout` sends a request whose node refuses the connection (or
 * times out connecting) to the next node; nginx never passes a POST that already reached a node
 * to another one (that would need `non_idempotent`, which this leaves out), so a tool call is
 * never run twice.
 *
 * @example
 * ```ts
 * writeFileSync('/etc/nginx/conf.d/gantry.conf', nginxConfig({
 *   listen: 80,
 *   serverName: 'mcp.example.com',
 *   upstreams: ['http://10.0.0.5:3000', 'http://10.0.0.6:3000'],
 * }));
 * ```
 */
export function nginxConfig(options: NginxConfigOptions): string {
  if (typeof options.listen === 'number' && options.listen > 65535) {
    throw new TypeError(`nginxConfig: listen must be a port (1-65535), got ${options.listen}`);
  }
  const listen =
    typeof options.listen === 'number'
      ? String(positiveInteger(options.listen, 'listen', 0))
      : String(options.listen)
          .trim()
          .split(/\s+/)
          .map((word) => safe(word, 'listen'))
          .join(' ');
  if (!Array.isArray(options.upstreams) || options.upstreams.length === 0) {
    throw new TypeError('nginxConfig: upstreams must list at least one node (http://host:port)');
  }
  const servers = options.upstreams.map(upstreamAddress);
  const name = safe(options.upstreamName ?? 'gantry', 'upstreamName');
  const location = safe(options.location ?? '/', 'location');
  const maxBody = positiveInteger(options.maxBodyBytes, 'maxBodyBytes', GANTRY_BODY_LIMIT);
  const readTimeout = positiveInteger(options.readTimeoutSec, 'readTimeoutSec', 3600);
  const maxFails = positiveInteger(options.maxFails, 'maxFails', 1, true);
  const failTimeout = positiveInteger(options.failTimeoutSec, 'failTimeoutSec', 10);
  const keepalive = positiveInteger(options.keepalive, 'keepalive', 32);

  const lines = [
    `upstream ${name} {`,
    "    # Round robin, nginx's default: no ip_hash, hash or sticky, so no node is tied to a client.",
    ...servers.map((server) => `    server ${server} max_fails=${maxFails} fail_timeout=${failTimeout}s;`),
    `    keepalive ${keepalive};`,
    '}',
    '',
    'server {',
    `    listen ${listen};`,
    ...(options.serverName === undefined
      ? []
      : [`    server_name ${safe(options.serverName, 'serverName')};`]),
    `    client_max_body_size ${size(maxBody)};`,
    '',
    `    location ${location} {`,
    `        proxy_pass http://${name};`,
    '        proxy_http_version 1.1;',
    '        proxy_set_header Connection "";',
    '        proxy_set_header Host $http_host;',
    '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '        proxy_set_header X-Forwarded-Proto $scheme;',
    '        proxy_buffering off;',
    '        proxy_cache off;',
    `        proxy_read_timeout ${readTimeout}s;`,
    '        proxy_next_upstream error timeout;',
    '    }',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}
