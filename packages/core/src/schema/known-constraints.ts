/**
 * What each class-validator built-in contributes to a JSON Schema. The table is keyed by the
 * `name` class-validator records for the decorator (`@IsString()` → `isString`).
 */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

/** A type the schema will state, and the decorator that asked for it (for conflict messages). */
export interface TypeClaim {
  readonly type: JsonType;
  readonly decorator: string;
}

/** Keywords gathered for one value: a property, or the items of an array property. */
export interface SchemaDraft {
  readonly types: TypeClaim[];
  readonly patterns: string[];
  enumValues?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  /** `@IsNotEmpty()`: `minLength: 1` once the value is known to be a string. */
  notEmpty: boolean;
  /** A decorator said what the value is (a type, a format, a range, a list of values…). */
  described: boolean;
}

export function emptyDraft(): SchemaDraft {
  return { types: [], patterns: [], notEmpty: false, described: false };
}

interface KnownConstraint {
  /** The decorator as a user writes it, for messages. */
  readonly decorator: string;
  apply(draft: SchemaDraft, constraints: readonly unknown[]): void;
}

const claim = (draft: SchemaDraft, type: JsonType, decorator: string) => {
  draft.types.push({ type, decorator });
  draft.described = true;
};
const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value);
const larger = (current: number | undefined, value: number) =>
  current === undefined ? value : Math.max(current, value);
const smaller = (current: number | undefined, value: number) =>
  current === undefined ? value : Math.min(current, value);

function typeOnly(decorator: string, type: JsonType): KnownConstraint {
  return { decorator, apply: (draft) => claim(draft, type, decorator) };
}

function format(decorator: string, name: string): KnownConstraint {
  return {
    decorator,
    apply(draft) {
      claim(draft, 'string', decorator);
      draft.format = name;
    },
  };
}

/** The JSON type of a list of enum values, when they share one. */
function typeOfValues(values: readonly unknown[]): JsonType | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => typeof v === 'number'))
    return values.every(Number.isInteger) ? 'integer' : 'number';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  return undefined;
}

function restrictValues(draft: SchemaDraft, values: readonly unknown[]): void {
  draft.enumValues = draft.enumValues ? draft.enumValues.filter((v) => values.includes(v)) : [...values];
  draft.described = true;
}

/** Flags that change what a regular expression matches and that JSON Schema's `pattern` cannot carry. */
const INEXPRESSIBLE_FLAGS = /[ims]/;

function patternOf(pattern: unknown, modifiers: unknown): string | undefined {
  if (pattern instanceof RegExp) return INEXPRESSIBLE_FLAGS.test(pattern.flags) ? undefined : pattern.source;
  if (typeof pattern !== 'string') return undefined;
  if (typeof modifiers === 'string' && INEXPRESSIBLE_FLAGS.test(modifiers)) return undefined;
  return pattern;
}

