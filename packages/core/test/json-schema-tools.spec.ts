import { Args, Ctx, GantryFactory, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import type { ObjectJsonSchema } from '@gantry/protocol';
import { Test } from '@gantry/testing';

/** A JSON-Schema tool whose handler echoes its arguments, served to a client in memory. */
async function serve(input: ObjectJsonSchema) {
  @Injectable()
  class Tools {
    @Tool({ input })
    check(@Args() args: unknown) {
      return JSON.stringify(args);
    }
  }
  @Module({ providers: [Tools] })
  class AppModule {}
  const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const client = await module.createClient();
  const call = async (args: Record<string, unknown>) => {
    const result = await client.callTool('check', args);
    return { isError: result.isError === true, text: (result.content[0] as { text: string }).text };
  };
  return { call, close: () => module.close() };
}

const invalid = (text: string) => ({ isError: true, text: `Invalid arguments for tool 'check': ${text}` });
const accepted = (args: unknown) => ({ isError: false, text: JSON.stringify(args) });

describe('tools/call with a plain JSON Schema (2020-12)', () => {
  it('refuses the issue #11 example that the old validator let through: not, uniqueItems, multipleOf, $ref', async () => {
    const { call, close } = await serve({
      type: 'object',
      properties: {
        n: { type: 'integer', not: { maximum: -1 } },
        u: { type: 'array', uniqueItems: true },
        m: { type: 'integer', multipleOf: 2 },
        x: { $ref: '#/$defs/count' },
      },
      $defs: { count: { type: 'number' } },
    });
    expect(await call({ n: -3, u: [1, 1], m: 7, x: 'str' })).toEqual(
      invalid(
        "n: must not match the schema in 'not'; u: must contain unique elements (elements 0 and 1 are equal); " +
          'm: must be divisible by 2; x: must be a number',
      ),
    );
    expect(await call({ n: 3, u: [1, 2], m: 8, x: 1.5 })).toEqual(
      accepted({ n: 3, u: [1, 2], m: 8, x: 1.5 }),
    );
    await close();
  });

  it.each<[string, ObjectJsonSchema, Record<string, unknown>, string, Record<string, unknown>]>([
    [
      'if/then/else',
      {
        type: 'object',
        if: { properties: { kind: { const: 'card' } }, required: ['kind'] },
        // biome-ignore lint/suspicious/noThenProperty: the if/then/else keyword of JSON Schema 2020-12
        then: { required: ['number'] },
        else: { required: ['iban'] },
      },
      { kind: 'card', iban: 'x' },
      'number: is required',
      { kind: 'card', number: '4111' },
    ],
    [
      'prefixItems and items: false',
      {
        type: 'object',
        properties: {
          at: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
        },
      },
      { at: [1, 'b', 3] },
      'at: must contain no more than 2 elements; at[1]: must be a number',
      { at: [1, 2] },
    ],
    [
      'contains and maxContains',
      { type: 'object', properties: { l: { type: 'array', contains: { type: 'integer' }, maxContains: 1 } } },
      { l: ['a', 'b'] },
      "l: must contain at least 1 and no more than 1 elements matching the 'contains' schema",
      { l: ['a', 1] },
    ],
    [
      'dependentRequired',
      { type: 'object', properties: { pay: { type: 'object', dependentRequired: { card: ['cvc'] } } } },
      { pay: { card: '4111' } },
      'pay.cvc: is required when card is present',
      { pay: { card: '4111', cvc: '123' } },
    ],
    [
      'dependentSchemas',
      {
        type: 'object',
        dependentSchemas: {
          card: { properties: { cvc: { type: 'string', minLength: 3 } }, required: ['cvc'] },
        },
      },
      { card: '4111', cvc: '1' },
      'cvc: must be longer than or equal to 3 characters',
      { card: '4111', cvc: '123' },
    ],
    [
      'propertyNames',
      { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
      { ok: 1, Bad: 2 },
      'property name Bad must match /^[a-z]+$/ regular expression',
      { ok: 1 },
    ],
    [
      'unevaluatedProperties',
      { type: 'object', allOf: [{ properties: { a: { type: 'integer' } } }], unevaluatedProperties: false },
      { a: 1, b: 2 },
      'b: property b should not exist',
      { a: 1 },
    ],
    [
      'unevaluatedItems',
      {
        type: 'object',
        properties: { l: { type: 'array', prefixItems: [{ type: 'string' }], unevaluatedItems: false } },
      },
      { l: ['a', 'b'] },
      'l: must contain no more than 1 elements',
      { l: ['a'] },
    ],
    [
      'minProperties',
      { type: 'object', properties: { o: { type: 'object', minProperties: 1 } } },
      { o: {} },
      'o: must have at least 1 properties',
      { o: { a: 1 } },
    ],
    [
      'format',
      {
        type: 'object',
        properties: { email: { type: 'string', format: 'email' }, day: { type: 'string', format: 'date' } },
      },
      { email: 'nope', day: '2025-02-30' },
      'email: must be an email; day: must be a valid ISO 8601 date string',
      { email: 'ada@example.com', day: '2025-02-28' },
    ],
    [
      'a recursive $ref to $defs',
      {
        type: 'object',
        properties: { tree: { $ref: '#/$defs/node' } },
        $defs: {
          node: {
            type: 'object',
            properties: { value: { type: 'integer' }, next: { $ref: '#/$defs/node' } },
          },
        },
      },
      { tree: { value: 1, next: { value: 'two' } } },
      'tree.next.value: must be an integer number',
      { tree: { value: 1, next: { value: 2 } } },
    ],
    [
      'anyOf through $ref hides the failing branches',
      {
        type: 'object',
        properties: { id: { anyOf: [{ $ref: '#/$defs/code' }, { type: 'integer' }] } },
        $defs: { code: { type: 'string', pattern: '^[A-Z]{3}$' } },
      },
      { id: 'abc' },
      'id: must match at least one of the allowed schemas',
      { id: 'ABC' },
    ],
    [
      'draft-07: definitions, tuple items and additionalItems, $schema',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          at: {
            type: 'array',
            items: [{ $ref: '#/definitions/coordinate' }, { $ref: '#/definitions/coordinate' }],
            additionalItems: false,
          },
        },
        definitions: { coordinate: { type: 'number', minimum: -180, maximum: 180 } },
      },
      { at: [10, 200, 3] },
      'at: must contain no more than 2 elements; at[1]: must not be greater than 180',
      { at: [10, 20] },
    ],
    [
      'draft-07: dependencies (a missing top-level argument reads "is required", as for every tool)',
      { type: 'object', dependencies: { card: ['cvc'] } },
      { card: '4111' },
      'cvc: is required',
      { card: '4111', cvc: '123' },
    ],
  ])('enforces %s', async (_name, schema, wrong, message, right) => {
    const { call, close } = await serve(schema);
    expect(await call(wrong)).toEqual(invalid(message));
    expect(await call(right)).toEqual(accepted(right));
    await close();
  });

  it('advertises the schema as written, draft-07 keywords included', async () => {
    const schema: ObjectJsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { at: { type: 'array', items: [{ type: 'number' }], additionalItems: false } },
    };
    @Injectable()
    class Tools {
      @Tool({ input: schema })
      check() {
        return 'ok';
      }
    }
    @Module({ providers: [Tools] })
    class AppModule {}
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const client = await module.createClient();
    expect((await client.listTools())[0].inputSchema).toEqual(schema);
    await module.close();
  });
});

