import 'reflect-metadata';
import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import { Description } from '../src/decorators/description.decorator';
import {
  checkElicitationSchema,
  type ElicitationSchema,
  elicitationSchemaFromClass,
  getOptionTitles,
  getTitle,
  jsonSchemaFromClass,
  OptionTitles,
  Title,
} from '../src/schema';

const CURRENT = '2025-11-25';
const LEGACY = '2025-06-18';
const PRIMITIVES = 'elicitation forms hold only strings, numbers, integers, booleans and enums';

/** The error a call throws, so a test can state its class, code and message. */
function thrown(fn: () => unknown): GantryError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GantryError) return error;
    throw error;
  }
  throw new Error('expected a GantryError, but nothing was thrown');
}

// ── DTOs ────────────────────────────────────────────────────────────────────────────────────

class ContactForm {
  @IsEmail()
  @Title('Email address')
  @Description('We send the confirmation here')
  email!: string;

  @IsString()
  @Length(2, 50)
  @Title('Full name')
  name!: string;

  @IsOptional()
  @IsUrl()
  website?: string;

  @IsDateString()
  birthday!: string;

  @IsOptional()
  @IsString()
  @MaxLength(20)
  nickname = 'friend';
}

class Preferences {
  @IsInt()
  @Min(18)
  @Max(130)
  @Title('Age')
  age!: number;

  @IsNumber()
  @Min(0)
  @Max(1)
  ratio = 0.5;

  @IsInt()
  @IsPositive()
  seats = 2;

  @IsNumber()
  @IsPositive()
  budget!: number;

  @IsInt()
  @IsNegative()
  @Min(-10)
  offset = -1;

  @IsBoolean()
  @Title('Subscribe')
  newsletter = true;
}

enum Color {
  Red = 'red',
  Green = 'green',
}

class Choices {
  @IsIn(['std', 'pro'])
  @OptionTitles({ std: 'Standard', pro: 'Professional' })
  @Title('Plan')
  plan = 'std';

  @IsEnum(Color)
  color!: Color;

  @IsString()
  @IsIn(['s', 'm', 'l'])
  @OptionTitles({ l: 'Large' })
  size!: string;
}

enum Topping {
  Cheese = 'cheese',
  Olives = 'olives',
  Basil = 'basil',
}

class PizzaOrder {
  @IsArray()
  @IsIn(['thin', 'thick'], { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(1)
  crust!: string[];

  @IsArray()
  @IsEnum(Topping, { each: true })
  @ArrayMaxSize(2)
  @OptionTitles({ cheese: 'Mozzarella', basil: 'Fresh basil' })
  @Title('Toppings')
  toppings: Topping[] = [];
}

/** Keywords the restricted schema cannot carry: dropped, as are defaults that do not fit. */
@Description('A support ticket')
class Ticket {
  @IsUUID()
  id!: string;

  @IsString()
  @Matches(/^[A-Z]{3}-\d+$/)
  code!: string;

  @IsString()
  @IsNotEmpty()
  summary!: string;

  @IsOptional()
  @IsString()
  note: string | null = null;

  @IsIn(['low', 'high'])
  level = 'medium';
}

class Named {
  @IsString()
  @Title('Name')
  name!: string;
}

class Consent extends Named {
  @IsBoolean()
  agree = false;
}

class Confirmation {}

// ── @Title ──────────────────────────────────────────────────────────────────────────────────

describe('@Title', () => {
  class Labelled {
    @IsString()
    @Description('Where to write')
    @Title('Folder')
    folder!: string;

    @IsOptional()
    @IsInt()
    @Title('Limit')
    limit = 10;
  }

  it('adds title to the tool input schema, right after the type', () => {
    const schema = jsonSchemaFromClass(Labelled);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        folder: { type: 'string', title: 'Folder', description: 'Where to write' },
        limit: { type: 'integer', title: 'Limit', default: 10 },
      },
      required: ['folder'],
      additionalProperties: false,
    });
    expect(Object.keys((schema.properties as Record<string, object>).folder)).toEqual([
      'type',
      'title',
      'description',
    ]);
  });

  it('is read through getTitle, inherited ones too', () => {
    expect(getTitle(Labelled.prototype, 'folder')).toBe('Folder');
    expect(getTitle(Consent.prototype, 'name')).toBe('Name');
    expect(getTitle(Consent.prototype, 'agree')).toBeUndefined();
  });

