import 'reflect-metadata';
import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { Type } from 'class-transformer';
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
  ValidateNested,
} from 'class-validator';
import { Description } from '../src/decorators/description.decorator';
import { getDescription, getParameterDescriptions, jsonSchemaFromClass } from '../src/schema';

enum Priority {
  Low,
  Normal,
  High,
}
enum Mode {
  Fast = 'fast',
  Safe = 'safe',
}
enum Mixed {
  One = 1,
  Two = 'two',
}

/** A custom decorator class-validator knows nothing about: allowed, adds nothing to the schema. */
function IsEven(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isEven',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: { validate: (value: unknown) => typeof value === 'number' && value % 2 === 0 },
    });
}

class SearchNotes {
  @IsString()
  @Description('Words to look for')
  query!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 10;
}

class Scalars {
  @IsString() text!: string;
  @IsNumber() ratio!: number;
  @IsInt() count!: number;
  @IsBoolean() flag!: boolean;
}

class Enums {
  @IsEnum(Priority) priority!: Priority;
  @IsEnum(Mode) mode!: Mode;
  @IsEnum(Mixed) mixed!: Mixed;
  @IsIn(['a', 1, true]) choice!: unknown;
  @IsString() @IsIn(['x', 'y']) letter!: string;
}

class Ranges {
  @IsNumber() @Min(0) @Max(1) share!: number;
  @IsInt() @IsPositive() above!: number;
  @IsNumber() @IsNegative() below!: number;
  @IsString() @MinLength(2) @MaxLength(5) short!: string;
  @IsString() @Length(3, 8) code!: string;
  @IsString() @Length(4) atLeast!: string;
  @IsString() @IsNotEmpty() name!: string;
  @IsString() @IsNotEmpty() @MinLength(3) longer!: string;
  @Matches(/^[a-z]+$/) slug!: string;
  @IsString() @Matches(/^abc$/i) caseless!: string;
  @Min(5) implied!: number;
}

class Formats {
  @IsEmail() email!: string;
  @IsUrl() site!: string;
  @IsUUID() id!: string;
  @IsDateString() when!: string;
  @IsISO8601() at!: string;
}

class Lists {
  @IsArray() @IsString({ each: true }) @ArrayMinSize(1) @ArrayMaxSize(5) tags!: string[];
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) scores?: number[];
  @IsOptional() @IsArray() anything?: unknown[];
  @IsOptional() @IsArray() @IsNotEmpty({ each: true }) @IsString({ each: true }) words?: string[];
}

@Description('A postal address')
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
  @IsOptional() @ValidateNested() @Type(() => Address) @Description('Where the bill goes') billing?: Address;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Item) @ArrayMinSize(1) items!: Item[];
}

class Defaults {
  @IsString() title = 'untitled';
  @IsOptional() @IsArray() @IsString({ each: true }) labels: string[] = ['a'];
  @IsOptional() @IsString() note: string | null = null;
  @IsOptional() @IsDateString() since?: string;
  @IsString() required!: string;
}

class NullDefault {
  @IsString() name: string | null = null;
}

class WithDate {
  @IsOptional() @IsISO8601() created = new Date(0) as unknown as string;
}

class Custom {
  @IsEven() even!: number;
  @IsInt() @IsEven() evenInt!: number;
}

class Empty {}

class Base {
  @IsString() id!: string;
  @IsOptional() @IsString() label?: string;
}
class Derived extends Base {
  @IsBoolean() active!: boolean;
}

