import { isObject } from '@gantry/protocol';

/** A tool argument mirrored into an HTTP header (`x-mcp-header`, 2026-07-28). */
export interface HeaderParam {
  /** The header name after `Mcp-Param-`, as declared. */
  readonly name: string;
  /** The property path from the arguments' root. */
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

/** RFC 9110 `token`: 1*tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const KEYWORDS_WITH_SUBSCHEMAS = [
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'dependentSchemas',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
];

/** Why `name` cannot be an `x-mcp-header` name, if it cannot. */
export function headerNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'the header name must be a non-empty string';
  if (!TOKEN.test(name))
    return `${JSON.stringify(name)} is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`;
  return undefined;
}

/** True when `x-mcp-header` appears anywhere inside `schema`. */
function mentionsHeader(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(mentionsHeader);
  if (!isObject(schema)) return false;
  if ('x-mcp-header' in schema) return true;
  return Object.values(schema).some(mentionsHeader);
}

/**
 * The `x-mcp-header` annotations of a tool's `inputSchema`, checked against the 2026-07-28
 * rules: a token name, unique case-insensitively, on a `string`/`integer`/`boolean` property
 * reachable from the root through `properties` only. Throws a message naming the problem.
 */
export function collectHeaderParams(inputSchema: unknown): HeaderParam[] {
  const found: HeaderParam[] = [];
  const seen = new Map<string, string>();
  const visit = (schema: Record<string, unknown>, path: string[]) => {
    const at = path.length === 0 ? 'the root' : `property '${path.join('.')}'`;
    if ('x-mcp-header' in schema) {
      if (path.length === 0) throw new Error('x-mcp-header cannot annotate the root schema');
      const name = schema['x-mcp-header'];
      const problem = headerNameProblem(name);
      if (problem) throw new Error(`x-mcp-header on ${at}: ${problem}`);
      const type = schema.type;
      if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
        throw new Error(
          `x-mcp-header on ${at}: only string, integer and boolean properties can be mirrored into a header, not ${JSON.stringify(type ?? 'an untyped value')}`,
        );
      }
      const lower = (name as string).toLowerCase();
      const other = seen.get(lower);
      if (other !== undefined)
        throw new Error(`x-mcp-header ${JSON.stringify(name)} is used twice (also on property '${other}')`);
      seen.set(lower, path.join('.'));
      found.push({ name: name as string, path: [...path], type });
    }
    for (const keyword of KEYWORDS_WITH_SUBSCHEMAS) {
      if (mentionsHeader(schema[keyword])) {
        throw new Error(
          `x-mcp-header inside '${keyword}' of ${at}: annotations must be reachable from the root through "properties" only`,
        );
      }
    }
    if (isObject(schema.properties)) {
      for (const [key, child] of Object.entries(schema.properties)) {
        if (isObject(child)) visit(child, [...path, key]);
      }
    }
  };
  if (isObject(inputSchema)) visit(inputSchema, []);
  return found;
}
