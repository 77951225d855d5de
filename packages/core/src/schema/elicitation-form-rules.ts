import { decoratorError } from '../decorators/decorator-error';

/*
 * What the form-mode `requestedSchema` may hold, per protocol revision: shared by
 * `elicitationSchemaFromClass` (which builds one) and `checkElicitationSchema` (which checks one).
 */

/**
 * The `requestedSchema` of a form-mode `elicitation/create` (2025-11-25 `ElicitRequestFormParams`):
 * a flat object whose properties are restricted primitive schemas (MCP 2025-11-25, Client Features › Elicitation › Requested Schema).
 */
export interface ElicitationSchema {
  $schema?: string;
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
}

/** The negotiated protocol version, and where messages say the schema comes from. */
export interface ElicitationSchemaOptions {
  /** `'2025-11-25'` or `'2025-06-18'` (later revisions take the 2025-11-25 rules). */
  readonly protocolVersion: string;
  /** Replaces the `Elicitation form SignupForm` prefix of error messages. */
  readonly context?: string;
}

export type Schema = Record<string, unknown>;

export const PRIMITIVES = 'elicitation forms hold only strings, numbers, integers, booleans and enums';
/** 2025-11-25 `StringSchema.format`: the only formats a form field may declare. */
export const FORMATS: ReadonlySet<unknown> = new Set(['email', 'uri', 'date', 'date-time']);
const FIRST_VERSION = '2025-06-18';
export const TITLED_VERSION = '2025-11-25';

/**
 * Whether the 2025-11-25 primitives apply (titled and multi-select enums, defaults on every
 * primitive, `$schema`), or 2025-06-18's narrower set (MCP 2025-06-18, Client Features › Elicitation › Requested Schema). Revision ids are dates, so they
 * order as strings; the 2026 revisions keep the 2025-11-25 primitives.
 */
export function titledEnumsAllowed(protocolVersion: string, label: string): boolean {
  if (typeof protocolVersion !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(protocolVersion)) {
    throw decoratorError(
      `${label}: protocolVersion must be a protocol revision such as '2025-11-25'; got ${JSON.stringify(protocolVersion)}`,
    );
  }
  if (protocolVersion < FIRST_VERSION) {
    throw decoratorError(
      `${label}: protocol version ${protocolVersion} has no elicitation (it arrived in ${FIRST_VERSION}); check that the client declared the elicitation capability before asking`,
    );
  }
  return protocolVersion >= TITLED_VERSION;
}

/** `'red', 'green'` (strings in single quotes, as in TypeScript), for messages. */
export const quoted = (values: readonly unknown[]) =>
  values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ');
export const isRecord = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