describe('a plain JSON Schema that cannot be compiled fails bootstrap', () => {
  const boot = (input: ObjectJsonSchema) => {
    @Injectable()
    class BrokenTools {
      @Tool({ input })
      lookUp() {
        return 'never';
      }
    }
    @Module({ providers: [BrokenTools] })
    class AppModule {}
    return GantryFactory.create(AppModule, { name: 't', version: '1', logger: false });
  };

  it.each<[ObjectJsonSchema, string]>([
    [
      { type: 'object', properties: { id: { $ref: '#/$defs/missing' } } },
      `Tool 'look_up' (BrokenTools.lookUp): the input schema cannot be compiled: JSON Schema at #/properties/id: $ref "#/$defs/missing" does not resolve to a schema; define it under $defs (schemas are never fetched)`,
    ],
    [
      { type: 'object', properties: { id: { type: 'uuid' } } },
      `Tool 'look_up' (BrokenTools.lookUp): the input schema cannot be compiled: JSON Schema at #/properties/id: unknown type "uuid"`,
    ],
    [
      { type: 'object', properties: { id: { type: 'string', minLength: -1 } } },
      `Tool 'look_up' (BrokenTools.lookUp): the input schema cannot be compiled: JSON Schema at #/properties/id: 'minLength' must be >= 0`,
    ],
    [
      { $schema: 'https://example.com/my-dialect', type: 'object' },
      `Tool 'look_up' (BrokenTools.lookUp): the input schema cannot be compiled: JSON Schema at #: $schema "https://example.com/my-dialect" is a dialect Gantry cannot validate`,
    ],
  ])('%j', async (input, message) => {
    await expect(boot(input)).rejects.toThrow(message);
  });
});