describe('jsonSchemaFromClass', () => {
  const cases: [string, Function, object][] = [
    [
      'the design example: description, bounds, default',
      SearchNotes,
      {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to look for' },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        },
        required: ['query'],
        additionalProperties: false,
      },
    ],
    [
      'scalar types',
      Scalars,
      {
        type: 'object',
        properties: {
          text: { type: 'string' },
          ratio: { type: 'number' },
          count: { type: 'integer' },
          flag: { type: 'boolean' },
        },
        required: ['text', 'ratio', 'count', 'flag'],
        additionalProperties: false,
      },
    ],
    [
      'enums without the reverse mapping of numeric enums, and @IsIn',
      Enums,
      {
        type: 'object',
        properties: {
          priority: { type: 'integer', enum: [0, 1, 2] },
          mode: { type: 'string', enum: ['fast', 'safe'] },
          mixed: { enum: [1, 'two'] },
          choice: { enum: ['a', 1, true] },
          letter: { type: 'string', enum: ['x', 'y'] },
        },
        required: ['priority', 'mode', 'mixed', 'choice', 'letter'],
        additionalProperties: false,
      },
    ],
    [
      'ranges, lengths and patterns',
      Ranges,
      {
        type: 'object',
        properties: {
          share: { type: 'number', minimum: 0, maximum: 1 },
          above: { type: 'integer', exclusiveMinimum: 0 },
          below: { type: 'number', exclusiveMaximum: 0 },
          short: { type: 'string', minLength: 2, maxLength: 5 },
          code: { type: 'string', minLength: 3, maxLength: 8 },
          atLeast: { type: 'string', minLength: 4 },
          name: { type: 'string', minLength: 1 },
          longer: { type: 'string', minLength: 3 },
          slug: { type: 'string', pattern: '^[a-z]+$' },
          caseless: { type: 'string' },
          implied: { type: 'number', minimum: 5 },
        },
        required: [
          'share',
          'above',
          'below',
          'short',
          'code',
          'atLeast',
          'name',
          'longer',
          'slug',
          'caseless',
          'implied',
        ],
        additionalProperties: false,
      },
    ],
    [
      'string formats',
      Formats,
      {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
          id: { type: 'string', format: 'uuid' },
          when: { type: 'string', format: 'date-time' },
          at: { type: 'string', format: 'date-time' },
        },
        required: ['email', 'site', 'id', 'when', 'at'],
        additionalProperties: false,
      },
    ],
    [
      'arrays with { each: true } item validators',
      Lists,
      {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 },
          scores: { type: 'array', items: { type: 'integer', minimum: 0 } },
          anything: { type: 'array' },
          words: { type: 'array', items: { type: 'string', minLength: 1 } },
        },
        required: ['tags'],
        additionalProperties: false,
      },
    ],
    [
      'nested classes, inline, and arrays of them',
      Order,
      {
        type: 'object',
        properties: {
          shipping: {
            type: 'object',
            description: 'A postal address',
            properties: { city: { type: 'string' }, zip: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
          billing: {
            type: 'object',
            description: 'Where the bill goes',
            properties: { city: { type: 'string' }, zip: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, quantity: { type: 'integer', minimum: 1, default: 1 } },
              required: ['name'],
              additionalProperties: false,
            },
            minItems: 1,
          },
        },
        required: ['shipping', 'items'],
        additionalProperties: false,
      },
    ],
    [
      'defaults from initializers: not required, JSON values advertised',
      Defaults,
      {
        type: 'object',
        properties: {
          title: { type: 'string', default: 'untitled' },
          labels: { type: 'array', items: { type: 'string' }, default: ['a'] },
          note: { type: 'string', default: null },
          since: { type: 'string', format: 'date-time' },
          required: { type: 'string' },
        },
        required: ['required'],
        additionalProperties: false,
      },
    ],
    [
      'a null initializer without @IsOptional() is still required',
      NullDefault,
      {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
        additionalProperties: false,
      },
    ],
    [
      'a default that is not JSON (a Date) is not advertised',
      WithDate,
      {
        type: 'object',
        properties: { created: { type: 'string', format: 'date-time' } },
        additionalProperties: false,
      },
    ],
    [
      'custom constraints add nothing',
      Custom,
      {
        type: 'object',
        properties: { even: {}, evenInt: { type: 'integer' } },
        required: ['even', 'evenInt'],
        additionalProperties: false,
      },
    ],
    ['a class without properties', Empty, { type: 'object', additionalProperties: false }],
    [
      'inherited properties first',
      Derived,
      {
        type: 'object',
        properties: { id: { type: 'string' }, label: { type: 'string' }, active: { type: 'boolean' } },
        required: ['id', 'active'],
        additionalProperties: false,
      },
    ],
  ];

  it.each(cases)('%s', (_name, dto, expected) => {
    expect(jsonSchemaFromClass(dto)).toStrictEqual(expected);
  });

  it('is deterministic down to key order (what tools/list serializes)', () => {
    expect(JSON.stringify(jsonSchemaFromClass(SearchNotes))).toBe(
      '{"type":"object","properties":{"query":{"type":"string","description":"Words to look for"},' +
        '"limit":{"type":"integer","minimum":1,"maximum":100,"default":10}},"required":["query"],"additionalProperties":false}',
    );
    expect(JSON.stringify(jsonSchemaFromClass(Order))).toBe(JSON.stringify(jsonSchemaFromClass(Order)));
    expect(Object.keys(jsonSchemaFromClass(Ranges).properties!)).toEqual([
      'share',
      'above',
      'below',
      'short',
      'code',
      'atLeast',
      'name',
      'longer',
      'slug',
      'caseless',
      'implied',
    ]);
  });

  it('returns a new object each time, so callers may freeze or change it', () => {
    const first = jsonSchemaFromClass(Order);
    (first.properties!.shipping as { description?: string }).description = 'changed';
    expect((jsonSchemaFromClass(Order).properties!.shipping as { description?: string }).description).toBe(
      'A postal address',
    );
  });

  it('puts a class-level @Description on the root', () => {
    @Description('Arguments of the search tool')
    class Described {
      @IsString() q!: string;
    }
    expect(jsonSchemaFromClass(Described)).toStrictEqual({
      type: 'object',
      description: 'Arguments of the search tool',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    });
  });
});

