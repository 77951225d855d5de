// The client in the stateless era (2026-07-28) against a real Gantry app served in memory:
// the dual-era app of the core tests, whose handlers elicit, sample and report progress the
// same way in both eras. Every message is recorded as it crossed the pipe.
import { Client, type ClientRequestHandler, clearEraCache, InMemoryTransport } from '@gantry/client';
import {
  GantryError,
  InvalidParamsError,
  LocalErrorCode,
  McpError,
  MethodNotFoundError,
  Peer,
  type Result,
} from '@gantry/protocol';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { RecordingTransport } from './fixtures/recording-transport';

type App = Awaited<ReturnType<typeof createDualEraApp>>;

const V = '2026-07-28';
const CLIENT_INFO = { name: 'era-tests', version: '1.0.0' };
const CAPS = { elicitation: { form: {} }, sampling: {} };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
beforeEach(() => clearEraCache());

async function dualEraApp(): Promise<App> {
  const app = await createDualEraApp();
  cleanups.push(() => app.close());
  return app;
}

/** A client connected to `app` through a recorded in-memory pipe. */
async function connect(
  app: App,
  options: ConstructorParameters<typeof Client>[1] = {},
  era?: 'auto' | 'stateless' | 'session',
) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const wire = new RecordingTransport(clientSide);
  const client = new Client(CLIENT_INFO, options);
  cleanups.push(() => client.close());
  await client.connect(wire, era === undefined ? {} : { era });
  return { client, wire };
}

/** Answers plan_trip's questions: the traveller's name, the booking, a slogan. */
function tripHandlers(client: Client, name = 'Grace') {
  const asked: string[] = [];
  const contexts: unknown[] = [];
  const elicit: ClientRequestHandler = (params, context) => {
    asked.push(params.message as string);
    contexts.push(context);
    if ((params.message as string).startsWith('Book'))
      return { action: 'accept', content: { confirm: true } };
    return { action: 'accept', content: { name } };
  };
  client.setRequestHandler('elicitation/create', elicit);
  client.setRequestHandler('sampling/createMessage', (params) => {
    asked.push(((params.messages as { content: { text: string } }[])[0].content as { text: string }).text);
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Sunny days!' } };
  });
  return { asked, contexts };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('connect: choosing the protocol era against a dual-era Gantry app', () => {
  it("era 'auto' (the default) speaks the stateless era: server/discover, then _meta on every request", async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS });

    expect(client.era).toBe('stateless');
    expect(client.protocolVersion).toBe(V);
    expect(client.serverInfo).toEqual({ name: 'dual-era', version: '1.0.0' });
    expect(client.instructions).toBe('Plan trips.');
    expect(client.serverCapabilities?.tools).toEqual({ listChanged: true });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientCapabilities': CAPS,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    };
    expect(wire.sent).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } },
    ]);

    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('plan_trip');
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect(wire.sent.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hi' }, _meta: meta },
      },
    ]);
    expect(wire.sent.some((message: any) => message.method === 'initialize')).toBe(false);
  });

  it('gives results the shape of session-era ones unless rawResults is set', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app);
    expect(await client.callTool('echo', { text: 'plain' })).toEqual({
      content: [{ type: 'text', text: 'plain' }],
    });
    const [call] = wire.requests('tools/call');
    expect(wire.resultOf(call.id)).toEqual({
      content: [{ type: 'text', text: 'plain' }],
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'dual-era', version: '1.0.0' } },
    });

    const { client: raw } = await connect(app, { rawResults: true });
    expect(await raw.readResource('trips://readme')).toEqual({
      contents: [{ uri: 'trips://readme', mimeType: 'text/plain', text: 'Plan trips with plan_trip.' }],
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'dual-era', version: '1.0.0' } },
    });
  });

  it("era 'session' performs the initialize handshake and never sends server/discover", async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS }, 'session');

    expect(client.era).toBe('session');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'dual-era', version: '1.0.0' });
    expect(wire.sent.map((message: any) => message.method)).toEqual([
      'initialize',
      'notifications/initialized',
    ]);
    await client.callTool('echo', { text: 'x' });
    expect(wire.requests('tools/call')[0].params).toEqual({ name: 'echo', arguments: { text: 'x' } });
  });

  it("era 'stateless' rejects an unknown era name before anything is sent", async () => {
    const client = new Client(CLIENT_INFO);
    const [clientSide] = InMemoryTransport.createLinkedPair();
    await expect(client.connect(clientSide, { era: 'newest' as never })).rejects.toThrow(
      "Client.connect: era must be 'auto', 'stateless' or 'session' (got \"newest\")",
    );
  });
});

