/**
 * The Host/Origin policy of every network transport (HTTP and WebSocket), in one place so they
 * cannot drift apart: DNS-rebinding protection and refusal of foreign web pages (MCP 2025-11-25,
 * Transports §Streamable HTTP, Security Warning: validate `Origin`; bind local servers to
 * localhost).
 *
 * The rules, where the spec leaves them to us:
 * - A connection is *loopback* when its local or remote socket address is in 127.0.0.0/8, is
 *   `::1`, or is IPv4-mapped loopback (`::ffff:127.0.0.1`). That is where DNS rebinding strikes: a
 *   page on `evil.com` whose name now resolves to 127.0.0.1 talks to a local server.
 * - A loopback *name* (in `Host` or `Origin`) is `localhost`, a dotted-quad IPv4 literal in
 *   127.0.0.0/8 (RFC 3986 §3.2.2 `IPv4address`: four decimal octets, no leading zeros), or `[::1]`.
 *   Names are compared as whole names, never by prefix: `127.0.0.1.evil.com` and
 *   `localhost.evil.com` are names an attacker owns. Short or hexadecimal forms (`127.1`,
 *   `0x7f.0.0.1`) are refused: browsers serialize origins in the dotted-quad form (RFC 6454 §6.1),
 *   so only non-browser clients send them.
 * - On a loopback connection, `Host` must be a loopback name (or one of `allowedHosts`) and an
 *   `Origin`, when sent, a loopback `http(s)` origin (or one of `allowedOrigins`). Elsewhere,
 *   `allowedHosts` and `allowedOrigins` apply when given.
 * - `Origin: null` (sandboxed frames, `file:` pages) is refused wherever an Origin is checked.
 * - A request without `Origin` does not come from a web page and passes the Origin check.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK_ADDRESSES = new BlockList();
LOOPBACK_ADDRESSES.addSubnet('127.0.0.0', 8, 'ipv4');
// An IPv6 check also matches IPv4-mapped addresses (::ffff:127.0.0.1) against the IPv4 subnet.
LOOPBACK_ADDRESSES.addAddress('::1', 'ipv6');

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

/** Whether a socket address (as Node reports it) is loopback: 127.0.0.0/8, `::1`, `::ffff:127.x.y.z`. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const family = isIP(address);
  // A valid dotted quad has no leading zeros, so its first octet is 127 exactly when it starts "127.".
  if (family === 4) return address.startsWith('127.');
  if (family === 0) return false;
  // The forms Node reports for a socket (compressed, lower case) answered without BlockList,
  // whose check costs about 2.5 µs: this runs on every HTTP request and WebSocket upgrade.
  if (address === '::1') return true;
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.startsWith('::ffff:127.');
  return LOOPBACK_ADDRESSES.check(address, 'ipv6');
}

/**
 * Whether a host name taken from `Host` or `Origin` (lower-cased, without port, IPv6 in brackets)
 * is a loopback name: `localhost`, a dotted-quad literal in 127.0.0.0/8, or `[::1]`.
 */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** A `Host` header value split into its lower-cased name and port; undefined when malformed. */
