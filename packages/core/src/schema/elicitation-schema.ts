import { decoratorError } from '../decorators/decorator-error';
import { type PropertyModel, readDtoModel } from './dto-model';
import {
  type ElicitationSchema,
  type ElicitationSchemaOptions,
  FORMATS,
  isRecord,
  PRIMITIVES,
  quoted,
  type Schema,
  TITLED_VERSION,
  titledEnumsAllowed,
} from './elicitation-form-rules';
import { schemaOfModel } from './json-schema-from-class';
import { getOptionTitles } from './schema-keys';

export type { ElicitationSchema, ElicitationSchemaOptions } from './elicitation-form-rules';
export { checkElicitationSchema } from './elicitation-schema-check';

/** `{ title?, description? }` of a property schema, in that order. */
function labelsOf(schema: Schema): Schema {
  const labels: Schema = {};
  if (schema.title !== undefined) labels.title = schema.title;
  if (schema.description !== undefined) labels.description = schema.description;
  return labels;
}

/** Builds the form field of one DTO property from its tool-input JSON Schema. */
class FormFieldBuilder {
  constructor(
    private readonly label: string,
    private readonly stateless: boolean,
    private readonly dto: Function,
  ) {}

  build(property: PropertyModel, schema: Schema): Schema {
    const fail = (what: string) => decoratorError(`${this.label}: property '${property.name}' ${what}`);
    if (property.nested) {
      throw fail(
        schema.type === 'array' ? `is a list of objects; ${PRIMITIVES}` : `is an object; ${PRIMITIVES}`,
      );
    }
    const titles = getOptionTitles(this.dto.prototype, property.name);
    if (schema.type === 'array') return this.multiSelect(schema, titles, fail);
    if (Array.isArray(schema.enum)) return this.singleSelect(schema, schema.enum, titles, fail);
    if (titles) {
      throw fail(
        'has @OptionTitles() but no list of values to title; add @IsIn([...]) or @IsEnum(), or remove @OptionTitles()',
      );
    }
    switch (schema.type) {
      case 'string':
        return this.string(schema);
      case 'number':
      case 'integer':
        return this.number(schema, schema.type);
      case 'boolean':
        return this.withDefault(
          { type: 'boolean', ...labelsOf(schema) },
          typeof schema.default === 'boolean',
          schema,
          true,
        );
      case 'object':
        throw fail(`is an object; ${PRIMITIVES}`);
      default:
        throw fail(
          'has no type an elicitation form can show; add @IsString(), @IsNumber(), @IsInt() or @IsBoolean(), or @IsIn([...]) for a choice',
        );
    }
  }

  /** 2025-06-18 allows a default only on booleans (MCP 2025-06-18, Elicitation › Requested Schema); `fits` says the initializer suits the field. */
  private withDefault(field: Schema, fits: boolean, schema: Schema, everywhere = false): Schema {
    if (fits && (this.stateless || everywhere)) field.default = schema.default;
    return field;
  }

  private string(schema: Schema): Schema {
    const field: Schema = { type: 'string', ...labelsOf(schema) };
    if (schema.minLength !== undefined) field.minLength = schema.minLength;
    if (schema.maxLength !== undefined) field.maxLength = schema.maxLength;
    // Other formats (uuid) and patterns are left out: the form stays a looser description, and
    // the server still validates the answer with the class's own validators.
    if (FORMATS.has(schema.format)) field.format = schema.format;
    return this.withDefault(field, typeof schema.default === 'string', schema);
  }

  private number(schema: Schema, type: 'number' | 'integer'): Schema {
    const field: Schema = { type, ...labelsOf(schema) };
    let minimum = schema.minimum as number | undefined;
    let maximum = schema.maximum as number | undefined;
    // NumberSchema has no exclusive bounds. For integers they become inclusive ones exactly
    // (@IsPositive() → minimum 1); for numbers they are left out (looser, validated on return).
    if (type === 'integer' && typeof schema.exclusiveMinimum === 'number') {
      const bound = Math.floor(schema.exclusiveMinimum) + 1;
      minimum = minimum === undefined ? bound : Math.max(minimum, bound);
    }
    if (type === 'integer' && typeof schema.exclusiveMaximum === 'number') {
      const bound = Math.ceil(schema.exclusiveMaximum) - 1;
      maximum = maximum === undefined ? bound : Math.min(maximum, bound);
    }
    if (minimum !== undefined) field.minimum = minimum;
    if (maximum !== undefined) field.maximum = maximum;
    const fits =
      typeof schema.default === 'number' && (type === 'number' || Number.isInteger(schema.default));
    return this.withDefault(field, fits, schema);
  }

  /** The values of a choice, checked: strings only, each title naming one of them. */
  private options(
    values: readonly unknown[],
    titles: ReadonlyMap<string, string> | undefined,
    fail: (what: string) => Error,
  ): string[] {
    if (values.length === 0) {
      throw fail('has an empty list of values; list the choices in @IsIn([...]) or @IsEnum()');
    }
    if (!values.every((v) => typeof v === 'string')) {
      throw fail(
        `has values that are not strings (${quoted(values)}); elicitation enums hold only strings, so use string values (e.g. a string enum)`,
      );
    }
    for (const key of titles?.keys() ?? []) {
      if (!values.includes(key)) {
        throw fail(
          `has @OptionTitles() for '${key}', which is not one of its values (${quoted(values)}); title only those values`,
        );
      }
    }
    return values as string[];
  }

