/** One reference token of a JSON Pointer, escaped: `a/b` → `a~1b`, `a~b` → `a~0b` (RFC 6901 §3). */
export function encodePointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** One reference token of a JSON Pointer, unescaped: `~1` first, then `~0` (RFC 6901 §4). */
export function decodePointerToken(token: string): string {
  if (!token.includes('~')) return token;
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}
