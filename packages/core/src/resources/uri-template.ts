/**
 * RFC 6570 URI templates for MCP resource templates (`resources/templates/list`, `uriTemplate`).
 *
 * A template is parsed once, at construction. `expand` implements levels 1–4 of RFC 6570 §3.2
 * (operators `+ # . / ; ? &`, explode `*`, prefix `:n`), except associative-array values, which
 * `UriVariables` cannot express. `match` is the inverse; RFC 6570 §1.4 leaves matching
 * undefined, so these are our rules:
 *
 * - The template is compiled once to one anchored RegExp; the whole URI must match.
 *   Literal text matches itself exactly, case-sensitively, in its expanded (percent-encoded) form.
 * - `{var}` is one or more characters other than `/ ? #`; `{+var}` one or more other than `? #`,
 *   so it may span `/`. An empty string expands like an undefined value, so these two never match
 *   empty. Every other expression is optional and may be empty: `{#var}` (any character after
 *   `#`), `{.var}` and `{/var}` (characters other than `/ ? #` after the `.` or `/`).
 * - Several variables in one expression are positional (`{x,y}`, `{/a,b}`): a later one is
 *   present only if the earlier ones are, and each value excludes the separator (`,` `.` `/`).
 *   A lone non-exploded variable may contain it: a list `{list}` comes back as the string
 *   `"red,green,blue"`, not split. An exploded `{list*}` comes back as an array.
 * - `{;a,b}`, `{?a,b}` and `{&a}` match parameters by name, in any order, each optional.
 *   Adjacent `?`/`&` expressions form one query. An unknown name, an empty parameter, or a
 *   repeated name whose variable is not exploded makes the URI not match: the template is the
 *   server's contract, and a lenient match would shadow more specific templates. `name` without
 *   `=` gives `""`; `+` is not read as a space (RFC 6570 never writes one for a space).
 * - `{var:n}` matches at most n characters (code points, a %-escaped UTF-8 sequence counting one).
 * - Values are percent-decoded; a malformed escape (`%zz`, invalid UTF-8) makes the URI not match.
 *   A variable used more than once must get the same value everywhere (a prefix agreeing with
 *   the full value).
 * - No backtracking between values, so matching is linear in the URI's length: a run of adjacent
 *   expressions is matched greedily left to right and atomically. A value ends at the first
 *   character that can start a later expression of the run, and never extends over the first
 *   occurrence of the literal text after the run. So `{+path}/here` matches `/a/b/here` but not
 *   `/a/here/b/here`, and `{name}.{ext}` splits `a.b.c` into `a` and `b.c`. For the same reason
 *   a `{var}` or `{+var}` expression may not directly follow another expression (`{a}{b}` could
 *   be split anywhere): the constructor rejects it.
 *
 * Limits: templates of at most 1024 characters and 32 variable references; prefixes 1–9999.
 */

/** Variable values for expansion, and what `match` returns: a string or a list of strings per name. */
export type UriVariables = Record<string, string | string[]>;

const MAX_TEMPLATE_LENGTH = 1024;
const MAX_VARIABLES = 32;
const MAX_PREFIX = 9999;

/** An invalid template (thrown by the constructor) or a value `expand` cannot apply. */
export class UriTemplateError extends Error {
  override name = 'UriTemplateError';
  /** The template at fault. */
  readonly template: string;
  /** 0-based index in the template where the problem is, when there is one. */
  readonly position: number | undefined;

  constructor(message: string, options: { template: string; position?: number }) {
    super(message);
    this.template = options.template;
    this.position = options.position;
  }
}

/** RFC 6570 §3.2.1 table (first, sep, named, ifemp, allow), plus what a value cannot contain when matched. */
interface Operator {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  readonly ifEmpty: string;
  readonly allowReserved: boolean;
  readonly excluded: string;
}

const OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['', { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false, excluded: '/?#' }],
  ['+', { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true, excluded: '?#' }],
  ['#', { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true, excluded: '' }],
  ['.', { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false, excluded: '/?#' }],
  ['/', { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false, excluded: '/?#' }],
  [';', { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false, excluded: '/?#' }],
  ['?', { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false, excluded: '#' }],
  ['&', { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false, excluded: '#' }],
]);

/** RFC 6570 §2.2 op-reserve: kept for future extensions, so not valid today. */
const RESERVED_OPERATORS = '=,!@|';

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  /** Maximum length in characters; 0 when there is no prefix modifier. */
  readonly prefix: number;
}

interface Expression {
  readonly kind: 'expression';
  readonly operator: Operator;
  readonly vars: readonly VarSpec[];
}

interface Literal {
  readonly kind: 'literal';
  readonly text: string;
  /** The text as expansion writes it (RFC 6570 §3.1). */
  readonly encoded: string;
}

type Part = Literal | Expression;

/** How to read one capture group of the compiled RegExp. */
type Capture =
  | { readonly kind: 'value'; readonly index: number; readonly spec: VarSpec }
  | { readonly kind: 'list'; readonly index: number; readonly spec: VarSpec; readonly separator: string }
  | {
      readonly kind: 'pairs';
      readonly index: number;
      readonly separator: string;
      readonly specs: ReadonlyMap<string, VarSpec>;
    };

interface Found {
  readonly spec: VarSpec;
  readonly value: string | string[];
}

/**
 * A parsed RFC 6570 URI template that expands variables into a URI and matches URIs back to variables.
 *
 * @example
 * const template = new UriTemplate('repo://{owner}/{repo}/issues{?state,labels}');
 * template.expand({ owner: 'acme', repo: 'web', state: 'open' }); // 'repo://acme/web/issues?state=open'
 * template.match('repo://acme/web/issues?state=open'); // { owner: 'acme', repo: 'web', state: 'open' }
 */
export class UriTemplate {
  /** The template text, as given. */
  readonly template: string;
  /** Names of the variables, in order of first appearance, each once. */
  readonly variableNames: readonly string[];
  /** True when the template has no expressions (a plain URI). */
  readonly isStatic: boolean;

  readonly #parts: readonly Part[];
  readonly #regex: RegExp;
  readonly #captures: readonly Capture[];
  readonly #literalLength: number;
  readonly #reservedCount: number;