describe('input_required rounds (2026-07-28 multi round-trip requests)', () => {
  it('answers plan_trip through the request handlers and retries with a new id, inputResponses and the echoed requestState', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS });
    const { asked, contexts } = tripHandlers(client);
    const progress: number[] = [];

    const result = await client.callTool(
      'plan_trip',
      { city: 'Lima' },
      { onProgress: (p) => progress.push(p.progress) },
    );

    expect(text(result)).toBe('Booked Lima for Grace (stateless): Sunny days!');
    expect(asked).toEqual(['Who travels to Lima?', 'Book Lima for Grace?', 'A slogan for Lima']);
    expect(contexts[0]).toMatchObject({
      era: 'stateless',
      method: 'elicitation/create',
      key: 'elicitation-1',
      request: { method: 'tools/call', params: { name: 'plan_trip', arguments: { city: 'Lima' } } },
    });
    expect(progress.at(-1)).toBe(3);

    const calls = wire.requests('tools/call');
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((call) => call.id)).size).toBe(4);
    expect(calls[0].params).not.toHaveProperty('inputResponses');
    expect(calls[0].params).not.toHaveProperty('requestState');
    for (let round = 1; round < 4; round++) {
      const previous = wire.resultOf(calls[round - 1].id);
      expect(previous.resultType).toBe('input_required');
      // Byte for byte, and only the latest round's answers.
      expect(calls[round].params.requestState).toBe(previous.requestState);
      expect(Object.keys(calls[round].params.inputResponses)).toEqual(Object.keys(previous.inputRequests));
      expect(calls[round].params.name).toBe('plan_trip');
      expect(calls[round].params.arguments).toEqual({ city: 'Lima' });
    }
    expect(calls[3].params.inputResponses).toEqual({
      'sampling-3': {
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: 'Sunny days!' },
      },
    });
  });

  it('runs the same handlers for the same tool in the session era, as server → client requests', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS }, 'session');
    const { asked, contexts } = tripHandlers(client, 'Lin');

    expect(text(await client.callTool('plan_trip', { city: 'Oslo' }))).toBe(
      'Booked Oslo for Lin (session): Sunny days!',
    );
    expect(asked).toEqual(['Who travels to Oslo?', 'Book Oslo for Lin?', 'A slogan for Oslo']);
    expect((contexts[0] as { method: string; id: unknown }).method).toBe('elicitation/create');
    expect(wire.requests('tools/call')).toHaveLength(1);
  });

  it('answers input_required from prompts/get and resources/read too', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS });
    tripHandlers(client, 'Ada');

    const prompt = await client.getPrompt('packing', { city: 'Rome' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Packing list for Ada going to Rome' } },
    ]);
    const secret = await client.readResource('trips://secret');
    expect(secret.contents).toEqual([
      { uri: 'trips://secret', mimeType: 'text/plain', text: 'Secret for Ada' },
    ]);
    // Through the escape hatch as well.
    const again = await client.request('prompts/get', { name: 'packing', arguments: { city: 'Bern' } });
    expect(again).toEqual({
      description: 'A packing list, personalised',
      messages: [{ role: 'user', content: { type: 'text', text: 'Packing list for Ada going to Bern' } }],
    });
    expect(wire.requests('prompts/get')).toHaveLength(4);
    expect(wire.requests('resources/read')).toHaveLength(2);
  });

  it('fails locally, naming the method, when no handler answers an input request', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS });

    const error = await client.callTool('plan_trip', { city: 'Lima' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({
      code: LocalErrorCode.CapabilityMissing,
      message:
        'tools/call needs input "elicitation-1" (elicitation/create), but this client has no handler for elicitation/create; register one with client.setRequestHandler(\'elicitation/create\', …) and declare the capability',
    });
    expect(wire.requests('tools/call')).toHaveLength(1);
  });

  it('gives up after maxInputRounds rounds with a local error', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, { capabilities: CAPS, maxInputRounds: 2 });
    tripHandlers(client);

    await expect(client.callTool('plan_trip', { city: 'Lima' })).rejects.toMatchObject({
      code: LocalErrorCode.InputRequired,
      message: 'tools/call still asked for input after 2 rounds (maxInputRounds); gave up',
    });
    expect(wire.requests('tools/call')).toHaveLength(3);
  });

  it('fails the call with the handler’s error when a handler throws', async () => {
    const app = await dualEraApp();
    const { client } = await connect(app, { capabilities: CAPS });
    client.setRequestHandler('elicitation/create', () => {
      throw new Error('the user closed the dialog');
    });
    const error = await client.callTool('plan_trip', { city: 'Lima' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: LocalErrorCode.InputRequired,
      message:
        'The elicitation/create handler failed on input "elicitation-1" of tools/call: the user closed the dialog',
    });
    expect((error as Error).cause).toEqual(new Error('the user closed the dialog'));
  });
});

