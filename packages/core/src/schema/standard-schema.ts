import { GantryError, LocalErrorCode, type ObjectJsonSchema } from '@gantry/protocol';
import type { ArgsValidator, ValidationIssue, ValidationOutcome } from './validation-issue';

/** The part of Standard Schema v1 (zod, valibot, arktype …) that Gantry uses. */
export interface StandardSchemaLike {
  readonly '~standard': {
    readonly version: number;
    readonly vendor: string;
    validate(value: unknown): StandardResult | Promise<StandardResult>;
    /** Standard JSON Schema: zod ≥ 4.2 and others describe themselves as JSON Schema. */
    readonly jsonSchema?: {
      input(options: { target: string }): Record<string, unknown>;
      output(options: { target: string }): Record<string, unknown>;
    };
  };
}

type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | {
      readonly issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[];
    };

/** True for a Standard Schema object (`~standard` with a `validate` function). */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  const standard = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof standard === 'object' && standard !== null && typeof standard.validate === 'function';
}

function pathOf(path: readonly (PropertyKey | { key: PropertyKey })[] | undefined): string {
  let out = '';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' ? segment.key : segment;
    out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * The JSON Schema a Standard Schema advertises (its `~standard.jsonSchema`, draft 2020-12),
 * checked to have the object root MCP requires.
 */
export function jsonSchemaFromStandard(
  schema: StandardSchemaLike,
  which: 'input' | 'output',
  where: string,
): ObjectJsonSchema {
  const standard = schema['~standard'];
  if (!standard.jsonSchema) {
    throw new GantryError(
      LocalErrorCode.InvalidDecorator,
      `${where}: the ${standard.vendor} schema cannot describe itself as JSON Schema (no ~standard.jsonSchema); ` +
        'pass a JSON Schema object or a DTO class instead, or a newer version of the library',
    );
  }
  const json = standard.jsonSchema[which]({ target: 'draft-2020-12' });
  if (json.type !== 'object') {
    throw new GantryError(
      LocalErrorCode.InvalidDecorator,
      `${where}: the ${which} schema must describe an object (MCP requires an object root), got type ${JSON.stringify(json.type)}`,
    );
  }
  return json as ObjectJsonSchema;
}

/** Validates with a Standard Schema; its issues become Gantry's. */
export function compileStandardValidator(schema: StandardSchemaLike): ArgsValidator {
  const toOutcome = (result: StandardResult): ValidationOutcome =>
    result.issues
      ? {
          ok: false,
          issues: result.issues.map((i): ValidationIssue => ({ path: pathOf(i.path), message: i.message })),
        }
      : { ok: true, value: result.value };
  return {
    validate(input: unknown) {
      const result = schema['~standard'].validate(input === undefined ? {} : input);
      return result instanceof Promise ? result.then(toOutcome) : toOutcome(result);
    },
  };
}