  /** Parses `template`; throws `UriTemplateError` naming the problem and its position. */
  constructor(template: string) {
    this.template = template;
    this.#parts = parse(template);
    const names = new Set<string>();
    let literalLength = 0;
    let reservedCount = 0;
    for (const part of this.#parts) {
      if (part.kind === 'literal') {
        literalLength += part.text.length;
        continue;
      }
      if (part.operator.allowReserved) reservedCount++;
      for (const spec of part.vars) names.add(spec.name);
    }
    this.variableNames = [...names];
    this.isStatic = names.size === 0;
    this.#literalLength = literalLength;
    this.#reservedCount = reservedCount;
    const { regex, captures } = compile(this.#parts);
    this.#regex = regex;
    this.#captures = captures;
  }

  /**
   * Expands the template (RFC 6570 §3.2). Missing names, `undefined` and empty lists are undefined
   * values and vanish with their operator's prefix or separator.
   *
   * @example new UriTemplate('users{/id*}').expand({ id: ['7', 'posts'] }); // 'users/7/posts'
   */
  expand(variables: UriVariables): string {
    let uri = '';
    for (const part of this.#parts) {
      uri += part.kind === 'literal' ? part.encoded : this.#expandExpression(part, variables);
    }
    return uri;
  }

  /**
   * Returns the variables that expand to `uri`, percent-decoded, or `null` when `uri` does not
   * fit the template. Absent optional variables are absent from the result. See the rules in
   * this file's header.
   *
   * @example new UriTemplate('notes://{id}').match('notes://a%20b'); // { id: 'a b' }
   */
  match(uri: string): UriVariables | null {
    const groups = this.#regex.exec(uri);
    if (groups === null) return null;
    const found = new Map<string, Found[]>();
    const add = (spec: VarSpec, value: string | string[]) => {
      const list = found.get(spec.name);
      if (list === undefined) found.set(spec.name, [{ spec, value }]);
      else list.push({ spec, value });
    };
    for (const capture of this.#captures) {
      const raw = groups[capture.index];
      if (raw === undefined) continue;
      if (capture.kind === 'value') {
        const value = decode(raw);
        if (value === undefined) return null;
        add(capture.spec, value);
      } else if (capture.kind === 'list') {
        const items = decodeAll(raw.split(capture.separator));
        if (items === undefined) return null;
        add(capture.spec, items);
      } else if (!readPairs(raw.slice(1).split(capture.separator), capture.specs, add)) {
        return null;
      }
    }
    const entries: [string, string | string[]][] = [];
    for (const [name, occurrences] of found) {
      const value = agreedValue(occurrences);
      if (value === undefined) return null;
      entries.push([name, value]);
    }
    // fromEntries defines own properties, so a variable named `__proto__` is an ordinary key.
    return Object.fromEntries(entries);
  }

  /**
   * Orders templates for matching, most specific first (use with `Array.prototype.sort`):
   * more literal characters first (`notes://index` before `notes://{id}`), then fewer distinct
   * variables, then fewer `{+…}`/`{#…}` expressions (which span `/`), then the template text, so
   * the order is total and does not depend on registration order.
   */
  static compareSpecificity(a: UriTemplate, b: UriTemplate): number {
    return (
      b.#literalLength - a.#literalLength ||
      a.variableNames.length - b.variableNames.length ||
      a.#reservedCount - b.#reservedCount ||
      (a.template < b.template ? -1 : a.template > b.template ? 1 : 0)
    );
  }

  /** The template text. */
  toString(): string {
    return this.template;
  }

  #expandExpression(expression: Expression, variables: UriVariables): string {
    const { operator } = expression;
    let out = '';
    let first = true;
    for (const spec of expression.vars) {
      const value = Object.hasOwn(variables, spec.name) ? variables[spec.name] : undefined;
      if (value == null || (Array.isArray(value) && value.length === 0)) continue;
      out += first ? operator.first : operator.separator;
      first = false;
      if (!Array.isArray(value)) {
        const text = spec.prefix === 0 ? String(value) : truncate(String(value), spec.prefix);
        out += operator.named ? namedValue(spec.name, text, operator) : encode(text, operator.allowReserved);
        continue;
      }
      if (spec.prefix !== 0) {
        throw new UriTemplateError(
          `Cannot expand URI template ${quote(this.template)}: variable "${spec.name}" is a list, and ` +
            `the prefix ":${spec.prefix}" applies to strings only (RFC 6570 section 2.4.1)`,
          { template: this.template },
        );
      }
      if (!spec.explode) {
        const joined = value.map((item) => encode(item, operator.allowReserved)).join(',');
        out += operator.named ? `${spec.name}=${joined}` : joined;
      } else if (operator.named) {
        out += value.map((item) => namedValue(spec.name, item, operator)).join(operator.separator);
      } else {
        out += value.map((item) => encode(item, operator.allowReserved)).join(operator.separator);
      }
    }
    return out;
  }
}

function namedValue(name: string, value: string, operator: Operator): string {
  return value === '' ? name + operator.ifEmpty : `${name}=${encode(value, operator.allowReserved)}`;
}

// ---------------------------------------------------------------------------------------------
// Parsing (RFC 6570 §2)

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const PREFIX = /^[1-9][0-9]{0,3}$/;