  it.each([
    ['', "@Title() needs a non-empty string, e.g. @Title('Email address'); got an empty string"],
    ['  ', "@Title() needs a non-empty string, e.g. @Title('Email address'); got an empty string"],
    [42, "@Title() needs a non-empty string, e.g. @Title('Email address'); got number"],
  ])('rejects %p when the decorator is created', (text, message) => {
    const error = thrown(() => Title(text as string));
    expect(error.code).toBe(LocalErrorCode.InvalidDecorator);
    expect(error.message).toBe(message);
  });

  it('rejects a second title on one property, naming it', () => {
    const error = thrown(() => {
      class Twice {
        @IsString()
        @Title('One')
        @Title('Two')
        text!: string;
      }
      return Twice;
    });
    expect(error.message).toBe('@Title() on Twice.text: it already has a title; keep one');
  });

  it('rejects use on a class', () => {
    const error = thrown(() => (Title('Form') as unknown as ClassDecorator)(class Form {}));
    expect(error.message).toBe('@Title() on Form: it titles a property; put it on one');
  });
});

// ── @OptionTitles ───────────────────────────────────────────────────────────────────────────

describe('@OptionTitles', () => {
  const example = "e.g. @OptionTitles({ std: 'Standard', express: 'Express' })";

  it('records value → title, read through getOptionTitles', () => {
    expect(getOptionTitles(Choices.prototype, 'plan')).toEqual(
      new Map([
        ['std', 'Standard'],
        ['pro', 'Professional'],
      ]),
    );
    expect(getOptionTitles(Choices.prototype, 'color')).toBeUndefined();
  });

  it.each([
    [null, `@OptionTitles() needs an object of value → title, ${example}; got null`],
    [['a'], `@OptionTitles() needs an object of value → title, ${example}; got an array`],
    ['a', `@OptionTitles() needs an object of value → title, ${example}; got string`],
    [{}, `@OptionTitles() needs at least one value → title, ${example}; got {}`],
    [
      { std: '' },
      `@OptionTitles(): the title of 'std' must be a non-empty string, ${example}; got an empty string`,
    ],
    [{ std: 1 }, `@OptionTitles(): the title of 'std' must be a non-empty string, ${example}; got number`],
  ])('rejects %p when the decorator is created', (titles, message) => {
    const error = thrown(() => OptionTitles(titles as Record<string, string>));
    expect(error.code).toBe(LocalErrorCode.InvalidDecorator);
    expect(error.message).toBe(message);
  });

  it('rejects a second @OptionTitles on one property', () => {
    const error = thrown(() => {
      class Twice {
        @IsIn(['a'])
        @OptionTitles({ a: 'A' })
        @OptionTitles({ a: 'Aa' })
        pick!: string;
      }
      return Twice;
    });
    expect(error.message).toBe('@OptionTitles() on Twice.pick: it already has option titles; keep one');
  });

  it('leaves tool input schemas as they were', () => {
    expect(jsonSchemaFromClass(Choices).properties).toEqual({
      plan: { title: 'Plan', enum: ['std', 'pro'], default: 'std' },
      color: { type: 'string', enum: ['red', 'green'] },
      size: { type: 'string', enum: ['s', 'm', 'l'] },
    });
  });
});

// ── elicitationSchemaFromClass ──────────────────────────────────────────────────────────────

const contactCurrent: ElicitationSchema = {
  type: 'object',
  properties: {
    email: {
      type: 'string',
      title: 'Email address',
      description: 'We send the confirmation here',
      format: 'email',
    },
    name: { type: 'string', title: 'Full name', minLength: 2, maxLength: 50 },
    website: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date-time' },
    nickname: { type: 'string', maxLength: 20, default: 'friend' },
  },
  required: ['email', 'name', 'birthday'],
};
const contactLegacy: ElicitationSchema = {
  ...contactCurrent,
  properties: { ...contactCurrent.properties, nickname: { type: 'string', maxLength: 20 } },
};

