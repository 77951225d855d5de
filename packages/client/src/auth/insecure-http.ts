import { isIP } from 'node:net';
import { AuthorizationError } from './errors';

/**
 * True when `url` is plain HTTP to this machine: `localhost` or an address in 127.0.0.0/8 or
 * `::1`, parsed exactly (never by prefix). OAuth 2.1 §1.5 requires TLS for every endpoint except
 * loopback redirects; tests and local development use loopback servers.
 */
export function isLoopbackHttp(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.split('.')[0] === '127';
  if (family === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/** Refuses a plain-HTTP OAuth endpoint unless it is loopback or `allowInsecureHttp` is set. */
export function checkTransportSecurity(url: URL, what: string, allowInsecureHttp: boolean): void {
  if (url.protocol === 'https:' || allowInsecureHttp || isLoopbackHttp(url)) return;
  throw new AuthorizationError(
    `${what} ${url.href} is not HTTPS: OAuth endpoints must use TLS (OAuth 2.1 §1.5); pass allowInsecureHttp: true only for a trusted network`,
  );
}
