import 'reflect-metadata';
import { Expose, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsNegative,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  type ArgsValidator,
  compileClassValidator,
  compileJsonSchemaValidator,
  formatIssues,
  type ValidationIssue,
  type ValidationOutcome,
} from '../src/schema';
import { compileClassValidatorPath } from '../src/schema/class-validator-path';
import { readDtoModel } from '../src/schema/dto-model';
import { compileFastPath } from '../src/schema/fast-path';

enum Priority {
  Low,
  High,
}
enum Mode {
  Fast = 'fast',
  Safe = 'safe',
}

class SearchNotes {
  @IsString() query!: string;
  @IsOptional() @IsInt() @Min(1) @Max(100) limit = 10;
}

class Profile {
  @IsString() @Length(2, 5) nick!: string;
  @IsOptional() @IsString() @MinLength(2) @MaxLength(4) short?: string;
  @IsOptional() @Matches(/^[a-z]+$/) slug?: string;
  @IsOptional() @IsString() @Matches('^A', 'i') prefixed?: string;
  @IsOptional() @IsEmail() email?: string;
  @IsOptional() @IsUrl() site?: string;
  @IsOptional() @IsUUID() id?: string;
  @IsOptional() @IsDateString() since?: string;
  @IsOptional() @IsISO8601() at?: string;
  @IsOptional() @IsEnum(Priority) priority?: Priority;
  @IsOptional() @IsEnum(Mode) mode?: Mode;
  @IsOptional() @IsIn(['a', 1, true]) choice?: unknown;
  @IsOptional() @IsBoolean() flag?: boolean;
  @IsOptional() @IsNumber() ratio?: number;
  @IsOptional() @IsNumber() @IsPositive() above?: number;
  @IsOptional() @IsInt() @IsNegative() below?: number;
  @IsOptional() @IsNotEmpty() @IsString() named?: string;
}

class Lists {
  @IsArray() @IsString({ each: true }) @ArrayMinSize(1) @ArrayMaxSize(3) tags!: string[];
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) scores?: number[];
  @IsOptional() @IsArray() anything?: unknown[];
}

class Address {
  @IsString() city!: string;
  @IsOptional() @IsString() zip?: string;
}

class Item {
  @IsString() name!: string;
  @IsInt() @Min(1) quantity = 1;
}

class Order {
  @ValidateNested() @Type(() => Address) shipping!: Address;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Item) items?: Item[];
}

class Base {
  @IsString() id!: string;
}
class Derived extends Base {
  @IsOptional() @IsBoolean() active?: boolean;
}

class Worded {
  @IsString({ message: '$property needs text, not $value' }) text!: string;
  @IsOptional()
  @IsInt({ message: (args) => `${args.property} of ${args.targetName} must be whole` })
  count?: number;
}

class NoArguments {}

/** JSON as it arrives on the wire (keys such as "__proto__" stay own keys). */
const json = (text: string): unknown => JSON.parse(text);

function paths(outcome: ValidationOutcome): string[] {
  return outcome.ok ? [] : outcome.issues.map((issue) => issue.path);
}

function issuesOf(outcome: ValidationOutcome | Promise<ValidationOutcome>): ValidationIssue[] {
  const settled = sync(outcome);
  if (settled.ok) throw new Error('expected issues');
  return settled.issues;
}

function sync<T>(outcome: ValidationOutcome<T> | Promise<ValidationOutcome<T>>): ValidationOutcome<T> {
  if (outcome instanceof Promise) throw new Error('expected a synchronous outcome');
  return outcome;
}