describe('listen(): change notifications in both eras', () => {
  it('stateless era: subscriptions/listen, the acknowledgement, a registry change, and close with notifications/cancelled', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app);

    const subscription = client.listen({ toolsListChanged: true, promptsListChanged: true });
    await expect(subscription.acknowledged).resolves.toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
    });
    const [listen] = wire.requests('subscriptions/listen');
    expect(listen.params.notifications).toEqual({ toolsListChanged: true, promptsListChanged: true });
    expect(listen.params._meta['io.modelcontextprotocol/protocolVersion']).toBe(V);
    expect(subscription.id).toBe(listen.id);
    expect(app.server.hub.size).toBe(1);

    const iterator = subscription[Symbol.asyncIterator]();
    expect(text(await client.callTool('toggle_extra'))).toBe('added');
    const { value } = await iterator.next();
    expect(value).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': listen.id } },
    });
    expect((await client.listTools()).map((tool) => tool.name)).toContain('extra');

    await subscription.close();
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(wire.sent.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: listen.id, reason: 'The subscription was closed' },
    });
    await client.ping(); // a round trip: the cancellation has been handled
    expect(app.server.hub.size).toBe(0);
  });

  it('stateless era: two subscriptions on one connection are told apart by subscriptionId', async () => {
    const app = await dualEraApp();
    const { client } = await connect(app);
    const tools = client.listen({ toolsListChanged: true });
    const resources = client.listen({ resourceSubscriptions: ['trips://readme'] });
    await expect(tools.acknowledged).resolves.toEqual({ toolsListChanged: true });
    await expect(resources.acknowledged).resolves.toEqual({ resourceSubscriptions: ['trips://readme'] });

    await app.resources.updated('trips://readme');
    await client.callTool('toggle_extra');
    const [updated] = await take(resources, 1);
    const [changed] = await take(tools, 1);
    expect(updated).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'trips://readme' },
    });
    expect(updated.params?._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': resources.id });
    expect(changed).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect(changed.params?._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': tools.id });
    await tools.close();
    await resources.close();
  });

  it('stateless era: the iteration ends when the server ends the stream with its final result', async () => {
    const app = await dualEraApp();
    const { client } = await connect(app);
    const subscription = client.listen({ toolsListChanged: true });
    await subscription.acknowledged;
    const collected = collect(subscription);
    await app.close(); // the hub ends every stream with { resultType: 'complete' }
    await expect(collected).resolves.toEqual([]);
  });

  it('session era: the same call maps to plain list-changed notifications and resources/subscribe', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, {}, 'session');

    const subscription = client.listen({ toolsListChanged: true, resourceSubscriptions: ['trips://readme'] });
    await expect(subscription.acknowledged).resolves.toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['trips://readme'],
    });
    expect(wire.requests('resources/subscribe').map((request) => request.params)).toEqual([
      { uri: 'trips://readme' },
    ]);
    expect(wire.requests('subscriptions/listen')).toEqual([]);

    await client.callTool('toggle_extra');
    await app.resources.updated('trips://readme');
    const notifications = await take(subscription, 2);
    expect(notifications.map((n) => n.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/updated',
    ]);
    await subscription.close();
    expect(wire.requests('resources/unsubscribe').map((request) => request.params)).toEqual([
      { uri: 'trips://readme' },
    ]);
  });

  it('throws NotConnectedError when not connected', () => {
    const client = new Client(CLIENT_INFO);
    expect(() => client.listen({ toolsListChanged: true })).toThrow(
      'Not connected: call connect() before sending "subscriptions/listen"',
    );
  });
});

