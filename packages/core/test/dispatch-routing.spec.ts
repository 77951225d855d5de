// Every request on a connection is routed by its era: a request that describes itself in _meta
// (2026-07-28) is served statelessly on any connection, the rest by the connection's session,
// and each era talks back to the client through its own channel.
import {
  Args,
  type ConnectOptions,
  Ctx,
  connectionHostOf,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
  Tool,
} from '@gantry/core';
import { InMemoryTransport } from '@gantry/protocol';
import { IsString } from 'class-validator';

class Named {
  @IsString()
  name!: string;
}

class Trip {
  @IsString()
  city!: string;
}

@Injectable()
class RoutingTools {
  @Tool({ description: 'Asks who travels' })
  async whoTravels(@Args() trip: Trip, @Ctx() ctx: McpContext) {
    const who = await ctx.elicit(Named, `Who travels to ${trip.city}?`);
    return who.action === 'accept' ? `${who.content.name} (${ctx.era})` : who.action;
  }

  @Tool({ description: 'Sends the user to sign in' })
  async signIn(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicitUrl('https://example.com/login', 'Sign in', { elicitationId: 'e-1' });
    return `${answer.action} ${answer.elicitationId}`;
  }
}

@Module({ providers: [RoutingTools] })
class RoutingModule {}

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'routing', version: '1.0.0' } };

function statelessCall(id: number, name: string, args: object, capabilities: object) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { [VERSION]: '2026-07-28', [CAPABILITIES]: capabilities } },
  };
}

function call(id: number, name: string, args: object = {}) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

function text(value: string) {
  return { content: [{ type: 'text', text: value }] };
}

/** The client end of an in-memory connection: what it sends, and the messages it got, in order. */
interface Client {
  send(message: object): void;
  next(): Promise<any>;
}

async function connect(app: GantryApplication, options?: ConnectOptions): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: unknown[] = [];
  const waiting: ((message: unknown) => void)[] = [];
  clientSide.start({
    message: (value) => {
      const waiter = waiting.shift();
      if (waiter) waiter(value);
      else received.push(value);
    },
    invalid: () => undefined,
    closed: () => undefined,
  });
  await connectionHostOf(app).connect(serverSide, options);
  return {
    send: (message) => void clientSide.send(message as never),
    next: () =>
      received.length > 0
        ? Promise.resolve(received.shift())
        : new Promise((resolve) => waiting.push(resolve)),
  };
}

let app: GantryApplication;

beforeEach(async () => {
  app = await GantryFactory.create(RoutingModule, { name: 'routing', version: '1.0.0', logger: false });
});

afterEach(async () => {
  await app.close();
});

async function initialize(client: Client, capabilities: object): Promise<void> {
  client.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } },
  });
  expect((await client.next()).result.protocolVersion).toBe('2025-11-25');
  client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

describe('a sessionless connection (each request stands alone, no initialize)', () => {
  const mode = {
    sessionless: { protocolVersion: '2025-11-25', reason: 'this stream cannot carry requests' },
  };

  it('serves session-era requests at once and refuses server→client requests with its reason', async () => {
    const client = await connect(app, { mode });
    client.send(call(1, 'who_travels', { city: 'Kyoto' }));
    expect(await client.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'ctx.elicit(): this stream cannot carry requests' }],
        isError: true,
      },
    });
  });

  it('still serves a stateless-era request statelessly, asking through its result', async () => {
    const client = await connect(app, { mode });
    client.send(statelessCall(1, 'who_travels', { city: 'Kyoto' }, { elicitation: { form: {} } }));
    const answer = await client.next();
    expect(answer.result).toEqual({
      resultType: 'input_required',
      inputRequests: {
        'elicitation-1': {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Who travels to Kyoto?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string' } },
              required: ['name'],
            },
          },
        },
      },
      requestState: expect.any(String),
      _meta: SERVER_INFO,
    });
  });
});

describe('URL elicitation, as each era carries it', () => {
  it('a session sends the elicitationId and is the one told when the flow completes', async () => {
    const client = await connect(app);
    await initialize(client, { elicitation: { url: {} } });
    client.send(call(1, 'sign_in'));
    const request = await client.next();
    expect(request).toEqual({
      jsonrpc: '2.0',
      id: expect.anything(),
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e-1' },
    });
    client.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept' } });
    expect(await client.next()).toEqual({ jsonrpc: '2.0', id: 1, result: text('accept e-1') });

    expect(await app.completeElicitation('e-1')).toBe(true);
    expect(await client.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'e-1' },
    });
    // Told once: the session is forgotten after that.
    expect(await app.completeElicitation('e-1')).toBe(false);
  });

  it('a stateless request asks without an elicitationId, and no session is remembered for it', async () => {
    const client = await connect(app);
    client.send(statelessCall(1, 'sign_in', {}, { elicitation: { url: {} } }));
    expect((await client.next()).result.inputRequests).toEqual({
      'elicitation-1': {
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' },
      },
    });
    expect(await app.completeElicitation('e-1')).toBe(false);
  });
});