  private singleSelect(
    schema: Schema,
    values: readonly unknown[],
    titles: ReadonlyMap<string, string> | undefined,
    fail: (what: string) => Error,
  ): Schema {
    const choices = this.options(values, titles, fail);
    const field: Schema = { type: 'string', ...labelsOf(schema) };
    if (titles && this.stateless) {
      field.oneOf = choices.map((value) => ({ const: value, title: titles.get(value) ?? value }));
    } else {
      field.enum = choices;
      // 2025-06-18 titles its enums with a parallel `enumNames` list.
      if (titles) field.enumNames = choices.map((value) => titles.get(value) ?? value);
    }
    return this.withDefault(field, choices.includes(schema.default as string), schema);
  }

  private multiSelect(
    schema: Schema,
    titles: ReadonlyMap<string, string> | undefined,
    fail: (what: string) => Error,
  ): Schema {
    const items = isRecord(schema.items) ? schema.items : undefined;
    if (!items || !Array.isArray(items.enum)) {
      throw fail(
        `is a list; ${PRIMITIVES} (a list only as a multi-select: @IsIn([...], { each: true }) or @IsEnum(E, { each: true }))`,
      );
    }
    const choices = this.options(items.enum, titles, fail);
    if (!this.stateless) {
      throw fail(
        `is a multi-select, which needs protocol version ${TITLED_VERSION} (2025-06-18 clients know single choices only); ask 2025-06-18 clients with a single choice or one boolean per option`,
      );
    }
    const field: Schema = { type: 'array', ...labelsOf(schema) };
    if (schema.minItems !== undefined) field.minItems = schema.minItems;
    if (schema.maxItems !== undefined) field.maxItems = schema.maxItems;
    field.items = titles
      ? { anyOf: choices.map((value) => ({ const: value, title: titles.get(value) ?? value })) }
      : { type: 'string', enum: choices };
    const fits = Array.isArray(schema.default) && schema.default.every((v) => choices.includes(v as string));
    return this.withDefault(field, fits, schema);
  }
}

/**
 * The form-mode `requestedSchema` of an `elicitation/create` for a DTO class, for the protocol
 * version the client negotiated. It starts from the class's tool-input schema
 * (`jsonSchemaFromClass`) and keeps what the restricted schema allows:
 *
 * - `title` (`@Title`), `description` (`@Description`), `required`; no `additionalProperties`,
 *   no class description;
 * - strings: `minLength`, `maxLength`, `format` email/uri/date/date-time (other formats and
 *   patterns are dropped: the server still validates the answer with the class);
 * - numbers and integers: `minimum`, `maximum` (an integer's exclusive bound becomes an inclusive one);
 * - `@IsIn`/`@IsEnum` of strings: a single choice; with `{ each: true }` and `@IsArray()`, a
 *   multi-select (2025-11-25 only); `@OptionTitles` makes it titled (`oneOf`/`anyOf`, or
 *   `enum` + `enumNames` for 2025-06-18);
 * - initializers as `default` where they fit the field (2025-06-18: booleans only).
 *
 * Nested objects, other lists, non-string enums and misused `@OptionTitles` throw a
 * `GantryError` (`GANTRY_ERR_INVALID_DECORATOR`) naming the class and property. Call it once,
 * at bootstrap, per protocol version.
 *
 * @example
 * ```ts
 * class SignupForm {
 *   @IsEmail() @Title('Email address') email!: string;
 *   @IsIn(['std', 'pro']) @OptionTitles({ std: 'Standard', pro: 'Professional' }) plan = 'std';
 * }
 * elicitationSchemaFromClass(SignupForm, { protocolVersion: '2025-11-25' });
 * // { type: 'object',
 * //   properties: { email: { type: 'string', title: 'Email address', format: 'email' },
 * //                 plan: { type: 'string', oneOf: [{ const: 'std', title: 'Standard' },
 * //                                                 { const: 'pro', title: 'Professional' }],
 * //                         default: 'std' } },
 * //   required: ['email'] }
 * ```
 */
export function elicitationSchemaFromClass(
  dto: Function,
  options: ElicitationSchemaOptions,
): ElicitationSchema {
  const label = options.context ?? `Elicitation form ${dto.name}`;
  const stateless = titledEnumsAllowed(options.protocolVersion, label);
  const model = readDtoModel(dto, { context: options.context ?? 'Elicitation form' });
  const input = schemaOfModel(model);
  const builder = new FormFieldBuilder(label, stateless, dto);
  const inputProperties = (input.properties ?? {}) as Record<string, Schema>;
  const properties: Record<string, object> = {};
  for (const property of model.properties) {
    properties[property.name] = builder.build(property, inputProperties[property.name]);
  }
  const schema: ElicitationSchema = { type: 'object', properties };
  if (input.required) schema.required = [...input.required];
  return schema;
}