describe('logging, ping and errors in the stateless era', () => {
  it('sends no log level until setLoggingLevel, then adds it to every request', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app);
    const logged: unknown[] = [];
    client.onNotification('notifications/message', (n) => logged.push(n.params?.data));

    await client.callTool('log_levels');
    await client.ping();
    expect(logged).toEqual([]);
    await client.setLoggingLevel('debug');
    await client.callTool('log_levels');
    expect(logged).toEqual(['debug message', 'error message']);
    const calls = wire.requests('tools/call');
    expect(calls[0].params._meta).not.toHaveProperty('io.modelcontextprotocol/logLevel');
    expect(calls[1].params._meta['io.modelcontextprotocol/logLevel']).toBe('debug');
    expect(wire.requests('logging/setLevel')).toEqual([]);
  });

  it('session era: setLoggingLevel sends logging/setLevel', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app, {}, 'session');
    const logged: unknown[] = [];
    client.onNotification('notifications/message', (n) => logged.push(n.params?.data));
    await client.setLoggingLevel('error');
    await client.callTool('log_levels');
    await client.ping();
    expect(wire.requests('logging/setLevel').map((request) => request.params)).toEqual([{ level: 'error' }]);
    expect(logged).toEqual(['error message']);
  });

  it('ping sends server/discover, the stateless era having no ping', async () => {
    const app = await dualEraApp();
    const { client, wire } = await connect(app);
    await client.ping();
    expect(wire.sent.map((message: any) => message.method)).toEqual(['server/discover', 'server/discover']);
  });

  it('rejects with the stateless error codes: a missing resource is −32602', async () => {
    const app = await dualEraApp();
    const { client } = await connect(app);
    const error = await client.readResource('nope://x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidParamsError);
  });
});