function parse(template: string): Part[] {
  const fail = (problem: string, position?: number): never => {
    throw new UriTemplateError(`Invalid URI template ${quote(template)}: ${problem}`, { template, position });
  };
  if (template.length > MAX_TEMPLATE_LENGTH) {
    fail(`${template.length} characters, over the limit of ${MAX_TEMPLATE_LENGTH}; shorten it`);
  }
  const parts: Part[] = [];
  let variableCount = 0;
  let literalStart = 0;
  const pushLiteral = (end: number) => {
    if (end === literalStart) return;
    const text = template.slice(literalStart, end);
    parts.push({ kind: 'literal', text, encoded: encode(text, true) });
  };
  for (let i = 0; i < template.length; i++) {
    const char = template[i];
    if (char === '}') fail(`unmatched "}" at position ${i}`, i);
    if (char !== '{') continue;
    pushLiteral(i);
    const close = template.indexOf('}', i + 1);
    const reopen = template.indexOf('{', i + 1);
    if (close === -1 || (reopen !== -1 && reopen < close)) fail(`unclosed "{" at position ${i}`, i);
    if (close === i + 1) fail(`empty expression at position ${i}`, i);
    const opChar = template[i + 1];
    if (RESERVED_OPERATORS.includes(opChar)) {
      fail(`unknown operator "${opChar}" at position ${i + 1}; use one of + # . / ; ? &`, i + 1);
    }
    const operator = OPERATORS.get(opChar);
    let offset = operator === undefined ? i + 1 : i + 2;
    if (offset === close) fail(`empty expression at position ${i}`, i);
    const follows = parts.length > 0 && parts[parts.length - 1].kind === 'expression';
    if (follows && (operator === undefined || operator.first === '')) {
      fail(
        `expression at position ${i} directly follows another expression, so a URI cannot be ` +
          'split between them; put literal text in between',
        i,
      );
    }
    const vars: VarSpec[] = [];
    for (const raw of template.slice(offset, close).split(',')) {
      if (++variableCount > MAX_VARIABLES) {
        fail(
          `too many variables at position ${offset}; a template may reference at most ${MAX_VARIABLES}`,
          offset,
        );
      }
      vars.push(parseVarSpec(raw, offset, fail));
      offset += raw.length + 1;
    }
    parts.push({ kind: 'expression', operator: operator ?? OPERATORS.get('')!, vars });
    i = close;
    literalStart = close + 1;
  }
  pushLiteral(template.length);
  return parts;
}

function parseVarSpec(raw: string, position: number, fail: (problem: string, position?: number) => never) {
  const colon = raw.indexOf(':');
  const explode = colon === -1 && raw.endsWith('*');
  const name = colon !== -1 ? raw.slice(0, colon) : explode ? raw.slice(0, -1) : raw;
  const badPrefix = (advice: string): never =>
    fail(
      `bad prefix "${raw.slice(colon)}" on variable "${name.replace(/\*$/, '')}" at position ` +
        `${position + colon}; ${advice}`,
      position + colon,
    );
  const both = 'a variable takes a prefix or explode "*", not both';
  // `{var*:3}` and `{var:3*}`: RFC 6570 section 2.4 allows one modifier per variable.
  if (colon !== -1 && name.endsWith('*') && VARNAME.test(name.slice(0, -1))) badPrefix(both);
  if (!VARNAME.test(name)) {
    fail(
      `invalid variable name "${name}" at position ${position}; use letters, digits, "_", ` +
        'inner "." and %-escapes',
      position,
    );
  }
  if (colon === -1) return { name, explode, prefix: 0 };
  const digits = raw.slice(colon + 1);
  if (digits.endsWith('*') && PREFIX.test(digits.slice(0, -1))) badPrefix(both);
  if (!PREFIX.test(digits)) badPrefix(`use a length from 1 to ${MAX_PREFIX}`);
  return { name, explode, prefix: Number(digits) };
}

function quote(template: string): string {
  return `"${template.length > 64 ? `${template.slice(0, 64)}…` : template}"`;
}

