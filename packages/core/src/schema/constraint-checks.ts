import type { ConstraintMetadata, ValidationMetadata } from './metadata-sources';
import { classValidator } from './peer-libraries';

/**
 * Plain checks for class-validator's built-ins, with the exact semantics of the validator each
 * one replaces (its `validate` in class-validator 0.15), and messages worded by class-validator
 * itself: the message is built only when a check fails.
 */

/** Words the message of a failed check, given the object validated and the value. */
export type MessageBuilder = (object: object, value: unknown) => string;

/** One compiled check of a property. */
export interface CompiledCheck {
  /** `{ each: true }`: applied to every item when the value is an array, to the value otherwise. */
  readonly each: boolean;
  readonly test: (value: unknown) => boolean;
  readonly message: MessageBuilder;
}

interface MessageArguments {
  targetName: string | undefined;
  property: string;
  object: object;
  value: unknown;
  constraints: unknown[];
}

function constraintToString(constraint: unknown): string {
  if (Array.isArray(constraint)) return constraint.join(', ');
  if (typeof constraint === 'symbol') return `${constraint.description}`;
  return `${constraint}`;
}

/** class-validator's `ValidationUtils.replaceMessageSpecialTokens` (not exported by the package). */
function replaceTokens(message: unknown, args: MessageArguments): string {
  let text: string | undefined;
  if (typeof message === 'function') text = message(args);
  else if (typeof message === 'string') text = message;
  if (text && Array.isArray(args.constraints)) {
    args.constraints.forEach((constraint, index) => {
      text = text!.replace(new RegExp(`\\$constraint${index + 1}`, 'g'), constraintToString(constraint));
    });
  }
  const { value } = args;
  if (text && (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')) {
    text = text.replace(/\$value/g, String(value));
  }
  if (text) text = text.replace(/\$property/g, args.property);
  if (text) text = text.replace(/\$target/g, `${args.targetName}`);
  return text ?? '';
}

/** class-validator's `createValidationError` wording: the decorator's `message`, else the default one. */
export function messageBuilder(
  metadata: ValidationMetadata,
  constraint?: ConstraintMetadata,
): MessageBuilder {
  const instance = constraint?.instance as
    | { defaultMessage?: (args: MessageArguments) => string }
    | undefined;
  const custom = metadata.message;
  // The built-ins' default messages depend on the value only for @Length() (which bound
  // failed), and the object is always of one class: such messages are worded once, at first failure.
  const constant = custom
    ? typeof custom === 'string' && !custom.includes('$value')
    : metadata.name !== 'isLength';
  let worded: string | undefined;
  return (object, value) => {
    if (worded !== undefined) return worded;
    const args: MessageArguments = {
      targetName: object.constructor ? object.constructor.name : undefined,
      property: metadata.propertyName,
      object,
      value,
      constraints: metadata.constraints,
    };
    let message: unknown = custom || '';
    if (!custom && typeof instance?.defaultMessage === 'function') message = instance.defaultMessage(args);
    const text = replaceTokens(message, args);
    if (constant) worded = text;
    return text;
  };
}

/**
 * The length `validator`'s `isLength` counts: UTF-16 units, less surrogate pairs and
 * presentation sequences (a character followed by U+FE0E/U+FE0F), each counted as in its
 * two global regular expressions.
 */
function visibleLength(text: string): number {
  const n = text.length;
  let i = 0;
  while (i < n && text.charCodeAt(i) < 0xd800) i++;
  if (i === n) return n;
  let presentation = 0;
  for (let j = 0; j < n - 1; ) {
    const c = text.charCodeAt(j);
    const d = text.charCodeAt(j + 1);
    if (c !== 0xfe0e && c !== 0xfe0f && (d === 0xfe0e || d === 0xfe0f)) {
      presentation++;
      j += 2;
    } else j++;
  }
  let pairs = 0;
  for (let j = 0; j < n - 1; ) {
    const c = text.charCodeAt(j);
    const d = text.charCodeAt(j + 1);
    if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
      pairs++;
      j += 2;
    } else j++;
  }
  return n - presentation - pairs;
}

type Test = (value: unknown) => boolean;
const num = (value: unknown): value is number => typeof value === 'number';
const isRegExp = (value: unknown): value is RegExp =>
  Object.prototype.toString.call(value) === '[object RegExp]';

