// `x-mcp-header` annotations of tool input schemas and the `Mcp-Param-{Name}` headers they
// ask for (MCP 2026-07-28, Basic / Transports §"Streamable HTTP", "Custom Headers from Tool
// Parameters"; Server / Tools §"x-mcp-header").
import { encodeHeaderValue, isObject } from '@gantry/protocol';

/** The annotation keyword. */
export const X_MCP_HEADER = 'x-mcp-header';

/** One annotated argument: mirrored into `Mcp-Param-{name}` from `arguments` at `path`. */
export interface ParamHeader {
  /** The header name after `Mcp-Param-`, as the schema spells it. */
  readonly name: string;
  /** Property names from the root of `arguments` to the value. */
  readonly path: readonly string[];
}

/** The annotations of one tool, or why its definition is invalid. */
export type ParamHeaderScan = { ok: true; headers: ParamHeader[] } | { ok: false; reason: string };

/** RFC 9110 `token` (1*tchar). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** ±(2^53 − 1). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Keywords whose values are data, not subschemas: an `x-mcp-header` key there is no annotation. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Types an annotated property may have. */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Finds the `x-mcp-header` annotations of an input schema and checks them: each must be a
 * non-empty RFC 9110 token, case-insensitively unique, on a `string`, `integer` or `boolean`
 * property reached from the root through `properties` alone (never through `items`,
 * composition keywords, conditionals or `$ref`), with integer bounds inside ±(2^53 − 1).
 */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  let problem: string | undefined;

  const fail = (reason: string) => {
    problem ??= reason;
  };

  /** Visits a schema; `path` is set while it is reachable through `properties` chains only. */
  const visit = (schema: unknown, path: string[] | undefined, where: string): void => {
    if (problem !== undefined) return;
    if (Array.isArray(schema)) {
      for (const [index, item] of schema.entries()) visit(item, undefined, `${where}/${index}`);
      return;
    }
    if (!isObject(schema)) return;
    if (X_MCP_HEADER in schema) {
      if (path === undefined || path.length === 0) {
        fail(
          `"${X_MCP_HEADER}" at ${where || 'the schema root'} is not on a property reachable from the root through "properties" alone`,
        );
        return;
      }
      annotate(schema, path);
    }
    for (const [key, value] of Object.entries(schema)) {
      if (key === X_MCP_HEADER || DATA_KEYWORDS.has(key)) continue;
      if (key === 'properties' && isObject(value)) {
        for (const [name, child] of Object.entries(value)) {
          visit(child, path === undefined ? undefined : [...path, name], `${where}/properties/${name}`);
        }
        continue;
      }
      visit(value, undefined, `${where}/${key}`);
    }
  };

  const annotate = (schema: Record<string, unknown>, path: string[]): void => {
    const name = schema[X_MCP_HEADER];
    const property = path.join('.');
    if (typeof name !== 'string' || name === '') {
      return fail(`"${X_MCP_HEADER}" of property "${property}" must be a non-empty string`);
    }
    if (!TOKEN.test(name)) {
      return fail(
        `"${X_MCP_HEADER}" of property "${property}" is ${JSON.stringify(name)}, which is not an HTTP token (RFC 9110 tchar only)`,
      );
    }
    const lower = name.toLowerCase();
    const other = seen.get(lower);
    if (other !== undefined) {
      return fail(
        `"${X_MCP_HEADER}" ${JSON.stringify(name)} of property "${property}" repeats the one of property "${other}" (names are case-insensitive)`,
      );
    }
    seen.set(lower, property);
    const type = headerTypeOf(schema.type);
    if (type === undefined) {
      return fail(
        `"${X_MCP_HEADER}" is on property "${property}" of type ${JSON.stringify(schema.type ?? null)}; only string, integer and boolean properties may carry it`,
      );
    }
    if (type === 'integer') {
      for (const bound of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
        const value = schema[bound];
        if (typeof value === 'number' && Math.abs(value) > MAX_SAFE) {
          return fail(
            `"${X_MCP_HEADER}" is on integer property "${property}" whose ${bound} ${value} lies outside ±(2^53 − 1)`,
          );
        }
      }
    }
    headers.push({ name, path });
  };

  if (!isObject(inputSchema)) return { ok: true, headers };
  visit(inputSchema, [], '');
  return problem === undefined ? { ok: true, headers } : { ok: false, reason: problem };
}

/** `string`, `integer` or `boolean` (alone, or with `null`); anything else is undefined. */
function headerTypeOf(type: unknown): string | undefined {
  if (typeof type === 'string') return HEADER_TYPES.has(type) ? type : undefined;
  if (Array.isArray(type)) {
    const real = type.filter((item) => item !== 'null');
    if (real.length === 1 && typeof real[0] === 'string' && HEADER_TYPES.has(real[0])) return real[0];
  }
  return undefined;
}

/**
 * The `Mcp-Param-*` headers for one call: each annotated argument that is present and not
 * `null`, encoded as the spec says (strings as they are unless they need `=?base64?…?=`,
 * integers in decimal, booleans as `true`/`false`). Values of another type are skipped: the
 * server rejects the call on schema grounds anyway.
 */
export function paramHeaderValues(
  headers: readonly ParamHeader[],
  args: unknown,
): Array<[name: string, value: string]> {
  const out: Array<[string, string]> = [];
  for (const header of headers) {
    let value: unknown = args;
    for (const key of header.path) {
      value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
      if (value === undefined) break;
    }
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' || typeof value === 'boolean') {
      out.push([`mcp-param-${header.name}`, encodeHeaderValue(value)]);
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      out.push([`mcp-param-${header.name}`, encodeHeaderValue(value)]);
    }
  }
  return out;
}