// ---------------------------------------------------------------------------------------------
// Compiling the matcher

/** One character of a value: a raw character, or a %-escaped UTF-8 sequence (counted as one). */
const PCT_CHAR =
  '%[0-7][0-9A-Fa-f]|%[CDcd][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|' +
  '%[Ee][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){2}|%[Ff][0-7](?:%[89ABab][0-9A-Fa-f]){3}';

/** Expressions of a run that the matcher reads as one: an unnamed expression, or adjacent named ones. */
type Unit =
  | { readonly kind: 'expression'; readonly expression: Expression }
  | { readonly kind: 'pairs'; readonly family: string; readonly expressions: Expression[] };

function compile(parts: readonly Part[]): { regex: RegExp; captures: Capture[] } {
  const captures: Capture[] = [];
  let group = 0;
  let source = '^';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.kind === 'literal') {
      source += escapeRegExp(part.encoded);
      continue;
    }
    const units: Unit[] = [];
    for (; i < parts.length && parts[i].kind === 'expression'; i++) {
      const expression = parts[i] as Expression;
      const { operator } = expression;
      const family = operator.first === '&' ? '?' : operator.first;
      const last = units[units.length - 1];
      if (!operator.named) units.push({ kind: 'expression', expression });
      else if (last?.kind === 'pairs' && last.family === family) last.expressions.push(expression);
      else units.push({ kind: 'pairs', family, expressions: [expression] });
    }
    const next = parts[i];
    i--;
    // A value never runs over the literal after the run: every consumed character is guarded.
    const guard = next === undefined ? '' : `(?!${escapeRegExp((next as Literal).encoded)})`;
    const wrapper = ++group;
    let run = '';
    units.forEach((unit, u) => {
      const stops = units
        .slice(u + 1)
        .map(leadCharacters)
        .join('');
      if (unit.kind === 'pairs') {
        const operator = unit.expressions[0].operator;
        const specs = new Map<string, VarSpec>();
        for (const expression of unit.expressions) {
          for (const spec of expression.vars) if (!specs.has(spec.name)) specs.set(spec.name, spec);
        }
        captures.push({ kind: 'pairs', index: ++group, separator: operator.separator, specs });
        const leads = leadCharacters(unit);
        run += `(${guard}[${escapeClass(leads)}]${valueChar(operator.excluded + stops, guard)}*)?`;
        return;
      }
      const { operator, vars } = unit.expression;
      const required = operator.first === '';
      if (!required) run += `(?:${guard}${escapeRegExp(operator.first)}`;
      vars.forEach((spec, v) => {
        if (v > 0) run += `(?:${guard}${escapeRegExp(operator.separator)}`;
        let excluded = operator.excluded + stops;
        if (spec.explode && !stops.includes(operator.separator)) {
          excluded = excluded.replaceAll(operator.separator, '');
        } else if (!spec.explode && vars.length > 1) {
          excluded += operator.separator;
        }
        const min = required && v === 0 ? 1 : 0;
        const quantifier = spec.prefix !== 0 ? `{${min},${spec.prefix}}` : min === 1 ? '+' : '*';
        const index = ++group;
        captures.push(
          spec.explode
            ? { kind: 'list', index, spec, separator: operator.separator }
            : { kind: 'value', index, spec },
        );
        run += `(${valueChar(excluded, guard)}${quantifier})`;
      });
      run += ')?'.repeat(vars.length - 1);
      if (!required) run += ')?';
    });
    // (?=(…))\N is an atomic group: once the run has matched, the engine cannot backtrack into it.
    source += `(?=(${run}))(?:\\${wrapper})`;
  }
  return { regex: new RegExp(`${source}$`, 'u'), captures };
}

function leadCharacters(unit: Unit): string {
  if (unit.kind === 'expression') return unit.expression.operator.first;
  return [...new Set(unit.expressions.map((expression) => expression.operator.first))].join('');
}

