import { Args, Injectable, Module, Tool } from '@gantry/core';
import { Test } from '@gantry/testing';
import { z } from 'zod';

const Search = z.object({
  query: z.string().min(1).describe('Words to look for'),
  limit: z.number().int().min(1).max(50).default(10),
});

const Found = z.object({ query: z.string(), limit: z.number() });

@Injectable()
class ZodTools {
  @Tool({ description: 'Search with zod arguments', input: Search, output: Found })
  search(@Args() args: z.infer<typeof Search>) {
    return { query: args.query, limit: args.limit };
  }
}

@Module({ providers: [ZodTools] })
class ZodModule {}

describe('Standard Schema (zod) as tool input and output', () => {
  it('advertises the schema the library describes, validates with the library, and applies its defaults', async () => {
    const module = await Test.createTestingModule({ imports: [ZodModule] }).compile();
    const client = await module.createClient();
    const [tool] = await client.listTools();
    expect(tool.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'Words to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
      },
      required: ['query'],
    });
    expect(tool.outputSchema?.required).toEqual(['query', 'limit']);
    expect((await client.callTool('search', { query: 'gantry' })).structuredContent).toEqual({
      query: 'gantry',
      limit: 10,
    });
    const invalid = await client.callTool('search', { query: '', limit: 99 });
    expect(invalid.isError).toBe(true);
    expect((invalid.content[0] as { text: string }).text).toBe(
      "Invalid arguments for tool 'search': query: Too small: expected string to have >=1 characters; limit: Too big: expected number to be <=50",
    );
    await module.close();
  });
});
