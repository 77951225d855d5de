import { type CallToolResult, InternalError, type ObjectJsonSchema } from '@gantry/protocol';
import type { Type } from '../di/tokens';
import {
  type ArgsValidator,
  compileDeclaredSchema,
  formatIssues,
  isStandardSchema,
  jsonSchemaFromClass,
  jsonSchemaFromStandard,
  type StandardSchemaLike,
} from '../schema';

/** How a tool's declared output is advertised and checked. */
export interface OutputPlan {
  readonly schema: ObjectJsonSchema;
  /** Maps a returned value to a result with `structuredContent`, validated. */
  readonly map: (returned: unknown) => CallToolResult;
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content)
  );
}

/** Class instances to plain JSON values, as they will travel. */
function toPlain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/**
 * Plans a tool's structured output from `@Tool({ output })`: a DTO class, `[Dto]` (wrapped as
 * `{ items: [...] }`, since MCP requires an object root), or an object JSON Schema.
 */
export function planOutput(
  output: Type | [Type] | ObjectJsonSchema | StandardSchemaLike,
  toolName: string,
  where: string,
): OutputPlan {
  let schema: ObjectJsonSchema;
  let wrap = false;
  if (isStandardSchema(output)) {
    schema = jsonSchemaFromStandard(output, 'output', where);
  } else if (typeof output === 'function') {
    schema = jsonSchemaFromClass(output, { context: `${where}, output` });
  } else if (Array.isArray(output)) {
    schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: jsonSchemaFromClass(output[0], { context: `${where}, output` }) },
      },
      required: ['items'],
      additionalProperties: false,
    };
    wrap = true;
  } else {
    schema = structuredClone(output);
  }
  // Formats in a schema derived from a DTO class or a Standard Schema only approximate that
  // library's checks (IsUrl accepts `example.com`, which is no URI): there they stay annotations,
  // as they always were. They are asserted in a JSON Schema the author wrote.
  const authored = !isStandardSchema(output) && typeof output !== 'function' && !Array.isArray(output);
  const validator: ArgsValidator = compileDeclaredSchema(
    schema,
    `${where}: the output schema cannot be compiled`,
    { formats: authored },
  );

  const check = (structured: unknown): void => {
    const outcome = validator.validate(structured);
    // The JSON Schema validator is synchronous; a promise here would be a bug.
    if ('then' in (outcome as object))
      throw new InternalError('Internal error: output validation must be synchronous');
    const result = outcome as Exclude<typeof outcome, Promise<unknown>>;
    if (!result.ok) {
      throw new InternalError(
        `Internal error: tool '${toolName}' returned output that does not match its outputSchema: ${formatIssues(result.issues)}`,
      );
    }
  };

  const map = (returned: unknown): CallToolResult => {
    if (isCallToolResult(returned)) {
      // Error results are never checked against the output schema.
      if (returned.isError) return returned;
      if (returned.structuredContent === undefined) {
        throw new InternalError(
          `Internal error: tool '${toolName}' declares an outputSchema but returned a result without structuredContent`,
        );
      }
      check(returned.structuredContent);
      return returned;
    }
    if (typeof returned === 'string') {
      throw new InternalError(
        `Internal error: tool '${toolName}' declares an outputSchema but returned a string; return an object matching it, or throw for errors`,
      );
    }
    const plain = toPlain(returned);
    const structured = wrap ? { items: plain } : plain;
    check(structured);
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured as Record<string, unknown>,
    };
  };
  return { schema, map };
}