function defaultNumberOptions(options: unknown): boolean {
  if (options === undefined || options === null) return true;
  const o = options as { allowNaN?: unknown; allowInfinity?: unknown; maxDecimalPlaces?: unknown };
  return !o.allowNaN && !o.allowInfinity && o.maxDecimalPlaces === undefined;
}

function matchesTest(pattern: unknown, modifiers: unknown): Test | undefined {
  let re: RegExp;
  if (isRegExp(pattern)) re = pattern;
  else if (typeof pattern === 'string' && (modifiers === undefined || typeof modifiers === 'string')) {
    re = new RegExp(pattern, modifiers);
  } else return undefined;
  // A sticky expression keeps state between calls; leave it to class-validator.
  if (re.sticky) return undefined;
  if (re.global) return (v) => typeof v === 'string' && v.match(re) !== null;
  return (v) => typeof v === 'string' && re.test(v);
}

/** The plain test for a built-in, or undefined when the fast path cannot reproduce it exactly. */
function builtinTest(name: string | undefined, constraints: readonly unknown[]): Test | undefined {
  const [a, b] = constraints;
  switch (name) {
    case 'isString':
      return (v) => typeof v === 'string' || v instanceof String;
    case 'isNumber':
      return defaultNumberOptions(a)
        ? (v) => typeof v === 'number' && Number.isFinite(v)
        : (v) => classValidator().isNumber(v, a as {});
    case 'isInt':
      return (v) => typeof v === 'number' && Number.isInteger(v);
    case 'isBoolean':
      return (v) => typeof v === 'boolean' || v instanceof Boolean;
    case 'isEnum': {
      if (typeof a !== 'object' || a === null) return undefined;
      const values = Object.keys(a).map((key) => (a as Record<string, unknown>)[key]);
      return (v) => values.includes(v);
    }
    case 'isIn': {
      if (!Array.isArray(a)) return () => false;
      if (a.some((v) => Number.isNaN(v))) return (v) => a.some((p) => p === v);
      const set = new Set(a);
      return (v) => set.has(v);
    }
    case 'min':
      return num(a) ? (v) => typeof v === 'number' && v >= a : () => false;
    case 'max':
      return num(a) ? (v) => typeof v === 'number' && v <= a : () => false;
    case 'isPositive':
      return (v) => typeof v === 'number' && v > 0;
    case 'isNegative':
      return (v) => typeof v === 'number' && v < 0;
    case 'minLength':
      return num(a) ? (v) => typeof v === 'string' && visibleLength(v) >= (a || 0) : undefined;
    case 'maxLength':
      return num(a) ? (v) => typeof v === 'string' && visibleLength(v) <= a : undefined;
    case 'isLength': {
      if ((a !== undefined && !num(a)) || (b !== undefined && !num(b))) return undefined;
      const min = a || 0;
      return (v) => {
        if (typeof v !== 'string') return false;
        const length = visibleLength(v);
        return length >= min && (b === undefined || length <= b);
      };
    }
    case 'matches':
      return matchesTest(a, b);
    case 'isEmail':
      return (v) => classValidator().isEmail(v, a as {});
    case 'isUrl':
      return (v) => classValidator().isURL(v as string, a as {});
    case 'isUuid':
      return (v) => classValidator().isUUID(v, a as 4);
    case 'isDateString':
      return (v) => classValidator().isDateString(v, a as {});
    case 'isIso8601':
      return (v) => classValidator().isISO8601(v, a as {});
    case 'isNotEmpty':
      return (v) => v !== '' && v !== null && v !== undefined;
    case 'isArray':
      return Array.isArray;
    case 'arrayMinSize':
      return num(a) ? (v) => Array.isArray(v) && v.length >= a : undefined;
    case 'arrayMaxSize':
      return num(a) ? (v) => Array.isArray(v) && v.length <= a : undefined;
    default:
      return undefined;
  }
}

/** A compiled check for one custom-validation metadata, or undefined if it is not a plain built-in. */
export function compileCheck(
  metadata: ValidationMetadata,
  constraints: readonly ConstraintMetadata[],
): CompiledCheck | undefined {
  if (constraints.length !== 1 || constraints[0].async) return undefined;
  const test = builtinTest(metadata.name, metadata.constraints ?? []);
  if (!test) return undefined;
  return { each: metadata.each === true, test, message: messageBuilder(metadata, constraints[0]) };
}