function valueChar(excluded: string, guard: string): string {
  return `(?:${guard}(?:[^%${escapeClass(excluded)}]|${PCT_CHAR}))`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function escapeClass(chars: string): string {
  return [...new Set(chars)].join('').replace(/[\\\]^[-]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------
// Reading matches

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // an overlong or surrogate UTF-8 sequence that the RegExp let through
  }
}

function decodeAll(raws: string[]): string[] | undefined {
  const values: string[] = [];
  for (const raw of raws) {
    const value = decode(raw);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/** Reads `name=value` parameters (`;`, `?`, `&`); false when one is unknown, repeated or malformed. */
function readPairs(
  pieces: string[],
  specs: ReadonlyMap<string, VarSpec>,
  add: (spec: VarSpec, value: string | string[]) => void,
): boolean {
  const values = new Map<VarSpec, string | string[]>();
  for (const piece of pieces) {
    const equals = piece.indexOf('=');
    const spec = specs.get(equals === -1 ? piece : piece.slice(0, equals));
    if (spec === undefined) return false;
    const value = equals === -1 ? '' : decode(piece.slice(equals + 1));
    if (value === undefined) return false;
    if (spec.prefix !== 0 && codePointLength(value) > spec.prefix) return false;
    const previous = values.get(spec);
    if (!spec.explode) {
      if (previous !== undefined) return false;
      values.set(spec, value);
    } else if (previous === undefined) {
      values.set(spec, [value]);
    } else {
      (previous as string[]).push(value);
    }
  }
  for (const [spec, value] of values) add(spec, value);
  return true;
}

/** The value of a variable captured in several places, or undefined when the places disagree. */
function agreedValue(occurrences: Found[]): string | string[] | undefined {
  if (occurrences.length === 1) return occurrences[0].value;
  const canonical =
    occurrences.find((found) => found.spec.explode) ??
    occurrences.find((found) => found.spec.prefix === 0) ??
    occurrences.reduce((longest, found) => (found.value.length > longest.value.length ? found : longest));
  for (const found of occurrences) {
    if (found.spec.explode) {
      const expected = Array.isArray(canonical.value) ? canonical.value : [canonical.value];
      const actual = found.value as string[];
      if (expected.length !== actual.length || expected.some((item, i) => item !== actual[i]))
        return undefined;
      continue;
    }
    let expected = Array.isArray(canonical.value) ? canonical.value.join(',') : canonical.value;
    if (found.spec.prefix !== 0) expected = truncate(expected, found.spec.prefix);
    if (expected !== found.value) return undefined;
  }
  return canonical.value;
}

// ---------------------------------------------------------------------------------------------
// Encoding (RFC 6570 §1.5, §3.2.1)

const HEX = Array.from({ length: 256 }, (_, byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`);
const utf8 = new TextEncoder();
/** Runs of characters outside `unreserved`. */
const NOT_UNRESERVED = /[^A-Za-z0-9\-._~]+/gu;
/** Runs of characters outside `unreserved / reserved / pct-encoded`. */
const NOT_URI = /(?:[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]|%(?![0-9A-Fa-f]{2}))+/gu;

/** Percent-encodes UTF-8 bytes; a lone surrogate becomes U+FFFD (TextEncoder's rule). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of utf8.encode(text)) out += HEX[byte];
  return out;
}

function encode(value: string, allowReserved: boolean): string {
  return value.replace(allowReserved ? NOT_URI : NOT_UNRESERVED, percentEncode);
}

/** The first `max` code points of `value` (RFC 6570 §2.4.1 counts characters, not UTF-16 units). */
function truncate(value: string, max: number): string {
  let end = 0;
  for (let count = 0; count < max && end < value.length; count++) {
    end += value.codePointAt(end)! > 0xffff ? 2 : 1;
  }
  return value.slice(0, end);
}

function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}
