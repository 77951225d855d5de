/**
 * Which peers are proxies, so that the client's address is read from `X-Forwarded-For`
 * (`ctx.remoteAddress`, the key of `by: 'ip'` rate limits, log lines) instead of the socket's,
 * which behind nginx is nginx's. The same values and the same library as Fastify's
 * `trustProxy` (`@fastify/proxy-addr`), so that a Fastify app, the standalone `http()` listener
 * and WebSocket read one address for one request.
 *
 * Off by default: without it `X-Forwarded-For` is ignored, since any client can send one. A
 * hop count is refused: it cannot tell a proxy from a client that sent enough forged hops.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/**
 * `true`: every peer is a proxy (only where nothing reaches the server except through them);
 * addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`, as an array or
 * comma-separated; or a function told each address of the chain, nearest first, with its hop.
 */
export type TrustProxy = boolean | string | readonly string[] | ((address: string, hop: number) => boolean);

/** A compiled {@link TrustProxy}: whether the peer at `address`, `hop` steps away, is a proxy. */
export type TrustFunction = (address: string, hop: number) => boolean;

const TRUST_ALL: TrustFunction = () => true;

/**
 * Compiles `value` (undefined or `false`: trust no proxy), throwing a TypeError that names
 * `owner` and what is wrong with it.
 */
export function compileTrustProxy(owner: string, value: TrustProxy | undefined): TrustFunction | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return TRUST_ALL;
  if (typeof value === 'function') return value;
  if (typeof value === 'number') {
    throw new TypeError(
      `${owner}: trustProxy cannot be a hop count (${value}): it cannot tell a proxy from a client that forged hops; name the proxies' addresses instead, e.g. 'loopback' or '10.0.0.0/8'`,
    );
  }
  const list = typeof value === 'string' ? value.split(',').map((entry) => entry.trim()) : value;
  if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string')) {
    throw new TypeError(
      `${owner}: trustProxy must be a boolean, addresses (a string or an array of strings) or a function, got ${describe(value)}`,
    );
  }
  try {
    return proxyAddr.compile([...list]);
  } catch (error) {
    throw new TypeError(`${owner}: trustProxy: ${(error as Error).message}`);
  }
}

/**
 * The client's address of `request`: the socket's, or, when its peer is a trusted proxy, the
 * nearest address of `X-Forwarded-For` that is not one (as Fastify's `request.ip`).
 */
export function clientAddress(
  request: IncomingMessage,
  trust: TrustFunction | undefined,
): string | undefined {
  const socketAddress = request.socket.remoteAddress;
  if (trust === undefined || socketAddress === undefined) return socketAddress;
  const chain = proxyAddr.all(request, trust);
  return chain[chain.length - 1];
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array with a value that is not a string';
  return value === null ? 'null' : typeof value;
}
