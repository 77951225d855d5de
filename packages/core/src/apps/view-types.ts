// TypeScript declarations for a view's data, from the same JSON Schemas the server advertises:
// a view receives the tool's arguments (`ui/notifications/tool-input`) and its result
// (`ui/notifications/tool-result`, whose `structuredContent` matches `outputSchema`; MCP Apps
// 2026-01-26 › Host ↔ View), so typing them from `inputSchema`/`outputSchema` keeps the view
// and the tool in step.
import type { GantryApplication } from '../application/gantry-application';

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function comment(text: unknown, indent: string): string {
  if (typeof text !== 'string' || text.trim() === '') return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`).join('\n')}\n${indent} */\n`;
}

const literal = (value: unknown): string =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value)
    ? JSON.stringify(value)
    : 'unknown';

const union = (parts: string[]): string => {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
};

const wrap = (type: string): string => (/[|&]/.test(type) && !/^[{[]/.test(type) ? `(${type})` : type);

class Emitter {
  private readonly resolving = new Set<string>();

  constructor(private readonly root: Schema) {}

  /** The TypeScript type of `schema`, laid out at `indent`. */
  type(schema: unknown, indent: string): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!isSchema(schema)) return 'unknown';
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref, indent);
    let type: string;
    if ('const' in schema) type = literal(schema.const);
    else if (Array.isArray(schema.enum)) type = union(schema.enum.map(literal));
    else if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
      const options = (schema.anyOf ?? schema.oneOf) as unknown[];
      type = union(options.map((option) => this.type(option, indent)));
    } else if (Array.isArray(schema.allOf)) {
      type = schema.allOf.map((part) => wrap(this.type(part, indent))).join(' & ') || 'unknown';
    } else if (Array.isArray(schema.type)) {
      type = union(schema.type.map((name) => this.typeNamed(String(name), schema, indent)));
    } else if (typeof schema.type === 'string') {
      type = this.typeNamed(schema.type, schema, indent);
    } else if (isSchema(schema.properties)) {
      type = this.object(schema, indent);
    } else {
      type = 'unknown';
    }
    // OpenAPI-style `nullable: true`, which some schema generators still write.
    return schema.nullable === true && type !== 'unknown' ? union([type, 'null']) : type;
  }

  private typeNamed(name: string, schema: Schema, indent: string): string {
    switch (name) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return this.array(schema, indent);
      case 'object':
        return this.object(schema, indent);
      default:
        return 'unknown';
    }
  }

  private array(schema: Schema, indent: string): string {
    if (Array.isArray(schema.prefixItems) || Array.isArray(schema.items)) {
      const items = (schema.prefixItems ?? schema.items) as unknown[];
      return `[${items.map((item) => this.type(item, indent)).join(', ')}]`;
    }
    return `${wrap(this.type(schema.items, indent))}[]`;
  }

  private object(schema: Schema, indent: string): string {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const extra = schema.additionalProperties;
    const inner = `${indent}  `;
    const members = Object.entries(properties).map(([key, value]) => {
      const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
      const optional = required.has(key) ? '' : '?';
      const description = isSchema(value) ? value.description : undefined;
      return `${comment(description, inner)}${inner}${name}${optional}: ${this.type(value, inner)};\n`;
    });
    if (isSchema(extra) || (members.length === 0 && extra !== false)) {
      const value = isSchema(extra) ? this.type(extra, inner) : 'unknown';
      // An index signature must admit every declared property's type too.
      const all = members.length === 0 ? value : 'unknown';
      members.push(`${inner}[key: string]: ${all};\n`);
    }
    // No properties and no others allowed: only the empty object (`{}` would admit any value).
    return members.length === 0 ? 'Record<string, never>' : `{\n${members.join('')}${indent}}`;
  }

  private reference(ref: string, indent: string): string {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    const defs = match ? this.root[match[1]] : undefined;
    const name = match?.[2].replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(defs) || name === undefined || !(name in defs) || this.resolving.has(ref)) return 'unknown';
    this.resolving.add(ref);
    try {
      return this.type(defs[name], indent);
    } finally {
      this.resolving.delete(ref);
    }
  }
}

/**
 * The TypeScript type a JSON Schema describes (types, `const`, `enum`, `anyOf`/`oneOf`,
 * `allOf`, objects with `required` and `additionalProperties`, arrays and tuples, local `$ref`s
 * into `$defs`/`definitions`); what it cannot express is `unknown`. Property descriptions
 * become JSDoc.
 */
export function schemaToTypeScript(schema: unknown, indent = ''): string {
  return new Emitter(isSchema(schema) ? schema : {}).type(schema, indent);
}

/** `show_board` → `ShowBoard`. */
function pascalName(toolName: string): string {
  const name = toolName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
  return /^[A-Za-z]/.test(name) ? name : `Tool${name}`;
}

/** What `generateViewTypes` covers. */
export interface ViewTypesOptions {
  /** Every tool, not only those with a view (`@Tool({ ui })`). Default false. */
  allTools?: boolean;
}

/**
 * A `.d.ts` text declaring, for each tool with a view, `<Name>Arguments` (from its
 * `inputSchema`) and `<Name>Result` (the `structuredContent`, from its `outputSchema`), plus
 * `ViewArguments` and `ViewResults` mapping tool names to them. Write it next to the view's
 * source so `ontoolresult` handlers read `result.structuredContent as ViewResults['show_board']`.
 *
 * @example
 * ```ts
 * writeFileSync('web/src/tools.d.ts', generateViewTypes(app));
 * ```
 */
export function generateViewTypes(app: GantryApplication, options: ViewTypesOptions = {}): string {
  const tools = app.registry.tools
    .definitions()
    .filter((tool) => options.allTools === true || tool.ui !== undefined);
  const taken = new Set<string>(['ViewArguments', 'ViewResults']);
  let out =
    "// Generated by Gantry (generateViewTypes) from the tools' inputSchema and outputSchema. Do not edit.\n";
  const argumentsMap: string[] = [];
  const resultsMap: string[] = [];
  for (const tool of tools) {
    let base = pascalName(tool.name);
    for (let n = 2; taken.has(`${base}Arguments`); n++) base = `${pascalName(tool.name)}${n}`;
    taken.add(`${base}Arguments`);
    const { inputSchema, outputSchema, description } = tool.descriptor;
    const key = JSON.stringify(tool.name);
    out += `\n${comment(`The arguments of ${tool.name}${description ? `: ${description}` : ''}`, '')}`;
    out += `export type ${base}Arguments = ${schemaToTypeScript(inputSchema)};\n`;
    argumentsMap.push(`  ${key}: ${base}Arguments;\n`);
    if (outputSchema !== undefined) {
      out += `\n${comment(`The structuredContent of ${tool.name}`, '')}`;
      out += `export type ${base}Result = ${schemaToTypeScript(outputSchema)};\n`;
      resultsMap.push(`  ${key}: ${base}Result;\n`);
    } else {
      resultsMap.push(
        `  /** ${tool.name} declares no outputSchema: its results carry no structuredContent. */\n  ${key}: undefined;\n`,
      );
    }
  }
  out += `\n/** The arguments of each tool, by name. */\nexport interface ViewArguments {\n${argumentsMap.join('')}}\n`;
  out += `\n/** The structuredContent of each tool, by name. */\nexport interface ViewResults {\n${resultsMap.join('')}}\n`;
  return out;
}