describe('structuredContent is checked against a plain output schema', () => {
  it('answers −32603 naming the mismatch when the tool returns what its outputSchema forbids', async () => {
    @Injectable()
    class Tools {
      @Tool({
        input: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
        output: {
          type: 'object',
          properties: { total: { type: 'number', multipleOf: 0.01, not: { const: 0 } } },
          required: ['total'],
        },
      })
      price(@Args() args: { total: number }) {
        return { total: args.total };
      }
    }
    @Module({ providers: [Tools] })
    class AppModule {}
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const client = await module.createClient();
    await expect(client.callTool('price', { total: 1.005 })).rejects.toMatchObject({
      code: -32603,
      message:
        "Internal error: tool 'price' returned output that does not match its outputSchema: total: must be divisible by 0.01",
    });
    await expect(client.callTool('price', { total: 0 })).rejects.toMatchObject({
      message:
        "Internal error: tool 'price' returned output that does not match its outputSchema: total: must not match the schema in 'not'",
    });
    expect((await client.callTool('price', { total: 12.5 })).structuredContent).toEqual({ total: 12.5 });
    await module.close();
  });

  it('fails bootstrap when the output schema cannot be compiled, naming the tool', async () => {
    @Injectable()
    class OutputTools {
      @Tool({ output: { type: 'object', properties: { at: { $ref: '#/$defs/point' } } } })
      where() {
        return { at: 1 };
      }
    }
    @Module({ providers: [OutputTools] })
    class AppModule {}
    await expect(GantryFactory.create(AppModule, { name: 't', version: '1', logger: false })).rejects.toThrow(
      `Tool 'where' (OutputTools.where): the output schema cannot be compiled: JSON Schema at #/properties/at: $ref "#/$defs/point" does not resolve`,
    );
  });
});

describe('an elicitation answer is checked against its plain schema', () => {
  it('rejects an answer whose format is wrong and accepts a right one', async () => {
    @Injectable()
    class Tools {
      @Tool()
      async subscribe(@Ctx() ctx: McpContext) {
        const answer = await ctx.elicit<{ email: string; since: string }>(
          {
            type: 'object',
            properties: {
              email: { type: 'string', format: 'email' },
              since: { type: 'string', format: 'date' },
            },
            required: ['email'],
          },
          'Where should we write?',
        );
        return answer.action === 'accept' ? `subscribed ${answer.content.email}` : answer.action;
      }
    }
    @Module({ providers: [Tools] })
    class AppModule {}
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const client = await module.createClient(
      { name: 'form-client', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    let content: Record<string, unknown> = { email: 'not an address', since: '2025-13-01' };
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content }));
    const first = await client.callTool('subscribe');
    expect(first.isError).toBe(true);
    expect((first.content[0] as { text: string }).text).toBe(
      'The answer to the elicitation "Where should we write?" is invalid: email: must be an email; since: must be a valid ISO 8601 date string',
    );
    content = { email: 'ada@example.com', since: '2025-12-01' };
    expect((await client.callTool('subscribe')).content).toEqual([
      { type: 'text', text: 'subscribed ada@example.com' },
    ]);
    await module.close();
  });
});