export function parseHost(host: string): { name: string; port: string | undefined } | undefined {
  // RFC 9110 §7.2: Host = uri-host [ ":" port ]; IPv6 literals are bracketed.
  const match = /^(\[[0-9a-f:.]+\]|[^\s:[\]/@?#]+)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  return match ? { name: match[1], port: match[2] } : undefined;
}

/** A serialized origin (`scheme://host[:port]`, RFC 6454 §6.1) split into lower-cased parts; undefined otherwise. */
export function parseOrigin(
  origin: string,
): { scheme: string; name: string; port: string | undefined } | undefined {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[^\s:[\]/@?#]+)(?::(\d{1,5}))?$/.exec(
    origin.toLowerCase(),
  );
  return match ? { scheme: match[1], name: match[2], port: match[3] } : undefined;
}

/** Whether `origin` is an `http:` or `https:` origin on a loopback name (see {@link isLoopbackName}). */
export function isLoopbackOrigin(origin: string): boolean {
  const parsed = parseOrigin(origin);
  return (
    parsed !== undefined &&
    (parsed.scheme === 'http' || parsed.scheme === 'https') &&
    isLoopbackName(parsed.name)
  );
}

/** Options of a {@link HostOriginPolicy}. */
export interface HostOriginPolicyOptions {
  /**
   * Host names (without port, any case) that `Host` may name. Default: on a loopback connection the
   * loopback names only, otherwise any.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins (`https://app.example.com`, any case) allowed to call, or `'*'` for any (the Origin
   * check off). Default: on a loopback connection loopback origins only, otherwise see
   * `sameOriginOffLoopback`.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Origins accepted besides `allowedOrigins` or the loopback default: the HTTP transport passes the
   * origins it serves CORS to.
   */
  readonly extraOrigins?: readonly string[];
  /**
   * Off loopback and without `allowedOrigins`, accept only an Origin naming the `Host` itself (or a
   * loopback origin) rather than any. Browsers apply no CORS to WebSocket, so nothing else keeps a
   * foreign page from driving the server (cross-site WebSocket hijacking). Default false.
   */
  readonly sameOriginOffLoopback?: boolean;
}

/** What the policy looks at in a request, whatever the transport. */
export interface HostOriginRequest {
  /** The `Host` header, if any. */
  readonly host: string | undefined;
  /** The `Origin` header, if any (leave it out to skip the Origin check). */
  readonly origin: string | undefined;
  /** The socket's local address. */
  readonly localAddress: string | undefined;
  /** The socket's remote address. */
  readonly remoteAddress: string | undefined;
}

const LOOPBACK_HOSTS_HINT =
  'allowed on loopback: localhost, 127.0.0.0/8, [::1]; set the allowedHosts option to accept others';

function lowerCaseList(value: readonly string[] | undefined, name: string): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string'))
    throw new TypeError(`${name} must be an array of strings`);
  return new Set(value.map((entry) => entry.toLowerCase()));
}

/**
 * Decides whether a request's `Host` and `Origin` are acceptable (see the rules at the top of this
 * file). Built once per endpoint; {@link problemWith} runs per request.
 *
 * @example
 * ```ts
 * const policy = new HostOriginPolicy({ allowedHosts: ['mcp.example.com'] });
 * const problem = policy.problemWith({
 *   host: req.headers.host, origin: req.headers.origin,
 *   localAddress: req.socket.localAddress, remoteAddress: req.socket.remoteAddress,
 * });
 * if (problem) refuse(403, problem);
 * ```
 */
export class HostOriginPolicy {
  private readonly allowedHosts: ReadonlySet<string> | undefined;
  private readonly allowedOrigins: ReadonlySet<string> | undefined;
  private readonly anyOrigin: boolean;
  private readonly extraOrigins: ReadonlySet<string>;
  private readonly sameOriginOffLoopback: boolean;

  constructor(options: HostOriginPolicyOptions = {}) {
    this.allowedHosts = lowerCaseList(options.allowedHosts, 'allowedHosts');
    this.allowedOrigins = lowerCaseList(options.allowedOrigins, 'allowedOrigins');
    this.anyOrigin = this.allowedOrigins?.has('*') ?? false;
    this.extraOrigins = lowerCaseList(options.extraOrigins, 'extraOrigins') ?? new Set();
    this.sameOriginOffLoopback = options.sameOriginOffLoopback ?? false;
  }

  /** Why the request is refused (a short message for a 403), or undefined when it is acceptable. */
  problemWith(request: HostOriginRequest): string | undefined {
    const loopback = isLoopbackAddress(request.localAddress) || isLoopbackAddress(request.remoteAddress);
    const hostProblem = this.hostProblem(request.host, loopback);
    if (hostProblem) return hostProblem;
    const origin = request.origin;
    if (origin === undefined || this.originAllowed(origin, request.host, loopback)) return undefined;
    return `Invalid Origin: ${origin}`;
  }

  private hostProblem(host: string | undefined, loopback: boolean): string | undefined {
    const allowed = this.allowedHosts;
    if (!allowed && !loopback) return undefined;
    const name = host === undefined ? undefined : parseHost(host)?.name;
    if (allowed) {
      return name !== undefined && allowed.has(name)
        ? undefined
        : `Invalid Host: ${host ?? '(none)'} (not in the allowedHosts option)`;
    }
    return name !== undefined && isLoopbackName(name)
      ? undefined
      : `Invalid Host: ${host ?? '(none)'} (${LOOPBACK_HOSTS_HINT})`;
  }

  private originAllowed(origin: string, host: string | undefined, loopback: boolean): boolean {
    if (this.anyOrigin) return true;
    const lower = origin.toLowerCase();
    if (this.allowedOrigins)
      return lower !== 'null' && (this.allowedOrigins.has(lower) || this.extraOrigins.has(lower));
    if (!loopback && !this.sameOriginOffLoopback) return true;
    if (lower === 'null') return false;
    if (isLoopbackOrigin(lower) || this.extraOrigins.has(lower)) return true;
    return !loopback && host !== undefined && sameOrigin(lower, host);
  }
}

/** Whether `origin` names the same host and port as the `Host` header (a missing port is the scheme's default). */
function sameOrigin(origin: string, host: string): boolean {
  const o = parseOrigin(origin);
  const h = parseHost(host);
  if (!o || !h || o.name !== h.name) return false;
  const defaultPort = DEFAULT_PORTS[o.scheme];
  return (o.port ?? defaultPort) === (h.port ?? defaultPort);
}