const preferencesCurrent: ElicitationSchema = {
  type: 'object',
  properties: {
    age: { type: 'integer', title: 'Age', minimum: 18, maximum: 130 },
    ratio: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
    // @IsPositive() on an integer: exclusiveMinimum 0 is minimum 1.
    seats: { type: 'integer', minimum: 1, default: 2 },
    // …on a number it cannot be said, and is left out.
    budget: { type: 'number' },
    offset: { type: 'integer', minimum: -10, maximum: -1, default: -1 },
    newsletter: { type: 'boolean', title: 'Subscribe', default: true },
  },
  required: ['age', 'budget'],
};
const preferencesLegacy: ElicitationSchema = {
  type: 'object',
  properties: {
    age: { type: 'integer', title: 'Age', minimum: 18, maximum: 130 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    seats: { type: 'integer', minimum: 1 },
    budget: { type: 'number' },
    offset: { type: 'integer', minimum: -10, maximum: -1 },
    newsletter: { type: 'boolean', title: 'Subscribe', default: true },
  },
  required: ['age', 'budget'],
};

const choicesCurrent: ElicitationSchema = {
  type: 'object',
  properties: {
    plan: {
      type: 'string',
      title: 'Plan',
      oneOf: [
        { const: 'std', title: 'Standard' },
        { const: 'pro', title: 'Professional' },
      ],
      default: 'std',
    },
    color: { type: 'string', enum: ['red', 'green'] },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 's' },
        { const: 'm', title: 'm' },
        { const: 'l', title: 'Large' },
      ],
    },
  },
  required: ['color', 'size'],
};
const choicesLegacy: ElicitationSchema = {
  type: 'object',
  properties: {
    plan: { type: 'string', title: 'Plan', enum: ['std', 'pro'], enumNames: ['Standard', 'Professional'] },
    color: { type: 'string', enum: ['red', 'green'] },
    size: { type: 'string', enum: ['s', 'm', 'l'], enumNames: ['s', 'm', 'Large'] },
  },
  required: ['color', 'size'],
};

const pizzaCurrent: ElicitationSchema = {
  type: 'object',
  properties: {
    crust: { type: 'array', minItems: 1, maxItems: 1, items: { type: 'string', enum: ['thin', 'thick'] } },
    toppings: {
      type: 'array',
      title: 'Toppings',
      maxItems: 2,
      items: {
        anyOf: [
          { const: 'cheese', title: 'Mozzarella' },
          { const: 'olives', title: 'olives' },
          { const: 'basil', title: 'Fresh basil' },
        ],
      },
      default: [],
    },
  },
  required: ['crust'],
};

const ticketBoth: ElicitationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    code: { type: 'string' },
    summary: { type: 'string', minLength: 1 },
    note: { type: 'string' },
    level: { type: 'string', enum: ['low', 'high'] },
  },
  required: ['id', 'code', 'summary'],
};

const consentCurrent: ElicitationSchema = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Name' }, agree: { type: 'boolean', default: false } },
  required: ['name'],
};

const generated: [string, Function, string, ElicitationSchema][] = [
  ['strings with formats, lengths and labels', ContactForm, CURRENT, contactCurrent],
  ['strings with formats, lengths and labels', ContactForm, LEGACY, contactLegacy],
  ['numbers, integers and a boolean', Preferences, CURRENT, preferencesCurrent],
  ['numbers, integers and a boolean', Preferences, LEGACY, preferencesLegacy],
  ['titled and untitled single choices', Choices, CURRENT, choicesCurrent],
  ['titled and untitled single choices', Choices, LEGACY, choicesLegacy],
  ['untitled and titled multi-selects', PizzaOrder, CURRENT, pizzaCurrent],
  ['what the restricted schema cannot say', Ticket, CURRENT, ticketBoth],
  ['what the restricted schema cannot say', Ticket, LEGACY, ticketBoth],
  ['inherited properties', Consent, CURRENT, consentCurrent],
  ['inherited properties', Consent, LEGACY, consentCurrent],
  ['an empty form', Confirmation, CURRENT, { type: 'object', properties: {} }],
  ['an empty form', Confirmation, LEGACY, { type: 'object', properties: {} }],
  // Revisions after 2025-11-25 keep its primitives.
  ['a later revision', Choices, '2026-07-28', choicesCurrent],
];

