import { GantryError, LocalErrorCode } from '@gantry/protocol';
import type { ErrorObject } from 'ajv';
import type Ajv2020 from 'ajv/dist/2020';
import { patternRegExp, prepareSchema } from './json-schema-dialect';
import { issuesFromErrors } from './json-schema-issues';
import { compileProblem, metaSchemaProblem } from './json-schema-problems';
import {
  type ArgsValidator,
  isArgumentsObject,
  notAnObject,
  type ValidationOutcome,
} from './validation-issue';

/**
 * Plain JSON Schemas (`@Tool({ input })`, `@Tool({ output })`, `ctx.elicit(schema)`) are
 * validated by ajv 8 in its JSON Schema 2020-12 mode, with ajv-formats for `format`.
 *
 * Why ajv: measured against @cfworker/json-schema 4 and the hand-written validator it replaces
 * (apps/bench/src/json-schema-validators.ts; 2-vCPU VM, Node 20):
 *
 * | | ajv 8.20 + ajv-formats 3.0 | @cfworker/json-schema 4.1 | hand-written |
 * | --- | --- | --- | --- |
 * | wrong answers in 23 cases + 5 broken schemas | 2 (draft-07 tuple `items`, draft-07 `$schema`: both read by json-schema-dialect.ts) | 5 (accepts every broken schema: no meta-schema check) | 20 |
 * | validations/s, typical tool schema, valid / invalid | 5.1–6.6 M / 5.2–8.0 M | 0.11 M / 0.11–0.15 M | 1.2–1.4 M / 1.0–1.4 M |
 * | compile: first (meta-schemas) / each next | 24–29 ms / 1.6–2.0 ms | 0.02 / 0.03 ms | 0.02 / 0.02 ms |
 * | `require` | 58 ms | 14 ms | — |
 *
 * Both libraries answer every keyword right; ajv also refuses a broken schema at bootstrap (a
 * type that does not exist, a `$ref` to nothing, a bad pattern), where @cfworker/json-schema
 * accepts it and then answers wrongly at call time, and validates about 50 times faster (at
 * 0.11 M/s it would cost more per call than the whole stdio round trip, 150 k msg/s). Its costs
 * are paid once, at bootstrap, and only by an app with a plain JSON Schema or a tool `output` (ajv
 * is loaded on first use): `require` 45–65 ms, then about 2 ms per schema; the meta-schema check is
 * generated ahead of time (see `metaSchemaErrors`), since compiling the 2020-12 meta-schemas at
 * bootstrap cost 65–115 ms. After the adapter below, a valid call validates at
 * about 2.6 M/s and an invalid one (four issues worded) at about 70 k/s.
 *
 * Settings: all errors (a tool reports every wrong argument at once); `strict: false`, so unknown
 * keywords and unknown formats are ignored as 2020-12 asks (core § 6.5, validation § 7.2);
 * `ownProperties`, so an inherited property never counts as present; nothing is coerced,
 * defaulted or removed, so the value returned is the input itself. Formats are asserted (the
 * 2020-12 format-assertion vocabulary): `format: 'email'` rejects `"nope"`.
 */

type AjvInstance = InstanceType<typeof Ajv2020>;

/** A validator function as ajv compiles it: true or false, with the errors of the last call. */
type MetaSchemaCheck = ((schema: unknown) => boolean) & { errors?: ErrorObject[] | null };

let metaSchemaCheck: MetaSchemaCheck | undefined;

/**
 * The 2020-12 meta-schema check, generated ahead of time (scripts/generate-meta-schema-validator.js):
 * compiling the meta-schema at bootstrap cost 60-120 ms of every cold start; the generated module
 * loads in about 3 ms.
 */
function metaSchemaErrors(schema: object): readonly ErrorObject[] | undefined {
  metaSchemaCheck ??= require('./generated/meta-schema-2020-12') as MetaSchemaCheck;
  return metaSchemaCheck(schema) ? undefined : (metaSchemaCheck.errors ?? []);
}

let instance: AjvInstance | undefined;

function ajv(): AjvInstance {
  if (instance) return instance;
  const { Ajv2020: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
  const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
  const regExp = Object.assign((pattern: string, flags: string) => patternRegExp(pattern, flags), {
    code: 'patternRegExp',
  });
  instance = new Ajv({
    allErrors: true,
    verbose: true,
    strict: false,
    logger: false,
    ownProperties: true,
    validateSchema: false,
    addUsedSchema: false,
    code: { regExp },
  });
  addFormats(instance);
  return instance;
}

/** Options of `compileJsonSchemaValidator`. */
export interface JsonSchemaValidatorOptions {
  /**
   * Assert `format` (email, uri, date-time, uuid…). Default true. False reads it as an
   * annotation only: for schemas Gantry derives from DTO classes, whose formats only approximate
   * class-validator's checks (IsUrl accepts `example.com`, which is not a URI).
   */
  formats?: boolean;
}

/**
 * Compiles a validator for a plain JSON Schema (2020-12; older drafts are read as said in
 * json-schema-dialect.ts). Arguments must be an object (undefined means `{}`); the value returned
 * is the input itself, never changed. A schema that cannot be compiled throws a `GantryError`
 * saying where and why (`JSON Schema at #/properties/a: unknown type "text"`).
 *
 * @example
 * ```ts
 * const validator = compileJsonSchemaValidator({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
 * validator.validate({ q: 1 }); // { ok: false, issues: [{ path: 'q', message: 'q must be a string' }] }
 * ```
 */
export function compileJsonSchemaValidator(
  schema: object,
  options: JsonSchemaValidatorOptions = {},
): ArgsValidator<Record<string, unknown>> {
  const prepared = prepareSchema(schema, { formats: options.formats ?? true });
  const problems = metaSchemaErrors(prepared);
  if (problems) throw metaSchemaProblem(prepared, problems);
  const engine = ajv();
  let check: ReturnType<AjvInstance['compile']>;
  try {
    check = engine.compile(prepared);
  } catch (error) {
    throw compileProblem(prepared, error);
  } finally {
    // The compiled function keeps what it needs; ajv's cache would keep every schema ever compiled.
    engine.removeSchema(prepared);
  }
  return {
    validate(input: unknown): ValidationOutcome<Record<string, unknown>> {
      const value = input === undefined ? {} : input;
      if (!isArgumentsObject(value)) return notAnObject();
      if (check(value)) return { ok: true, value };
      return { ok: false, issues: issuesFromErrors(check.errors ?? [], prepared, value) };
    },
  };
}

/**
 * {@link compileJsonSchemaValidator} for a schema declared on a handler, at bootstrap: a schema
 * that cannot be compiled fails bootstrap, the problem said after `what` (which names the
 * handler and the schema: "Tool 'x' in NotesTools: the input schema cannot be compiled").
 */
export function compileDeclaredSchema(
  schema: object,
  what: string,
  options?: JsonSchemaValidatorOptions,
): ArgsValidator<Record<string, unknown>> {
  try {
    return compileJsonSchemaValidator(schema, options);
  } catch (error) {
    throw new GantryError(LocalErrorCode.InvalidDecorator, `${what}: ${(error as Error).message}`);
  }
}