describe('result types and retries against a scripted stateless server', () => {
  /** A bare Peer standing in for a stateless-era server, answering from literal JSON. */
  async function scripted(answers: Record<string, (params: any) => Result | Promise<Result>>) {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const peer = new Peer({
      onRequest: (request) => {
        const answer = answers[request.method];
        if (!answer) throw new MethodNotFoundError(`Method not found: ${request.method}`);
        return answer(request.params);
      },
    });
    await peer.connect(serverEnd);
    cleanups.push(() => peer.close());
    const wire = new RecordingTransport(clientEnd);
    return { wire };
  }

  const DISCOVER = () => ({
    resultType: 'complete',
    supportedVersions: [V],
    capabilities: { tools: {} },
    ttlMs: 0,
    cacheScope: 'public',
  });

  it('treats an absent resultType as complete, and refuses an unrecognized one', async () => {
    const { wire } = await scripted({
      'server/discover': DISCOVER,
      'tools/call': (params) =>
        params.name === 'old'
          ? { content: [{ type: 'text', text: 'no resultType' }] }
          : { resultType: 'task', taskId: 't1' },
    });
    const client = new Client(CLIENT_INFO);
    cleanups.push(() => client.close());
    await client.connect(wire);
    expect(client.era).toBe('stateless');
    expect(client.serverInfo).toBeUndefined();
    await expect(client.callTool('old')).resolves.toEqual({
      content: [{ type: 'text', text: 'no resultType' }],
    });
    await expect(client.callTool('new')).rejects.toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message: 'tools/call answered with resultType "task", which this client does not recognize',
    });
  });

  it('sends no requestState when the server gave none, and echoes an odd one byte for byte', async () => {
    const state = ' ünïcode + spaces =?base64?x?= \u0000 ';
    const { wire } = await scripted({
      'server/discover': DISCOVER,
      'tools/call': (params) => {
        if (params.inputResponses === undefined) {
          return {
            resultType: 'input_required',
            inputRequests: { where: { method: 'roots/list' } },
          };
        }
        if (params.requestState === undefined) {
          return {
            resultType: 'input_required',
            inputRequests: { again: { method: 'roots/list' } },
            requestState: state,
          };
        }
        return {
          resultType: 'complete',
          content: [{ type: 'text', text: `state ${params.requestState === state}` }],
        };
      },
    });
    const client = new Client(CLIENT_INFO, { capabilities: { roots: {} } });
    cleanups.push(() => client.close());
    client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///work' }] }));
    await client.connect(wire, { era: 'stateless' });

    expect(text(await client.callTool('rooted'))).toBe('state true');
    const calls = wire.requests('tools/call');
    expect(calls.map((call) => Object.keys(call.params).sort())).toEqual([
      ['_meta', 'name'],
      ['_meta', 'inputResponses', 'name'],
      ['_meta', 'inputResponses', 'name', 'requestState'],
    ]);
    expect(calls[1].params.inputResponses).toEqual({ where: { roots: [{ uri: 'file:///work' }] } });
    expect(calls[2].params.requestState).toBe(state);
  });

  it('refuses input_required from a method that may not return it', async () => {
    const { wire } = await scripted({
      'server/discover': DISCOVER,
      'tools/list': () => ({ resultType: 'input_required', requestState: 'x' }),
    });
    const client = new Client(CLIENT_INFO);
    cleanups.push(() => client.close());
    await client.connect(wire);
    await expect(client.listTools()).rejects.toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message:
        'tools/list answered resultType "input_required", which only tools/call, prompts/get and resources/read may return',
    });
  });

  it("era 'auto' counts −32022 as a stateless-era answer: no common version is an error, not a fallback", async () => {
    const { wire } = await scripted({
      'server/discover': () => {
        throw new McpError(-32022, 'Unsupported protocol version', {
          supported: ['2099-01-01'],
          requested: V,
        });
      },
      initialize: () => ({
        protocolVersion: '2025-11-25',
        capabilities: {},
        serverInfo: { name: 'x', version: '1' },
      }),
    });
    const client = new Client(CLIENT_INFO);
    const error = await client.connect(wire).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message:
        'The server speaks the stateless era but none of its versions (2099-01-01) is one this client supports (2026-07-28)',
    });
    expect(wire.sent.map((message: any) => message.method)).toEqual(['server/discover']);
  });

  it("era 'auto' takes a −32022 that lists only session-era versions as “use initialize”", async () => {
    const { wire } = await scripted({
      'server/discover': () => {
        throw new McpError(-32022, 'Unsupported protocol version', {
          supported: ['2025-11-25'],
          requested: V,
        });
      },
      initialize: () => ({
        protocolVersion: '2025-11-25',
        capabilities: {},
        serverInfo: { name: 'x', version: '1' },
      }),
    });
    const client = new Client(CLIENT_INFO);
    cleanups.push(() => client.close());
    await client.connect(wire);
    expect(client.era).toBe('session');
    expect(wire.sent.map((message: any) => message.method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
  });

  it("era 'auto' falls back to initialize whatever error code the probe gets (here −32602)", async () => {
    const { wire } = await scripted({
      'server/discover': () => {
        throw new InvalidParamsError('Invalid params: no such method before initialize');
      },
      initialize: () => ({
        protocolVersion: '2025-11-25',
        capabilities: {},
        serverInfo: { name: 'x', version: '1' },
      }),
    });
    const client = new Client(CLIENT_INFO);
    cleanups.push(() => client.close());
    await client.connect(wire);
    expect(client.era).toBe('session');
  });
});

/** The first `count` notifications of a subscription. */
async function take(subscription: AsyncIterable<any>, count: number): Promise<any[]> {
  const out: any[] = [];
  if (count === 0) return out;
  for await (const notification of subscription) {
    out.push(notification);
    if (out.length === count) break;
  }
  return out;
}

/** Every notification until the subscription ends. */
async function collect(subscription: AsyncIterable<any>): Promise<any[]> {
  const out: any[] = [];
  for await (const notification of subscription) out.push(notification);
  return out;
}
