// Client.complete (`completion/complete`, MCP 2025-11-25, Server › Utilities › Completion)
// against a real Gantry app served in memory, with `@Complete` handlers on a prompt argument
// and a resource-template variable, in both eras.
import 'reflect-metadata';
import { Client, InMemoryTransport } from '@gantry/client';
import {
  Args,
  Complete,
  type CompletionContext,
  GantryFactory,
  Injectable,
  Module,
  Param,
  Prompt,
  Resource,
} from '@gantry/core';
import { GantryError, InvalidParamsError, LocalErrorCode, Peer } from '@gantry/protocol';
import { IsString } from 'class-validator';

const CITIES: { [country: string]: string[] } = {
  fr: ['Paris', 'Lyon', 'Lille'],
  it: ['Roma', 'Lucca', 'Livorno'],
};

class Visit {
  @IsString() country!: string;
  @IsString() city!: string;
}

@Injectable()
class Travel {
  @Prompt({ description: 'Plans a visit' })
  visit(@Args() { country, city }: Visit) {
    return `Visit ${city} in ${country}`;
  }

  /** Depends on the country already given. */
  @Complete('city', { prompt: 'visit' })
  completeCity(prefix: string, context: CompletionContext) {
    return (CITIES[context.arguments.country ?? 'fr'] ?? []).filter((city) => city.startsWith(prefix));
  }

  @Resource({ uri: 'guides://{country}', name: 'guide', mimeType: 'text/plain' })
  guide(@Param('country') country: string) {
    return `A guide to ${country}`;
  }

  /** Says how many there are in all, and that more exist, beyond the one returned. */
  @Complete('country', { resource: 'guides://{country}' })
  completeCountry(prefix: string) {
    const all = Object.keys(CITIES).filter((country) => country.startsWith(prefix));
    return { values: all.slice(0, 1), total: all.length, hasMore: all.length > 1 };
  }
}

@Module({ providers: [Travel] })
class TravelModule {}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function connect(era: 'session' | 'stateless'): Promise<Client> {
  const app = await GantryFactory.create(TravelModule, {
    name: 'travel',
    version: '1.0.0',
    logger: false,
    stateless: { requestStateKey: 'k'.repeat(32) },
  });
  cleanups.push(() => app.close());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: 'complete-tests', version: '1.0.0' }, { eraCache: new Map() });
  cleanups.push(() => client.close());
  await client.connect(clientSide, { era });
  return client;
}

describe.each(['session', 'stateless'] as const)('Client.complete, %s era', (era) => {
  it('completes a prompt argument', async () => {
    const client = await connect(era);

    await expect(
      client.complete({ type: 'ref/prompt', name: 'visit' }, { name: 'city', value: 'L' }),
    ).resolves.toEqual({ values: ['Lyon', 'Lille'], total: 2 });
  });

  it('sends context.arguments, which the completion depends on', async () => {
    const client = await connect(era);

    const completion = await client.complete(
      { type: 'ref/prompt', name: 'visit' },
      { name: 'city', value: 'L' },
      { arguments: { country: 'it' } },
    );

    expect(completion.values).toEqual(['Lucca', 'Livorno']);
  });

  it('completes a resource-template variable, with total and hasMore', async () => {
    const client = await connect(era);

    await expect(
      client.complete({ type: 'ref/resource', uri: 'guides://{country}' }, { name: 'country', value: '' }),
    ).resolves.toEqual({ values: ['fr'], total: 2, hasMore: true });
  });

  it("rejects with the server's error for a prompt it does not have", async () => {
    const client = await connect(era);

    const failure = client.complete({ type: 'ref/prompt', name: 'nope' }, { name: 'city', value: '' });

    await expect(failure).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(failure).rejects.toThrow('Unknown prompt: nope');
  });
});

describe('Client.complete: what it checks', () => {
  it.each([
    [
      { type: 'ref/tool', name: 'x' },
      { name: 'a', value: '' },
      undefined,
      `ref must be { type: 'ref/prompt', name } or { type: 'ref/resource', uri }, got {"type":"ref/tool","name":"x"}`,
    ],
    [{ type: 'ref/prompt' }, { name: 'a', value: '' }, undefined, 'ref must be'],
    [{ type: 'ref/resource', name: 'x' }, { name: 'a', value: '' }, undefined, 'a ref/resource needs "uri"'],
    [
      { type: 'ref/prompt', name: 'visit' },
      { name: 'city' },
      undefined,
      'argument must be { name, value } with a non-empty name and a string value, got {"name":"city"}',
    ],
    [
      { type: 'ref/prompt', name: 'visit' },
      { name: 'city', value: 'L' },
      { arguments: { country: 7 } },
      'context must be { arguments?: { [name]: string } }, got {"arguments":{"country":7}}',
    ],
  ])('refuses bad input: %j %j %j', async (ref, argument, context, message) => {
    const client = await connect('session');

    const failure = client.complete(ref as never, argument as never, context as never);

    await expect(failure).rejects.toBeInstanceOf(TypeError);
    await expect(failure).rejects.toThrow(`Client.complete(ref, argument, context?): ${message}`);
  });

  it('refuses an answer without a completion of string values', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new Peer({
      onRequest: (request) =>
        request.method === 'initialize'
          ? {
              protocolVersion: '2025-11-25',
              capabilities: { completions: {} },
              serverInfo: { name: 's', version: '1' },
            }
          : { completion: { values: ['ok', 3] } },
    });
    cleanups.push(() => server.close());
    await server.connect(serverSide);
    const client = new Client({ name: 'complete-tests', version: '1' }, { eraCache: new Map() });
    cleanups.push(() => client.close());
    await client.connect(clientSide, { era: 'session' });

    const failure = client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' });

    await expect(failure).rejects.toBeInstanceOf(GantryError);
    await expect(failure).rejects.toMatchObject({ code: LocalErrorCode.ProtocolViolation });
    await expect(failure).rejects.toThrow(
      'completion/complete answered without a "completion" of { values: string[], total?: number, hasMore?: boolean }: {"completion":{"values":["ok",3]}}',
    );
  });
});