describe('elicitationSchemaFromClass', () => {
  it.each(generated)('%s (%p, %s)', (_, dto, protocolVersion, expected) => {
    expect(elicitationSchemaFromClass(dto, { protocolVersion })).toEqual(expected);
  });

  it('keeps property order and puts title and description right after the type', () => {
    const schema = elicitationSchemaFromClass(ContactForm, { protocolVersion: CURRENT });
    expect(Object.keys(schema.properties)).toEqual(['email', 'name', 'website', 'birthday', 'nickname']);
    expect(Object.keys(schema.properties.email)).toEqual(['type', 'title', 'description', 'format']);
  });

  it('gives each call a schema of its own', () => {
    const first = elicitationSchemaFromClass(PizzaOrder, { protocolVersion: CURRENT });
    (first.required as string[]).push('toppings');
    expect(elicitationSchemaFromClass(PizzaOrder, { protocolVersion: CURRENT }).required).toEqual(['crust']);
  });

  it('passes its own check for every protocol version', () => {
    for (const [, dto, protocolVersion] of generated) {
      const schema = elicitationSchemaFromClass(dto, { protocolVersion });
      expect(checkElicitationSchema(schema, { protocolVersion })).toBe(schema);
    }
  });
});

describe('elicitationSchemaFromClass on a class a form cannot hold', () => {
  class Address {
    @IsString() street!: string;
  }
  class SignupForm {
    @IsEmail() email!: string;
    @ValidateNested()
    @Type(() => Address)
    address!: Address;
  }
  class Team {
    @IsArray()
    @ValidateNested({ each: true })
    @Type(() => Address)
    offices!: Address[];
  }
  class Tagged {
    @IsArray()
    @IsString({ each: true })
    tags!: string[];
  }
  enum Priority {
    Low,
    High,
  }
  class Ranked {
    @IsEnum(Priority) priority!: Priority;
  }
  class Flags {
    @IsBoolean()
    @IsIn([true])
    accepted!: boolean;
  }
  class Palette {
    @IsIn(['red', 'green'])
    @OptionTitles({ red: 'Red', purple: 'Purple' })
    color!: string;
  }
  class Picky {
    @IsArray()
    @IsIn(['a', 'b'], { each: true })
    @OptionTitles({ c: 'C' })
    picks!: string[];
  }
  class Untitled {
    @IsString()
    @OptionTitles({ a: 'A' })
    text!: string;
  }
  function IsEven(): PropertyDecorator {
    return (target, propertyName) =>
      registerDecorator({
        name: 'isEven',
        target: target.constructor,
        propertyName: propertyName as string,
        validator: { validate: (value: unknown) => typeof value === 'number' && value % 2 === 0 },
      });
  }
  class Custom {
    @IsEven() count!: number;
  }
  class Nothing {
    @IsIn([]) pick!: string;
  }
  class Loose {
    @IsString() name!: string;
    extra = 1;
  }

  it.each([
    [SignupForm, CURRENT, `Elicitation form SignupForm: property 'address' is an object; ${PRIMITIVES}`],
    [Team, CURRENT, `Elicitation form Team: property 'offices' is a list of objects; ${PRIMITIVES}`],
    [
      Tagged,
      CURRENT,
      `Elicitation form Tagged: property 'tags' is a list; ${PRIMITIVES} (a list only as a multi-select: @IsIn([...], { each: true }) or @IsEnum(E, { each: true }))`,
    ],
    [
      Ranked,
      CURRENT,
      "Elicitation form Ranked: property 'priority' has values that are not strings (0, 1); elicitation enums hold only strings, so use string values (e.g. a string enum)",
    ],
    [
      Flags,
      LEGACY,
      "Elicitation form Flags: property 'accepted' has values that are not strings (true); elicitation enums hold only strings, so use string values (e.g. a string enum)",
    ],
    [
      Palette,
      CURRENT,
      "Elicitation form Palette: property 'color' has @OptionTitles() for 'purple', which is not one of its values ('red', 'green'); title only those values",
    ],
    [
      Picky,
      CURRENT,
      "Elicitation form Picky: property 'picks' has @OptionTitles() for 'c', which is not one of its values ('a', 'b'); title only those values",
    ],
    [
      Untitled,
      CURRENT,
      "Elicitation form Untitled: property 'text' has @OptionTitles() but no list of values to title; add @IsIn([...]) or @IsEnum(), or remove @OptionTitles()",
    ],
    [
      Custom,
      CURRENT,
      "Elicitation form Custom: property 'count' has no type an elicitation form can show; add @IsString(), @IsNumber(), @IsInt() or @IsBoolean(), or @IsIn([...]) for a choice",
    ],
    [
      Nothing,
      CURRENT,
      "Elicitation form Nothing: property 'pick' has an empty list of values; list the choices in @IsIn([...]) or @IsEnum()",
    ],
    [
      PizzaOrder,
      LEGACY,
      "Elicitation form PizzaOrder: property 'crust' is a multi-select, which needs protocol version 2025-11-25 (2025-06-18 clients know single choices only); ask 2025-06-18 clients with a single choice or one boolean per option",
    ],
    // Misuse the DTO reader finds itself keeps its wording.
    [
      Loose,
      CURRENT,
      "Elicitation form, argument class Loose: property 'extra' has no class-validator decorators, so every call would be rejected; add one such as @IsNumber(), or remove the property",
    ],
    [
      ContactForm,
      '2025-03-26',
      'Elicitation form ContactForm: protocol version 2025-03-26 has no elicitation (it arrived in 2025-06-18); check that the client declared the elicitation capability before asking',
    ],
    [
      ContactForm,
      'latest',
      `Elicitation form ContactForm: protocolVersion must be a protocol revision such as '2025-11-25'; got "latest"`,
    ],
  ])('%p for %s: throws', (dto, protocolVersion, message) => {
    const error = thrown(() => elicitationSchemaFromClass(dto, { protocolVersion }));
    expect(error.code).toBe(LocalErrorCode.InvalidDecorator);
    expect(error.message).toBe(message);
  });

  it('uses the context as the prefix when given', () => {
    const context = "Tool 'signup' (AccountTools.signup), elicitation form";
    expect(
      thrown(() => elicitationSchemaFromClass(SignupForm, { protocolVersion: CURRENT, context })).message,
    ).toBe(`${context}: property 'address' is an object; ${PRIMITIVES}`);
    expect(
      thrown(() => elicitationSchemaFromClass(Loose, { protocolVersion: CURRENT, context })).message,
    ).toBe(
      `${context}, argument class Loose: property 'extra' has no class-validator decorators, so every call would be rejected; add one such as @IsNumber(), or remove the property`,
    );
  });
});

