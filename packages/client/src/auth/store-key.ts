// The key under which an MCP endpoint's tokens and client registration are stored. The MCP
// server is the OAuth protected resource (MCP 2025-11-25, Basic › Authorization §Canonical
// Server URI; RFC 8707 §2): one canonical URI names it, whatever spelling the user typed.

const SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

/**
 * The canonical store key of an MCP endpoint: scheme and host in lower case with the default
 * port dropped (URL parsing does both), then the path without a trailing slash (`/` stays
 * `/`); no user info, query or fragment.
 *
 * @example
 * ```ts
 * storeKeyFor('HTTPS://Example.com:443/mcp/?x=1#top'); // 'https://example.com/mcp'
 * ```
 */
export function storeKeyFor(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(
      `storeKeyFor: "${String(url)}" is not an absolute URL; pass e.g. https://example.com/mcp`,
    );
  }
  if (!SCHEMES.has(parsed.protocol)) {
    throw new TypeError(
      `storeKeyFor: "${parsed.href}" has scheme ${parsed.protocol}; an MCP endpoint is http(s) or ws(s)`,
    );
  }
  const path = parsed.pathname.replace(/\/+$/, '') || '/';
  return `${parsed.protocol}//${parsed.host}${path}`;
}
