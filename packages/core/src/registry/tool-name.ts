/**
 * 2025-11-25 tool-name guidance: 1–128 characters, case-sensitive, only ASCII letters, digits,
 * underscore, hyphen and dot.
 */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Why `name` breaks the spec's tool-name guidance, or undefined when it follows it. */
export function toolNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > 128) return `it has ${name.length} characters (at most 128)`;
  if (!TOOL_NAME.test(name)) {
    const bad = [...new Set(name.replace(/[A-Za-z0-9_.-]/g, ''))].map((c) => JSON.stringify(c)).join(', ');
    return `it contains ${bad}; only letters, digits, '_', '-' and '.' are allowed`;
  }
  return undefined;
}

/** `searchNotes` → `search_notes`, `getHTTPStatus` → `get_http_status`, `v2Data` → `v2_data`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}