describe('jsonSchemaFromClass on misused decorators', () => {
  function misuse(dto: Function, options?: { context?: string }): GantryError {
    try {
      jsonSchemaFromClass(dto, options);
    } catch (error) {
      expect(error).toBeInstanceOf(GantryError);
      expect((error as GantryError).code).toBe(LocalErrorCode.InvalidDecorator);
      return error as GantryError;
    }
    throw new Error(`jsonSchemaFromClass(${dto.name}) did not throw`);
  }

  it('rejects a property with only @IsOptional', () => {
    class SearchNotes {
      @IsString() title!: string;
      @IsOptional() query?: string;
    }
    expect(misuse(SearchNotes).message).toBe(
      "Tool argument class SearchNotes: property 'query' has no type decorator; add one such as @IsString()",
    );
  });

  it('suggests a decorator from the property type', () => {
    class Paging {
      @IsOptional() page?: number;
    }
    class Toggle {
      @IsNotEmpty() on = true;
    }
    expect(misuse(Paging).message).toBe(
      "Tool argument class Paging: property 'page' has no type decorator; add one such as @IsNumber()",
    );
    expect(misuse(Toggle).message).toBe(
      "Tool argument class Toggle: property 'on' has no type decorator; add one such as @IsBoolean()",
    );
  });

  it('rejects a class with fields but no class-validator decorators', () => {
    class SearchNotes {
      query = '';
    }
    expect(misuse(SearchNotes).message).toBe(
      'Tool argument class SearchNotes has no class-validator decorators; add one to each property, such as @IsString()',
    );
  });

  it('rejects an undecorated field next to decorated ones', () => {
    class SearchNotes {
      @IsString() query!: string;
      limit = 10;
    }
    expect(misuse(SearchNotes).message).toBe(
      "Tool argument class SearchNotes: property 'limit' has no class-validator decorators, so every call would be rejected; add one such as @IsNumber(), or remove the property",
    );
  });

  it('names the place given as context', () => {
    class SearchNotes {
      @IsOptional() query?: string;
    }
    expect(misuse(SearchNotes, { context: "Tool 'search_notes' (NotesTools.search)" }).message).toBe(
      "Tool 'search_notes' (NotesTools.search), argument class SearchNotes: property 'query' has no type decorator; add one such as @IsString()",
    );
  });

  it('rejects conflicting type decorators', () => {
    class Odd {
      @IsString() @IsInt() value!: string;
    }
    expect(misuse(Odd).message).toBe(
      "Tool argument class Odd: property 'value' has conflicting type decorators (@IsString() says string, @IsInt() says integer); keep one",
    );
  });

  it('rejects { each: true } without @IsArray()', () => {
    class Tagged {
      @IsString({ each: true }) tags!: string[];
    }
    expect(misuse(Tagged).message).toBe(
      "Tool argument class Tagged: property 'tags' has validators with { each: true } but no @IsArray(); add @IsArray()",
    );
  });

  it('rejects @ValidateNested() without @Type()', () => {
    class Where {
      @IsString() city!: string;
    }
    class Trip {
      @ValidateNested() to!: Where;
    }
    expect(misuse(Trip).message).toBe(
      "Tool argument class Trip: property 'to' has @ValidateNested() but no @Type(); add @Type(() => Where) so class-transformer builds the nested class",
    );
  });

  it('rejects @Type() of a class without @ValidateNested()', () => {
    class Where {
      @IsString() city!: string;
    }
    class Trip {
      @IsOptional() @Type(() => Where) to?: Where;
    }
    expect(misuse(Trip).message).toBe(
      "Tool argument class Trip: property 'to' has @Type(() => Where) but no @ValidateNested(), so its fields would not be validated; add @ValidateNested()",
    );
  });

  it('rejects a nested class without class-validator decorators', () => {
    class Meta {}
    class Tagged {
      @ValidateNested() @Type(() => Meta) meta!: Meta;
    }
    expect(misuse(Tagged).message).toBe(
      "Tool argument class Tagged: property 'meta' nests class Meta, which has no class-validator decorators; add some to Meta, or drop @ValidateNested()",
    );
  });

  it('names the nested class and where it sits', () => {
    class Where {
      @IsOptional() city?: string;
    }
    class Trip {
      @ValidateNested() @Type(() => Where) to!: Where;
    }
    expect(misuse(Trip).message).toBe(
      "Tool argument class Trip, nested class Where at 'to': property 'city' has no type decorator; add one such as @IsString()",
    );
  });

  it('rejects recursive classes', () => {
    class TreeNode {
      @IsString() label!: string;
      @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
    }
    expect(misuse(TreeNode).message).toBe(
      "Tool argument class TreeNode: property 'children' refers back to TreeNode (TreeNode.children → TreeNode); " +
        'a recursive argument class cannot be inlined into a JSON Schema. Give the inner level a class of its own, or describe the arguments with a plain JSON Schema',
    );
  });

  it('rejects recursion through another class', () => {
    class Person {
      @IsString() name!: string;
      // Typed `object`: decorator metadata would read `Team` before its declaration.
      @IsOptional() @ValidateNested() @Type(() => Team) team?: object;
    }
    class Team {
      @ValidateNested() @Type(() => Person) lead!: Person;
    }
    expect(misuse(Person).message).toBe(
      "Tool argument class Person, nested class Team at 'team': property 'lead' refers back to Person (Person.team → Team.lead → Person); " +
        'a recursive argument class cannot be inlined into a JSON Schema. Give the inner level a class of its own, or describe the arguments with a plain JSON Schema',
    );
  });

  it('rejects a class whose constructor needs arguments', () => {
    class Needy {
      @IsString() name: string;
      constructor(name: string) {
        this.name = name.trim();
      }
    }
    expect(misuse(Needy).message).toMatch(
      /^Tool argument class Needy could not be created with new Needy\(\): .+; argument classes need a constructor without parameters$/,
    );
  });
});