// ── checkElicitationSchema ──────────────────────────────────────────────────────────────────

const everyKind = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    email: { type: 'string', title: 'Email', description: 'Work address', format: 'email', default: 'a@b.c' },
    bio: { type: 'string', minLength: 0, maxLength: 200 },
    day: { type: 'string', format: 'date' },
    count: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
    ratio: { type: 'number', minimum: 0.5, default: 0.75 },
    ok: { type: 'boolean', default: false },
    plan: { type: 'string', enum: ['a', 'b'], default: 'a' },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
    titled: { type: 'string', oneOf: [{ const: 'x', title: 'X' }], default: 'x' },
    many: {
      type: 'array',
      minItems: 0,
      maxItems: 2,
      items: { type: 'string', enum: ['p', 'q'] },
      default: ['q'],
    },
    manyTitled: { type: 'array', items: { anyOf: [{ const: 'p', title: 'P' }] } },
  },
  required: ['email', 'plan'],
};
const legacyKinds = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', minLength: 3 },
    count: { type: 'number', maximum: 10 },
    ok: { type: 'boolean', title: 'OK?', default: true },
    plan: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
  },
  required: ['email'],
};

describe('checkElicitationSchema', () => {
  it.each([
    ['every kind of field', everyKind, CURRENT],
    ['the 2025-06-18 kinds', legacyKinds, LEGACY],
    ['the 2025-06-18 kinds, on a 2025-11-25 client', legacyKinds, CURRENT],
    ['an empty form', { type: 'object', properties: {} }, LEGACY],
  ])('accepts %s and returns it', (_, schema, protocolVersion) => {
    expect(checkElicitationSchema(schema, { protocolVersion })).toBe(schema);
  });

  const prefix = 'Elicitation requestedSchema';
  const withField = (field: unknown) => ({ type: 'object', properties: { f: field } });

  it.each([
    [
      'a list',
      [],
      CURRENT,
      `${prefix}: must be an object schema { type: 'object', properties: { … } }; got a list`,
    ],
    [
      'additionalProperties',
      { type: 'object', properties: {}, additionalProperties: false },
      CURRENT,
      `${prefix}: has 'additionalProperties', which is not part of the restricted schema of elicitation forms; keep only $schema, type, properties and required`,
    ],
    [
      '$schema on 2025-06-18',
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} },
      LEGACY,
      `${prefix}: has '$schema', which needs protocol version 2025-11-25; leave it out for 2025-06-18 clients`,
    ],
    [
      'a root that is not an object',
      { type: 'array', properties: {} },
      CURRENT,
      `${prefix}: must have type 'object'; got 'array'`,
    ],
    [
      'no properties',
      { type: 'object' },
      CURRENT,
      `${prefix}: needs properties, an object of field name → schema; got nothing`,
    ],
    [
      'a required name that is not a property',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] },
      CURRENT,
      `${prefix}: lists 'b' in required, which is not one of its properties`,
    ],
    [
      'a nested object',
      withField({ type: 'object', properties: {} }),
      CURRENT,
      `${prefix}: property 'f' is an object; ${PRIMITIVES}`,
    ],
    [
      'a list of objects',
      withField({ type: 'array', items: { type: 'object' } }),
      CURRENT,
      `${prefix}: property 'f' is a list whose items are not a choice of strings; ${PRIMITIVES} (a list only as a multi-select, items { type: 'string', enum: [...] } or { anyOf: [{ const, title }] })`,
    ],
    [
      'a list of objects, on 2025-06-18',
      withField({ type: 'array', items: { type: 'object' } }),
      LEGACY,
      `${prefix}: property 'f' is a list whose items are not a choice of strings; ${PRIMITIVES} (a list only as a multi-select, items { type: 'string', enum: [...] } or { anyOf: [{ const, title }] })`,
    ],
    [
      'a null type',
      withField({ type: 'null' }),
      CURRENT,
      `${prefix}: property 'f' has type 'null'; ${PRIMITIVES}`,
    ],
    [
      'no type',
      withField({ enum: ['a'] }),
      CURRENT,
      `${prefix}: property 'f' has no type; give it one of 'string', 'number', 'integer' or 'boolean'`,
    ],
    [
      'a format forms do not have',
      withField({ type: 'string', format: 'uuid' }),
      CURRENT,
      `${prefix}: property 'f' has format 'uuid'; elicitation forms allow only email, uri, date and date-time`,
    ],
    [
      'a pattern',
      withField({ type: 'string', pattern: '^a' }),
      CURRENT,
      `${prefix}: property 'f' has 'pattern', which a string field of an elicitation form cannot have; allowed: type, title, description, minLength, maxLength, format, default`,
    ],
    [
      'exclusiveMinimum',
      withField({ type: 'integer', exclusiveMinimum: 0 }),
      CURRENT,
      `${prefix}: property 'f' has 'exclusiveMinimum', which an integer field of an elicitation form cannot have; allowed: type, title, description, minimum, maximum, default`,
    ],
    [
      'a string default on 2025-06-18',
      withField({ type: 'string', default: 'x' }),
      LEGACY,
      `${prefix}: property 'f' has a default, which 2025-06-18 allows only on booleans; remove it (2025-11-25 allows it)`,
    ],
    [
      'a titled choice on 2025-06-18',
      withField({ type: 'string', oneOf: [{ const: 'a', title: 'A' }] }),
      LEGACY,
      `${prefix}: property 'f' is a titled single-select, which needs protocol version 2025-11-25; 2025-06-18 clients know only { type: 'string', enum, enumNames }`,
    ],
    [
      'a multi-select on 2025-06-18',
      withField({ type: 'array', items: { type: 'string', enum: ['a'] } }),
      LEGACY,
      `${prefix}: property 'f' is a multi-select, which needs protocol version 2025-11-25; 2025-06-18 clients know only { type: 'string', enum, enumNames }`,
    ],
    [
      'numeric enum values',
      withField({ type: 'string', enum: [1, 2] }),
      CURRENT,
      `${prefix}: property 'f' needs enum to be a non-empty list of strings; got [1, 2]`,
    ],
    [
      'a repeated value',
      withField({ type: 'string', enum: ['a', 'a'] }),
      CURRENT,
      `${prefix}: property 'f' lists 'a' twice in enum`,
    ],
    [
      'both enum and oneOf',
      withField({ type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] }),
      CURRENT,
      `${prefix}: property 'f' has both enum and oneOf; a choice lists its values once`,
    ],
    [
      'enumNames of another length',
      withField({ type: 'string', enum: ['a', 'b'], enumNames: ['A'] }),
      LEGACY,
      `${prefix}: property 'f' has enumNames that are not one string per enum value (2)`,
    ],
    [
      'a default outside the values',
      withField({ type: 'string', enum: ['a', 'b'], default: 'c' }),
      CURRENT,
      `${prefix}: property 'f' has default 'c', which is not one of its values ('a', 'b')`,
    ],
    [
      'a multi-select default outside the values',
      withField({ type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: ['a', 'z'] }),
      CURRENT,
      `${prefix}: property 'f' has default 'z', which is not one of its values ('a')`,
    ],
    [
      'an option without a title',
      withField({ type: 'string', oneOf: [{ const: 'a' }] }),
      CURRENT,
      `${prefix}: property 'f' has oneOf[0] that is not { const: string, title: string }`,
    ],
    [
      'minLength above maxLength',
      withField({ type: 'string', minLength: 5, maxLength: 3 }),
      CURRENT,
      `${prefix}: property 'f' has minLength 5 above maxLength 3; no answer could fit`,
    ],
    [
      'a negative maxItems',
      withField({ type: 'array', items: { type: 'string', enum: ['a'] }, maxItems: -1 }),
      CURRENT,
      `${prefix}: property 'f' has maxItems -1; it must be a whole number ≥ 0`,
    ],
    [
      'a minimum that is not a number',
      withField({ type: 'number', minimum: '1' }),
      CURRENT,
      `${prefix}: property 'f' has minimum '1'; it must be a finite number`,
    ],
    [
      'a fractional integer default',
      withField({ type: 'integer', default: 1.5 }),
      CURRENT,
      `${prefix}: property 'f' has default 1.5; it must be an integer`,
    ],
    [
      'a boolean default that is a string',
      withField({ type: 'boolean', default: 'yes' }),
      LEGACY,
      `${prefix}: property 'f' has default 'yes'; it must be true or false`,
    ],
    [
      'a title that is not a string',
      withField({ type: 'boolean', title: 3 }),
      CURRENT,
      `${prefix}: property 'f' has title 3; it must be a string`,
    ],
  ])('rejects %s', (_, schema, protocolVersion, message) => {
    const error = thrown(() => checkElicitationSchema(schema as object, { protocolVersion }));
    expect(error.code).toBe(LocalErrorCode.InvalidDecorator);
    expect(error.message).toBe(message);
  });

  it('uses the context as the prefix when given', () => {
    const context = "Tool 'book' (TravelTools.book)";
    expect(
      thrown(() =>
        checkElicitationSchema(withField({ type: 'object' }), { protocolVersion: CURRENT, context }),
      ).message,
    ).toBe(`${context}: property 'f' is an object; ${PRIMITIVES}`);
  });
});

