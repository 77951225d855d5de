/**
 * The key a token store files an MCP endpoint under: scheme, host and port as URL parsing
 * normalises them (lower case, default port dropped), and the path without a trailing slash
 * (`/` stays `/`); no query, no fragment.
 */
export function storeKeyFor(url: string | URL): string {
  const parsed = new URL(url);
  const path = parsed.pathname.length > 1 ? parsed.pathname.replace(/\/+$/, '') || '/' : parsed.pathname;
  return `${parsed.protocol}//${parsed.host}${path}`;
}
