// SEP-1034 (MCP 2025-11-25, Client › Elicitation §"Requested Schema"): a form-mode answer the
// user accepted is completed with the requested schema's defaults, in both eras, against a
// real Gantry app served in memory whose tool reports the content exactly as it arrived.
import 'reflect-metadata';
import { Client, type ClientRequestHandler, InMemoryTransport } from '@gantry/client';
import { Ctx, GantryFactory, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import { Peer, type Result } from '@gantry/protocol';

/** Every primitive with a default, and one field without. */
const PROFILE = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
    nickname: { type: 'string' },
  },
};

@Injectable()
class ProfileTools {
  /** What the server received: the action and the content, as JSON. */
  @Tool({ description: 'Asks for a profile and echoes the answer' })
  async askProfile(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit<Record<string, unknown>>(PROFILE, 'Review your profile');
    return JSON.stringify(answer.action === 'accept' ? answer : { action: answer.action });
  }
}

@Module({ providers: [ProfileTools] })
class ProfileModule {}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A client of a fresh app, in `era`, whose elicitation handler is `handler`. */
async function connect(era: 'session' | 'stateless', handler: ClientRequestHandler) {
  const app = await GantryFactory.create(ProfileModule, {
    name: 'profile',
    version: '1.0.0',
    logger: false,
    stateless: { requestStateKey: 'k'.repeat(32) },
  });
  cleanups.push(() => app.close());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client(
    { name: 'defaults-tests', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, eraCache: new Map() },
  );
  cleanups.push(() => client.close());
  client.setRequestHandler('elicitation/create', handler);
  await client.connect(clientSide, { era });
  return client;
}

async function received(client: Client): Promise<unknown> {
  const result = await client.callTool('ask_profile');
  return JSON.parse((result.content[0] as { text: string }).text);
}

describe.each(['session', 'stateless'] as const)('elicitation defaults (SEP-1034), %s era', (era) => {
  it('fills in the defaults of the fields an accepted answer left out', async () => {
    const client = await connect(era, () => ({ action: 'accept', content: { name: 'Ada' } }));

    expect(await received(client)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: true },
    });
  });

  it('fills in every default when the answer has no content at all', async () => {
    const client = await connect(era, () => ({ action: 'accept' }));

    expect(await received(client)).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
  });

  it('never overrides what the handler gave, falsy values included', async () => {
    const given = { name: '', age: 0, score: 0, status: 'pending', verified: false, nickname: 'x' };
    const client = await connect(era, () => ({ action: 'accept', content: { ...given } }));

    expect(await received(client)).toEqual({ action: 'accept', content: given });
  });

  it('leaves declined answers alone', async () => {
    const seen: unknown[] = [];
    const client = await connect(era, (params) => {
      seen.push(params.requestedSchema);
      return { action: 'decline' };
    });

    expect(await received(client)).toEqual({ action: 'decline' });
    // The handler saw the schema the server sent, defaults and all.
    expect(seen).toEqual([PROFILE]);
  });
});

describe('elicitation defaults: what the Client leaves alone (a bare server Peer asks)', () => {
  /** A session-era server Peer that sends one `elicitation/create` and returns the answer. */
  async function ask(params: { [key: string]: unknown }, answer: Result): Promise<Result> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new Peer({
      onRequest: (request) => {
        if (request.method !== 'initialize') throw new Error(`unexpected ${request.method}`);
        return {
          protocolVersion: '2025-11-25',
          capabilities: {},
          serverInfo: { name: 'bare', version: '1' },
        };
      },
    });
    cleanups.push(() => server.close());
    await server.connect(serverSide);
    const client = new Client({ name: 'defaults-tests', version: '1' }, { eraCache: new Map() });
    cleanups.push(() => client.close());
    client.setRequestHandler('elicitation/create', () => answer);
    await client.connect(clientSide, { era: 'session' });
    return server.request({ method: 'elicitation/create', params });
  }

  it('URL-mode answers get no content', async () => {
    const result = await ask(
      { mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' },
      { action: 'accept' },
    );

    expect(result).toEqual({ action: 'accept' });
  });

  it('a property named "__proto__" stays a plain field of the content', async () => {
    const result = await ask(
      {
        message: 'Odd names',
        requestedSchema: JSON.parse(
          '{"type":"object","properties":{"__proto__":{"type":"string","default":"p"}}}',
        ),
      },
      { action: 'accept', content: {} },
    );

    expect(JSON.stringify(result)).toBe('{"action":"accept","content":{"__proto__":"p"}}');
  });
});
