// Input request keys a handler chooses (2026-07-28 multi round-trip requests): literal JSON-RPC
// lines through the real stdio transport. `ctx.elicit()`, `ctx.sample()` and `ctx.roots()`
// take `{ key }`, the key of their input request in the input_required result, so a client
// can answer a named question ("user_name"); without it Gantry makes one (`elicitation-2`).
import 'reflect-metadata';
import {
  Ctx,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
  Tool,
} from '@gantry/core';
import { IsString } from 'class-validator';
import { serverInfoMeta, statelessLines } from './support/stateless-lines';
import { openWire, type Wire } from './support/wire';

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, sampling: {}, roots: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
};
const SERVER_INFO = serverInfoMeta('keys');
const { complete, inputRequired } = statelessLines(SERVER_INFO);

class Name {
  @IsString() name!: string;
}

class Color {
  @IsString() color!: string;
}

const CAPITAL = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Capital of France?' } }],
  maxTokens: 10,
};

@Injectable()
class KeyedTools {
  @Tool({ description: 'Asks three named questions in one round' })
  async named(@Ctx() ctx: McpContext) {
    const [who, capital, roots] = await Promise.all([
      ctx.elicit(Name, 'Your name?', { key: 'user_name' }),
      ctx.sample(CAPITAL, { key: 'capital_question' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    const name = who.action === 'accept' ? who.content.name : '?';
    const text = Array.isArray(capital.content)
      ? '?'
      : capital.content.type === 'text' && capital.content.text;
    return `${name}, ${text}, ${roots.map((root) => root.uri).join(' ')}`;
  }

  @Tool({ description: 'A named question, then one Gantry names' })
  async mixed(@Ctx() ctx: McpContext) {
    const who = await ctx.elicit(Name, 'Your name?', { key: 'user_name' });
    const color = await ctx.elicit(Color, 'Your colour?');
    const value = <T>(answer: { action: string; content?: T }) => answer.content;
    return `${value(who)?.name} likes ${value(color)?.color}`;
  }

  @Tool({ description: 'Keys that look like numbers, asked in descending order' })
  async numbered(@Ctx() ctx: McpContext) {
    const [second, first] = await Promise.all([
      ctx.elicit(Name, 'Asked first', { key: '2' }),
      ctx.elicit(Name, 'Asked second', { key: '1' }),
    ]);
    const name = (answer: typeof first) => (answer.action === 'accept' ? answer.content.name : '?');
    return `key 2: ${name(second)}, key 1: ${name(first)}`;
  }

  @Tool({ description: 'Two questions under one key' })
  async twice(@Ctx() ctx: McpContext) {
    await Promise.all([ctx.elicit(Name, 'Your name?', { key: 'who' }), ctx.sample(CAPITAL, { key: 'who' })]);
    return 'never';
  }

  @Tool({ description: 'Asks with an empty key' })
  async empty(@Ctx() ctx: McpContext) {
    await ctx.elicit(Name, 'Your name?', { key: '' });
    return 'never';
  }

  @Tool({ description: 'Asks with a key of the form Gantry makes' })
  async reserved(@Ctx() ctx: McpContext) {
    await ctx.roots({ key: 'roots-1' });
    return 'never';
  }
}

@Module({ providers: [KeyedTools] })
class KeyedModule {}

let app: GantryApplication | undefined;
let wire: Wire;

beforeEach(async () => {
  app = await GantryFactory.create(KeyedModule, {
    name: 'keys',
    version: '1.0.0',
    logger: false,
    stateless: { requestStateKey: 'k'.repeat(32) },
  });
  wire = await openWire(app);
});

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Sends `tools/call` for `name` (with `extra` params) and returns the answer line. */
async function call(id: number, name: string, extra: Record<string, unknown> = {}): Promise<any> {
  wire.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...extra, _meta: META } });
  return wire.next();
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

function form(message: string, property: string) {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: { [property]: { type: 'string' } },
        required: [property],
      },
    },
  };
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const SAMPLED = { role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } };

describe('input requests under the keys the handler chose', () => {
  it('asks under each key, and takes the answers given under them (ignoring others)', async () => {
    const first = await call(1, 'named');
    expect(first).toEqual(
      inputRequired(1, {
        user_name: form('Your name?', 'name'),
        capital_question: { method: 'sampling/createMessage', params: CAPITAL },
        client_roots: { method: 'roots/list' },
      }),
    );
    expect(
      await call(2, 'named', {
        requestState: first.result.requestState,
        inputResponses: {
          client_roots: { roots: [{ uri: 'file:///work' }] },
          user_name: accept({ name: 'Ada' }),
          capital_question: SAMPLED,
          unasked: accept({ name: 'Eve' }),
        },
      }),
    ).toEqual(complete(2, text('Ada, Paris, file:///work')));
  });

  it('checks an answer by the method its key asked for', async () => {
    const first = await call(1, 'named');
    expect(
      await call(2, 'named', {
        requestState: first.result.requestState,
        inputResponses: {
          user_name: accept({ name: 'Ada' }),
          capital_question: accept({ text: 'Paris' }),
          client_roots: { roots: [] },
        },
      }),
    ).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message:
          'Invalid params: the answer to the input request "capital_question" needs "role" and "content" (a CreateMessageResult)',
      },
    });
  });

  it('numbers the keys it makes by the place of the request in the call, next to chosen ones', async () => {
    const first = await call(1, 'mixed');
    expect(first).toEqual(inputRequired(1, { user_name: form('Your name?', 'name') }));
    const second = await call(2, 'mixed', {
      requestState: first.result.requestState,
      inputResponses: { user_name: accept({ name: 'Ada' }) },
    });
    expect(second).toEqual(inputRequired(2, { 'elicitation-2': form('Your colour?', 'color') }));
    expect(
      await call(3, 'mixed', {
        requestState: second.result.requestState,
        inputResponses: { 'elicitation-2': accept({ color: 'teal' }) },
      }),
    ).toEqual(complete(3, text('Ada likes teal')));
  });

  it('replays answers in the order asked, even under keys that look like numbers', async () => {
    const first = await call(1, 'numbered');
    // A JSON object lists integer-like keys first, in ascending order; the answers still match.
    expect(Object.keys(first.result.inputRequests)).toEqual(['1', '2']);
    expect(
      await call(2, 'numbered', {
        requestState: first.result.requestState,
        inputResponses: { '1': accept({ name: 'one' }), '2': accept({ name: 'two' }) },
      }),
    ).toEqual(complete(2, text('key 2: two, key 1: one')));
  });
});

describe('keys that are refused', () => {
  it('two input requests of one round under one key fail the call with −32603', async () => {
    expect(await call(1, 'twice')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message:
          'Internal error: The input request key "who" is used twice in one round (elicitation/create, then sampling/createMessage); give each input request of a round its own key',
      },
    });
  });

  it('an empty key, or one of the form Gantry makes, is a TypeError the handler sees', async () => {
    expect(await call(1, 'empty')).toEqual(
      complete(1, {
        content: [
          {
            type: 'text',
            text: 'ctx.elicit(): the key option must be a non-empty string (the input request\'s key in an input_required result), got ""',
          },
        ],
        isError: true,
      }),
    );
    expect(await call(2, 'reserved')).toEqual(
      complete(2, {
        content: [
          {
            type: 'text',
            text: 'ctx.roots(): the key "roots-1" has the form of the keys Gantry makes itself (elicitation-N, sampling-N, roots-N, url-…); choose another, e.g. "user_name"',
          },
        ],
        isError: true,
      }),
    );
  });
});