// ── Interop with the official SDK ───────────────────────────────────────────────────────────

describe('generated schemas, as the official SDK reads them', () => {
  const request = (requestedSchema: object) => ({
    method: 'elicitation/create',
    params: { mode: 'form', message: 'x', requestedSchema },
  });

  it.each(generated)(
    'ElicitRequestSchema accepts %s (%p, %s) and keeps every keyword',
    (_, dto, protocolVersion) => {
      const requestedSchema = elicitationSchemaFromClass(dto, { protocolVersion });
      const parsed = ElicitRequestSchema.safeParse(request(requestedSchema));
      expect(parsed.error).toBeUndefined();
      // zod objects drop keys they do not know: equality shows every keyword is one the SDK reads.
      expect(parsed.data?.params).toEqual({ mode: 'form', message: 'x', requestedSchema });
    },
  );

  it('ElicitRequestSchema accepts the hand-written schemas checkElicitationSchema accepts', () => {
    for (const schema of [legacyKinds, { ...everyKind, $schema: undefined }]) {
      const parsed = ElicitRequestSchema.safeParse(request(schema));
      expect(parsed.success).toBe(true);
    }
  });

  it('ElicitRequestSchema rejects a nested object, as elicitationSchemaFromClass does', () => {
    const parsed = ElicitRequestSchema.safeParse(
      request({ type: 'object', properties: { address: { type: 'object', properties: {} } } }),
    );
    expect(parsed.success).toBe(false);
  });
});