const KNOWN: Record<string, KnownConstraint> = {
  isString: typeOnly('IsString', 'string'),
  isNumber: typeOnly('IsNumber', 'number'),
  isInt: typeOnly('IsInt', 'integer'),
  isBoolean: typeOnly('IsBoolean', 'boolean'),
  isArray: typeOnly('IsArray', 'array'),
  isEnum: {
    decorator: 'IsEnum',
    apply(draft, [, values]) {
      // class-validator's own list (`validEnumValues`): the reverse mapping of numeric enums is
      // left out, so `enum Color { Red }` gives [0], not [0, 'Red'].
      const list = Array.isArray(values) ? values : [];
      const type = typeOfValues(list);
      if (type) claim(draft, type, 'IsEnum');
      restrictValues(draft, list);
    },
  },
  isIn: {
    decorator: 'IsIn',
    apply(draft, [values]) {
      restrictValues(draft, Array.isArray(values) ? values : []);
    },
  },
  min: {
    decorator: 'Min',
    apply(draft, [value]) {
      claim(draft, 'number', 'Min');
      if (isNumber(value)) draft.minimum = larger(draft.minimum, value);
    },
  },
  max: {
    decorator: 'Max',
    apply(draft, [value]) {
      claim(draft, 'number', 'Max');
      if (isNumber(value)) draft.maximum = smaller(draft.maximum, value);
    },
  },
  isPositive: {
    decorator: 'IsPositive',
    apply(draft) {
      claim(draft, 'number', 'IsPositive');
      draft.exclusiveMinimum = larger(draft.exclusiveMinimum, 0);
    },
  },
  isNegative: {
    decorator: 'IsNegative',
    apply(draft) {
      claim(draft, 'number', 'IsNegative');
      draft.exclusiveMaximum = smaller(draft.exclusiveMaximum, 0);
    },
  },
  minLength: {
    decorator: 'MinLength',
    apply(draft, [min]) {
      claim(draft, 'string', 'MinLength');
      if (isNumber(min)) draft.minLength = larger(draft.minLength, min);
    },
  },
  maxLength: {
    decorator: 'MaxLength',
    apply(draft, [max]) {
      claim(draft, 'string', 'MaxLength');
      if (isNumber(max)) draft.maxLength = smaller(draft.maxLength, max);
    },
  },
  isLength: {
    decorator: 'Length',
    apply(draft, [min, max]) {
      claim(draft, 'string', 'Length');
      if (isNumber(min)) draft.minLength = larger(draft.minLength, min);
      if (isNumber(max)) draft.maxLength = smaller(draft.maxLength, max);
    },
  },
  matches: {
    decorator: 'Matches',
    apply(draft, [pattern, modifiers]) {
      claim(draft, 'string', 'Matches');
      // A pattern whose flags JSON Schema cannot express (i, m, s) is left out rather than
      // advertised with another meaning; validation still applies it.
      const source = patternOf(pattern, modifiers);
      if (source !== undefined && !draft.patterns.includes(source)) draft.patterns.push(source);
    },
  },
  isEmail: format('IsEmail', 'email'),
  isUrl: format('IsUrl', 'uri'),
  isUuid: format('IsUUID', 'uuid'),
  isDateString: format('IsDateString', 'date-time'),
  isIso8601: format('IsISO8601', 'date-time'),
  arrayMinSize: {
    decorator: 'ArrayMinSize',
    apply(draft, [min]) {
      claim(draft, 'array', 'ArrayMinSize');
      if (isNumber(min)) draft.minItems = larger(draft.minItems, min);
    },
  },
  arrayMaxSize: {
    decorator: 'ArrayMaxSize',
    apply(draft, [max]) {
      claim(draft, 'array', 'ArrayMaxSize');
      if (isNumber(max)) draft.maxItems = smaller(draft.maxItems, max);
    },
  },
  isNotEmpty: {
    decorator: 'IsNotEmpty',
    apply(draft) {
      draft.notEmpty = true;
    },
  },
  isDefined: { decorator: 'IsDefined', apply: () => {} },
};

/** The schema contribution of a built-in, or undefined for a custom or unknown constraint. */
export function knownConstraint(name: string | undefined): KnownConstraint | undefined {
  return name !== undefined && Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
}

/**
 * The one type the claims agree on (`number` + `integer` → `integer`), `undefined` when there
 * is none, or the two claims that contradict each other.
 */
export function resolveType(
  claims: readonly TypeClaim[],
): { type: JsonType | undefined } | { conflict: [TypeClaim, TypeClaim] } {
  let chosen: TypeClaim | undefined;
  for (const current of claims) {
    if (!chosen || chosen.type === current.type) {
      chosen ??= current;
      continue;
    }
    const numeric = (t: JsonType) => t === 'number' || t === 'integer';
    if (numeric(chosen.type) && numeric(current.type)) {
      if (current.type === 'integer') chosen = current;
      continue;
    }
    return { conflict: [chosen, current] };
  }
  return { type: chosen?.type };
}