describe('@Description', () => {
  it('records descriptions on classes, properties, methods and parameters', () => {
    @Description('The class')
    class Documented {
      @Description('A property') field = 1;

      @Description('A method')
      run(@Description('First') _a: string, @Description('Second') _b: number) {}
    }
    expect(getDescription(Documented)).toBe('The class');
    expect(getDescription(Documented.prototype, 'field')).toBe('A property');
    expect(getDescription(Documented.prototype, 'run')).toBe('A method');
    expect([...getParameterDescriptions(Documented.prototype, 'run')!]).toEqual([
      [1, 'Second'],
      [0, 'First'],
    ]);
    expect(getDescription(Documented.prototype, 'missing')).toBeUndefined();
  });

  it.each([
    ['', 'an empty string'],
    ['   ', 'an empty string'],
    [undefined, 'undefined'],
    [42, 'number'],
  ])('rejects %p at once', (text, got) => {
    expect(() => Description(text as string)).toThrow(
      new GantryError(
        LocalErrorCode.InvalidDecorator,
        `@Description() needs a non-empty string, e.g. @Description('Words to look for'); got ${got}`,
      ),
    );
    try {
      Description(text as string);
    } catch (error) {
      expect((error as GantryError).code).toBe(LocalErrorCode.InvalidDecorator);
    }
  });

  it('rejects two descriptions on one property', () => {
    expect(() => {
      class Twice {
        @Description('one') @Description('two') field = 1;
      }
      return Twice;
    }).toThrow('@Description() on Twice.field: it already has a description; keep one');
  });
});