describe('compileClassValidator', () => {
  const search = compileClassValidator(SearchNotes);

  it('returns an instance of the DTO, keeping initializer defaults', () => {
    const outcome = sync(search.validate({ query: 'notes' }));
    expect(outcome).toStrictEqual({
      ok: true,
      value: Object.assign(new SearchNotes(), { query: 'notes', limit: 10 }),
    });
    expect(outcome.ok && outcome.value).toBeInstanceOf(SearchNotes);
  });

  it('treats undefined arguments as {}', () => {
    expect(sync(search.validate(undefined))).toStrictEqual({
      ok: false,
      issues: [{ path: 'query', message: 'query must be a string' }],
    });
  });

  it.each([[[]], ['text'], [null], [42], [true]])('rejects %p: arguments must be an object', (input) => {
    expect(sync(search.validate(input))).toStrictEqual({
      ok: false,
      issues: [{ path: '', message: 'arguments must be an object' }],
    });
  });

  it('reports every failure with class-validator messages', () => {
    const outcome = sync(search.validate({ query: 3, limit: 500, extra: true }));
    expect(outcome).toStrictEqual({
      ok: false,
      issues: [
        { path: 'extra', message: 'property extra should not exist' },
        { path: 'query', message: 'query must be a string' },
        { path: 'limit', message: 'limit must not be greater than 100' },
      ],
    });
    expect(formatIssues(issuesOf(outcome))).toBe(
      'extra: property extra should not exist; query: must be a string; limit: must not be greater than 100',
    );
  });

  it('gives nested and indexed paths', () => {
    const outcome = sync(
      compileClassValidator(Order).validate({
        shipping: { city: 7, street: 'x' },
        items: [{ name: 'a' }, { name: 'b', quantity: 0 }, 'c'],
      }),
    );
    expect(outcome).toStrictEqual({
      ok: false,
      issues: [
        { path: 'shipping.street', message: 'property street should not exist' },
        { path: 'shipping.city', message: 'city must be a string' },
        { path: 'items[1].quantity', message: 'quantity must not be less than 1' },
        { path: 'items[2]', message: 'each value in nested property items must be either object or array' },
      ],
    });
    expect(formatIssues(issuesOf(outcome))).toBe(
      'shipping.street: property street should not exist; shipping.city: must be a string; ' +
        'items[1].quantity: must not be less than 1; items[2]: each value in nested property items must be either object or array',
    );
  });

  it('builds nested instances of their classes', () => {
    const outcome = sync(
      compileClassValidator(Order).validate({ shipping: { city: 'Oslo' }, items: [{ name: 'pen' }] }),
    );
    expect(outcome.ok).toBe(true);
    const order = (outcome as { value: Order }).value;
    expect(order).toBeInstanceOf(Order);
    expect(order.shipping).toBeInstanceOf(Address);
    expect(order.items![0]).toBeInstanceOf(Item);
    expect(order.items![0].quantity).toBe(1);
  });

  it('does not change its input', () => {
    const input = { shipping: { city: 'Oslo' }, items: [{ name: 'pen' }] };
    const before = JSON.stringify(input);
    compileClassValidator(Order).validate(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('accepts {} for a class without properties and rejects anything else', () => {
    const validator = compileClassValidator(NoArguments);
    expect(sync(validator.validate(undefined))).toStrictEqual({ ok: true, value: new NoArguments() });
    expect(sync(validator.validate({ a: 1 }))).toStrictEqual({
      ok: false,
      issues: [{ path: 'a', message: 'property a should not exist' }],
    });
  });

  it('throws misuse at compile time, as jsonSchemaFromClass does', () => {
    class Loose {
      @IsOptional() query?: string;
    }
    expect(() => compileClassValidator(Loose)).toThrow(
      "Tool argument class Loose: property 'query' has no type decorator; add one such as @IsString()",
    );
  });

  it('returns a Promise only for async constraints', async () => {
    class Remote {
      @IsString()
      @(
        (target: object, propertyName: string) =>
          registerDecorator({
            name: 'isKnownUser',
            async: true,
            target: target.constructor,
            propertyName,
            validator: {
              validate: async (value: unknown) => value === 'ada',
              defaultMessage: () => 'unknown user',
            },
          })
      )
      user!: string;
    }
    const pending = compileClassValidator(Remote).validate({ user: 'bob' });
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toStrictEqual({
      ok: false,
      issues: [{ path: 'user', message: 'unknown user' }],
    });
    expect(search.validate({ query: 'x' })).not.toBeInstanceOf(Promise);
  });
});

describe('the class-validator path, for what the fast path leaves to it', () => {
  function IsEven(): PropertyDecorator {
    return (target, propertyName) =>
      registerDecorator({
        name: 'isEven',
        target: target.constructor,
        propertyName: propertyName as string,
        validator: { validate: (value: unknown) => typeof value === 'number' && value % 2 === 0 },
        options: { message: '$property must be even' },
      });
  }
  class WithCustom {
    @IsInt() @IsEven() n!: number;
  }
  class WithTransform {
    @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
    @IsString()
    @MinLength(1)
    name!: string;
  }
  class WithConversion {
    @Type(() => Number) @IsInt() page!: number;
  }
  class WithCondition {
    @IsBoolean() paged!: boolean;
    @ValidateIf((o: WithCondition) => o.paged) @IsInt() page?: number;
  }
  class WithGroups {
    @IsString({ groups: ['admin'] }) secret!: string;
  }
  class WithExpose {
    @Expose({ name: 'q' }) @IsString() query!: string;
  }

  it.each<[string, Function, unknown, ValidationOutcome]>([
    [
      'a custom constraint',
      WithCustom,
      { n: 3 },
      { ok: false, issues: [{ path: 'n', message: 'n must be even' }] },
    ],
    [
      '@Transform',
      WithTransform,
      { name: '  ' },
      { ok: false, issues: [{ path: 'name', message: 'name must be longer than or equal to 1 characters' }] },
    ],
    [
      'a @Type conversion',
      WithConversion,
      { page: '2' },
      { ok: true, value: Object.assign(new WithConversion(), { page: 2 }) },
    ],
    [
      '@ValidateIf',
      WithCondition,
      { paged: false, page: 'x' },
      { ok: true, value: Object.assign(new WithCondition(), { paged: false, page: 'x' }) },
    ],
    [
      'validation groups',
      WithGroups,
      { secret: 1 },
      { ok: false, issues: [{ path: 'secret', message: 'secret must be a string' }] },
    ],
    ['@Expose', WithExpose, { q: 'x' }, { ok: true, value: Object.assign(new WithExpose(), { query: 'x' }) }],
  ])('handles %s', (_name, dto, input, expected) => {
    const model = readDtoModel(dto);
    expect(compileFastPath(model, compileClassValidatorPath(model))).toBeNull();
    expect(sync(compileClassValidator(dto as new () => object).validate(input))).toStrictEqual(expected);
  });
});

describe('the fast path agrees with plainToInstance + class-validator', () => {
  const common: [string, unknown][] = [
    ['undefined', undefined],
    ['{}', {}],
    ['null', null],
    ['an array', []],
    ['a string', 'x'],
    ['unknown keys', { zzz: 1, other: { a: 1 } }],
    ['integer-like unknown keys', json('{"b": 1, "2": 2, "1": 1}')],
    ['a "__proto__" key', json('{"__proto__": {"polluted": true}}')],
    ['a "constructor" key', json('{"constructor": 1}')],
    ['a "toString" key', json('{"toString": "x"}')],
  ];
  const table: [Function, [string, unknown][]][] = [
    [
      SearchNotes,
      [
        ['valid', { query: 'a', limit: 5 }],
        ['default kept', { query: 'a' }],
        ['limit null (optional)', { query: 'a', limit: null }],
        ['limit too big and a float', { query: 'a', limit: 100.5 }],
        ['query a number', { query: 1 }],
        ['limit a string', { query: 'a', limit: '5' }],
      ],
    ],
    [
      Profile,
      [
        ['minimal', { nick: 'abc' }],
        ['emoji counted as one character', { nick: '😀😀😀' }],
        ['presentation sequences counted as one character', { nick: '❤️❤️❤️' }],
        ['six emoji are too long', { nick: '😀😀😀😀😀😀' }],
        ['too long', { nick: 'abcdef', short: 'x' }],
        [
          'all valid',
          {
            nick: 'ab',
            short: 'abcd',
            slug: 'abc',
            prefixed: 'abc',
            email: 'a@b.co',
            site: 'https://example.com',
            id: '123e4567-e89b-42d3-a456-426614174000',
            since: '2024-01-02T03:04:05Z',
            at: '2024-01-02',
            priority: 1,
            mode: 'safe',
            choice: true,
            flag: false,
            ratio: 0.5,
            above: 3,
            below: -2,
            named: 'x',
          },
        ],
        [
          'all invalid',
          {
            nick: 5,
            short: 'abcde',
            slug: 'ABC',
            prefixed: 'b',
            email: 'nope',
            site: 'not a url',
            id: 'x',
            since: 'yesterday',
            at: 'never',
            priority: 5,
            mode: 'slow',
            choice: 'b',
            flag: 'no',
            ratio: 'x',
            above: 0,
            below: 1.5,
            named: '',
          },
        ],
        ['enum reverse names pass class-validator', { nick: 'abc', priority: 'High' }],
        ['null optional values', { nick: 'abc', email: null, priority: null }],
        ['NaN-free numbers only', { nick: 'abc', ratio: 1e308 }],
      ],
    ],
    [
      Lists,
      [
        ['valid', { tags: ['a', 'b'], scores: [0, 3], anything: [1, { a: [2] }, null] }],
        ['empty tags', { tags: [] }],
        ['too many tags', { tags: ['a', 'b', 'c', 'd'] }],
        ['bad items', { tags: ['a', 2], scores: [1, -1, 1.5] }],
        ['a string instead of an array', { tags: 'a' }],
        [
          'untyped objects are copied without prototype keys',
          { tags: ['a'], anything: [json('{"toString": 1, "k": 2}')] },
        ],
        [
          'an untyped object with a "constructor" key',
          { tags: ['a'], anything: [json('{"constructor": 5}')] },
        ],
      ],
    ],
    [
      Order,
      [
        ['valid', { shipping: { city: 'Oslo' }, items: [{ name: 'pen', quantity: 2 }] }],
        ['nested default kept', { shipping: { city: 'Oslo' }, items: [{ name: 'pen' }] }],
        ['shipping missing (class-validator skips undefined nested values)', {}],
        ['shipping null', { shipping: null }],
        ['shipping a string', { shipping: 'Oslo' }],
        ['shipping an array', { shipping: [{ city: 'Oslo' }, { city: 1 }] }],
        [
          'nested unknown keys and bad items',
          { shipping: { city: 1, x: 1 }, items: [{ name: 'a', q: 1 }, null, [{ name: 2 }]] },
        ],
        ['nested "constructor" key', { shipping: json('{"city": "Oslo", "constructor": 1}') }],
        ['items not an array', { shipping: { city: 'a' }, items: { name: 'a' } }],
      ],
    ],
    [
      Derived,
      [
        ['valid', { id: 'x', active: true }],
        ['both invalid', { id: 1, active: 'yes' }],
      ],
    ],
    [
      Worded,
      [
        ['custom messages', { text: 5, count: 1.5 }],
        ['valid', { text: 'x' }],
      ],
    ],
    // NoArguments is not here: class-validator rejects every object of a class without
    // metadata ("an unknown value was passed…"); its own test above covers it.
  ];
  const rows = table.flatMap(([dto, inputs]) =>
    [...common, ...inputs].map(([label, input]) => [dto.name, label, dto, input] as const),
  );
  // Inputs that take a class-transformer branch the fast path hands back to the baseline.
  const handedBack = new Set(['an untyped object with a "constructor" key']);
  const compiled = new Map<
    Function,
    { fast: ArgsValidator | null; baseline: ArgsValidator; fallbacks: number[] }
  >();
  for (const [dto] of table) {
    const model = readDtoModel(dto);
    const baseline = compileClassValidatorPath(model);
    const fallbacks: number[] = [];
    const counting: ArgsValidator = {
      validate(input) {
        fallbacks.push(1);
        return baseline.validate(input);
      },
    };
    compiled.set(dto, { fast: compileFastPath(model, counting), baseline, fallbacks });
  }
  /** A deep copy made in this realm (structuredClone's objects have another realm's prototypes). */
  const copy = (value: unknown): unknown =>
    value === undefined ? undefined : JSON.parse(JSON.stringify(value));

  it.each(table.map(([dto]) => [dto.name, dto]))('compiles a fast path for %s', (_name, dto) => {
    expect(compiled.get(dto as Function)!.fast).not.toBeNull();
  });

  it.each(rows)('%s, %s', (_name, label, dto, input) => {
    const { fast, baseline, fallbacks } = compiled.get(dto)!;
    const expected = sync(baseline.validate(copy(input)));
    fallbacks.length = 0;
    const actual = sync(fast!.validate(copy(input)));
    expect(fallbacks.length).toBe(handedBack.has(label) ? 1 : 0);
    expect(actual.ok).toBe(expected.ok);
    expect(paths(actual)).toEqual(paths(expected));
    // Same messages in the same order, and the same instance (class, own keys and values).
    expect(actual).toStrictEqual(expected);
  });

  it('covers both outcomes', () => {
    const outcomes = rows.map(([, , dto, input]) => sync(compiled.get(dto)!.baseline.validate(input)).ok);
    expect(outcomes.filter(Boolean).length).toBeGreaterThan(10);
    expect(outcomes.filter((ok) => !ok).length).toBeGreaterThan(30);
  });
});

describe('formatIssues', () => {
  it.each([
    [[], ''],
    [[{ path: '', message: 'arguments must be an object' }], 'arguments must be an object'],
    [[{ path: 'query', message: 'query must be a string' }], 'query: must be a string'],
    [[{ path: 'address.city', message: 'city must be a string' }], 'address.city: must be a string'],
    [
      [{ path: 'tags', message: 'each value in tags must be a string' }],
      'tags: each value in tags must be a string',
    ],
    [[{ path: 'tags[1]', message: 'tags[1] must be a string' }], 'tags[1]: must be a string'],
    [
      [
        { path: 'query', message: 'query must be a string' },
        { path: 'limit', message: 'limit must not be greater than 100' },
      ],
      'query: must be a string; limit: must not be greater than 100',
    ],
  ])('formats %j', (issues, line) => {
    expect(formatIssues(issues)).toBe(line);
  });
});

describe('compileJsonSchemaValidator', () => {
  const schema = {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      mode: { enum: ['fast', 'safe'] },
      kind: { const: 'note' },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
      address: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      one: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0 }] },
      nullable: { type: ['string', 'null'] },
      when: { type: 'string', format: 'date-time' },
    },
    required: ['query'],
    additionalProperties: false,
  };
  const validator = compileJsonSchemaValidator(schema);

  it.each<[string, unknown, ValidationOutcome]>([
    ['valid', { query: 'abc', limit: 5 }, { ok: true, value: { query: 'abc', limit: 5 } }],
    ['undefined is {}', undefined, { ok: false, issues: [{ path: 'query', message: 'query is required' }] }],
    ['not an object', [], { ok: false, issues: [{ path: '', message: 'arguments must be an object' }] }],
    ['null', null, { ok: false, issues: [{ path: '', message: 'arguments must be an object' }] }],
    [
      'wrong type',
      { query: 1 },
      { ok: false, issues: [{ path: 'query', message: 'query must be a string' }] },
    ],
    [
      'string bounds in code points',
      { query: '😀😀😀😀😀😀' },
      {
        ok: false,
        issues: [
          { path: 'query', message: 'query must be shorter than or equal to 5 characters' },
          { path: 'query', message: 'query must match /^[a-z]+$/ regular expression' },
        ],
      },
    ],
    [
      'five emoji fit',
      { query: 'abc', nullable: '😀😀😀😀😀' },
      { ok: true, value: { query: 'abc', nullable: '😀😀😀😀😀' } },
    ],
    [
      'empty string',
      { query: '' },
      {
        ok: false,
        issues: [
          { path: 'query', message: 'query must be longer than or equal to 1 characters' },
          { path: 'query', message: 'query must match /^[a-z]+$/ regular expression' },
        ],
      },
    ],
    [
      'integer',
      { query: 'a', limit: 1.5 },
      { ok: false, issues: [{ path: 'limit', message: 'limit must be an integer number' }] },
    ],
    [
      'minimum',
      { query: 'a', limit: 0 },
      { ok: false, issues: [{ path: 'limit', message: 'limit must not be less than 1' }] },
    ],
    [
      'maximum',
      { query: 'a', limit: 101 },
      { ok: false, issues: [{ path: 'limit', message: 'limit must not be greater than 100' }] },
    ],
    [
      'exclusive bounds',
      { query: 'a', ratio: 1 },
      { ok: false, issues: [{ path: 'ratio', message: 'ratio must be less than 1' }] },
    ],
    [
      'exclusive minimum',
      { query: 'a', ratio: 0 },
      { ok: false, issues: [{ path: 'ratio', message: 'ratio must be greater than 0' }] },
    ],
    [
      'enum',
      { query: 'a', mode: 'slow' },
      {
        ok: false,
        issues: [{ path: 'mode', message: 'mode must be one of the following values: fast, safe' }],
      },
    ],
    [
      'const',
      { query: 'a', kind: 'task' },
      { ok: false, issues: [{ path: 'kind', message: 'kind must be equal to note' }] },
    ],
    [
      'items',
      { query: 'a', tags: ['x', 2] },
      { ok: false, issues: [{ path: 'tags[1]', message: 'tags[1] must be a string' }] },
    ],
    [
      'minItems',
      { query: 'a', tags: [] },
      { ok: false, issues: [{ path: 'tags', message: 'tags must contain at least 1 elements' }] },
    ],
    [
      'maxItems',
      { query: 'a', tags: ['a', 'b', 'c'] },
      { ok: false, issues: [{ path: 'tags', message: 'tags must contain no more than 2 elements' }] },
    ],
    [
      'nested object',
      { query: 'a', address: { zip: 1 } },
      {
        ok: false,
        issues: [
          { path: 'address.city', message: 'city is required' },
          { path: 'address.zip', message: 'property zip should not exist' },
        ],
      },
    ],
    [
      'nested type',
      { query: 'a', address: 'Oslo' },
      { ok: false, issues: [{ path: 'address', message: 'address must be an object' }] },
    ],
    [
      'additionalProperties false',
      { query: 'a', extra: 1 },
      { ok: false, issues: [{ path: 'extra', message: 'property extra should not exist' }] },
    ],
    [
      'anyOf',
      { query: 'a', id: true },
      { ok: false, issues: [{ path: 'id', message: 'id must match at least one of the allowed schemas' }] },
    ],
    ['anyOf passes', { query: 'a', id: 7 }, { ok: true, value: { query: 'a', id: 7 } }],
    [
      'oneOf (two match)',
      { query: 'a', one: 3 },
      {
        ok: false,
        issues: [
          { path: 'one', message: 'one must match exactly one of the allowed schemas (it matches 2)' },
        ],
      },
    ],
    ['oneOf (one matches)', { query: 'a', one: 2.5 }, { ok: true, value: { query: 'a', one: 2.5 } }],
    [
      'type list',
      { query: 'a', nullable: 1 },
      { ok: false, issues: [{ path: 'nullable', message: 'nullable must be a string or null' }] },
    ],
    [
      'format is asserted',
      { query: 'a', when: 'yesterday' },
      { ok: false, issues: [{ path: 'when', message: 'when must be a valid ISO 8601 date string' }] },
    ],
    [
      'a valid format passes',
      { query: 'a', when: '2025-11-25T10:00:00Z' },
      { ok: true, value: { query: 'a', when: '2025-11-25T10:00:00Z' } },
    ],
  ])('%s', (_name, input, expected) => {
    expect(validator.validate(input)).toStrictEqual(expected);
  });

  it('returns the input itself and never changes it', () => {
    const input = { query: 'abc', address: { city: 'Oslo' } };
    const frozen = JSON.parse(JSON.stringify(input));
    const outcome = validator.validate(input) as ValidationOutcome;
    expect(outcome.ok && outcome.value).toBe(input);
    expect(input).toStrictEqual(frozen);
  });

  it('validates what jsonSchemaFromClass advertises', () => {
    const fromClass = compileJsonSchemaValidator({
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
      additionalProperties: false,
    });
    expect(fromClass.validate({})).toStrictEqual({ ok: true, value: {} });
    expect(formatIssues(issuesOf(fromClass.validate({ limit: 0 })))).toBe('limit: must not be less than 1');
  });

  it('supports draft-04 boolean exclusive bounds and patternProperties', () => {
    const legacy = compileJsonSchemaValidator({
      type: 'object',
      properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } },
      patternProperties: { '^x-': { type: 'string' } },
      additionalProperties: false,
    });
    expect(legacy.validate({ n: 0, 'x-a': 1, y: 1 })).toStrictEqual({
      ok: false,
      issues: [
        { path: 'n', message: 'n must be greater than 0' },
        { path: 'x-a', message: 'x-a must be a string' },
        { path: 'y', message: 'property y should not exist' },
      ],
    });
  });

  it.each([
    [
      { type: 'object', properties: { a: { type: 'text' } } },
      'JSON Schema at #/properties/a: unknown type "text"',
    ],
    [
      { type: 'object', properties: { a: { pattern: '(' } } },
      'JSON Schema at #/properties/a/pattern: "(" is not a valid regular expression',
    ],
    [{ type: 'object', required: 'a' }, "JSON Schema at #: 'required' must be an array of property names"],
    [
      { type: 'object', properties: { a: { minimum: '1' } } },
      "JSON Schema at #/properties/a: 'minimum' must be a number",
    ],
  ])('rejects an invalid schema at once: %j', (bad, message) => {
    expect(() => compileJsonSchemaValidator(bad)).toThrow(message);
  });
});
