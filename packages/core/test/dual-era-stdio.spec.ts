// Both protocol eras on one stdio process, as a dual-era client or several clients sharing a
// process see them: `initialize` opens the session era for the process, while requests that
// describe themselves in _meta (2026-07-28) are served statelessly before and after it, side
// by side, each with its own rules.
import type { GantryApplication } from '@gantry/core';
import { createDualEraApp } from './fixtures/dual-era-app';
import { serverInfoMeta, statelessLines } from './support/stateless-lines';
import { openWire, type Wire } from './support/wire';

const K = {
  version: 'io.modelcontextprotocol/protocolVersion',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;
const SERVER_INFO = serverInfoMeta('dual-era');
const { complete, inputRequired } = statelessLines(SERVER_INFO);
const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

function meta(capabilities: object = { elicitation: { form: {} }, sampling: {} }, extra = {}) {
  return { [K.version]: '2026-07-28', [K.capabilities]: capabilities, ...extra };
}

function stateless(id: number | string, method: string, params: Record<string, unknown> = {}, m = meta()) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: m } };
}

function legacy(id: number | string, method: string, params?: Record<string, unknown>) {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

function text(value: string) {
  return { content: [{ type: 'text', text: value }] };
}

function form(message: string, properties: Record<string, unknown>, required: string[]) {
  return { mode: 'form', message, requestedSchema: { type: 'object', properties, required } };
}
const whoTravels = (city: string) => form(`Who travels to ${city}?`, { name: { type: 'string' } }, ['name']);
const book = (city: string, name: string) =>
  form(`Book ${city} for ${name}?`, { confirm: { type: 'boolean' } }, ['confirm']);
const slogan = (city: string) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `A slogan for ${city}` } }],
  maxTokens: 40,
});

const INITIALIZE_WITH_CAPABILITIES = legacy(0, 'initialize', {
  protocolVersion: '2025-11-25',
  capabilities: { elicitation: { form: {} }, sampling: {} },
  clientInfo: { name: 'legacy-client', version: '1.0.0' },
});

const INITIALIZE_RESULT = {
  jsonrpc: '2.0',
  id: 0,
  result: {
    protocolVersion: '2025-11-25',
    capabilities: CAPABILITIES,
    serverInfo: { name: 'dual-era', version: '1.0.0' },
    instructions: 'Plan trips.',
  },
};

const isRequest = (message: any) => 'method' in message && 'id' in message;

let app: GantryApplication;
let wire: Wire;

beforeEach(async () => {
  app = await createDualEraApp();
  wire = await openWire(app);
});

afterEach(async () => {
  await app.close();
});

async function lines(n: number): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < n; i++) out.push(await wire.next());
  return out;
}

async function initialize(): Promise<void> {
  wire.send(INITIALIZE_WITH_CAPABILITIES);
  expect(await wire.next()).toEqual(INITIALIZE_RESULT);
  wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

describe('choosing the era', () => {
  it('initialize opens the session era even when its _meta carries a stateless protocolVersion', async () => {
    wire.send({
      ...INITIALIZE_WITH_CAPABILITIES,
      params: { ...INITIALIZE_WITH_CAPABILITIES.params, _meta: meta() },
    });
    expect(await wire.next()).toEqual(INITIALIZE_RESULT);
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // Session-era methods now work without _meta…
    wire.send(legacy(1, 'ping'));
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    wire.send(legacy(2, 'logging/setLevel', { level: 'error' }));
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // …and a second initialize is refused.
    wire.send({ ...INITIALIZE_WITH_CAPABILITIES, id: 3 });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32600,
        message: 'Invalid request: the session is already initialized; "initialize" may be sent only once',
      },
    });
  });

  it('stateless requests do not open a session: session-era requests still need initialize', async () => {
    wire.send(stateless(1, 'tools/call', { name: 'echo', arguments: { text: 'stateless' } }));
    expect(await wire.next()).toEqual(complete(1, text('stateless')));
    wire.send(legacy(2, 'tools/list'));
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32600,
        message: 'Invalid request: "tools/list" was sent before initialization; send "initialize" first',
      },
    });
    wire.send(legacy(3, 'ping'));
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('session-era results carry no resultType or serverInfo; stateless ones do, on the same process', async () => {
    await initialize();
    wire.send(legacy(1, 'tools/call', { name: 'echo', arguments: { text: 'old' } }));
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 1, result: text('old') });
    wire.send(stateless(2, 'tools/call', { name: 'echo', arguments: { text: 'new' } }));
    expect(await wire.next()).toEqual(complete(2, text('new')));
  });
});

describe('both eras at once', () => {
  it('runs a session-era plan_trip and a stateless one interleaved, each in its own way', async () => {
    await initialize();

    // Session era: progress and a server→client elicitation request.
    wire.send(
      legacy(1, 'tools/call', {
        name: 'plan_trip',
        arguments: { city: 'Rome' },
        _meta: { progressToken: 'lp' },
      }),
    );
    const [progress1, elicit1] = await lines(2);
    expect(progress1).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'lp', progress: 1, total: 3, message: 'asking who travels' },
    });
    expect(elicit1).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'elicitation/create',
      params: whoTravels('Rome'),
    });

    // Stateless era, while the session-era call waits for its answer.
    const oslo = { name: 'plan_trip', arguments: { city: 'Oslo' } };
    wire.send(stateless('m1', 'tools/call', oslo));
    const m1 = await wire.next();
    expect(m1).toEqual(
      inputRequired('m1', { 'elicitation-1': { method: 'elicitation/create', params: whoTravels('Oslo') } }),
    );

    wire.send({ jsonrpc: '2.0', id: elicit1.id, result: { action: 'accept', content: { name: 'Bo' } } });
    const [progress2, elicit2] = await lines(2);
    expect(progress2).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'lp', progress: 2, total: 3, message: 'asking to confirm' },
    });
    expect(elicit2).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'elicitation/create',
      params: book('Rome', 'Bo'),
    });

    wire.send(
      stateless('m2', 'tools/call', {
        ...oslo,
        requestState: m1.result.requestState,
        inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
      }),
    );
    const m2 = await wire.next();
    expect(m2).toEqual(
      inputRequired('m2', { 'elicitation-2': { method: 'elicitation/create', params: book('Oslo', 'Ada') } }),
    );

    wire.send({ jsonrpc: '2.0', id: elicit2.id, result: { action: 'accept', content: { confirm: true } } });
    const sample = await wire.next();
    expect(sample).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'sampling/createMessage',
      params: slogan('Rome'),
    });

    wire.send(
      stateless('m3', 'tools/call', {
        ...oslo,
        requestState: m2.result.requestState,
        inputResponses: { 'elicitation-2': { action: 'accept', content: { confirm: true } } },
      }),
    );
    const m3 = await wire.next();
    expect(m3).toEqual(
      inputRequired('m3', { 'sampling-3': { method: 'sampling/createMessage', params: slogan('Oslo') } }),
    );
    wire.send(
      stateless('m4', 'tools/call', {
        ...oslo,
        requestState: m3.result.requestState,
        inputResponses: {
          'sampling-3': { role: 'assistant', model: 'm', content: { type: 'text', text: 'Fjords' } },
        },
      }),
    );
    expect(await wire.next()).toEqual(complete('m4', text('Booked Oslo for Ada (stateless): Fjords')));

    wire.send({
      jsonrpc: '2.0',
      id: sample.id,
      result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'Ciao' } },
    });
    expect(await lines(3)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'lp', progress: 3, total: 3, message: 'done' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: { booked: 'Rome', for: 'Bo' } },
      },
      { jsonrpc: '2.0', id: 1, result: text('Booked Rome for Bo (session): Ciao') },
    ]);

    // The only JSON-RPC requests the server wrote are the session era's three.
    const requests = wire.seen.filter(isRequest);
    expect(requests.map((message) => message.method)).toEqual([
      'elicitation/create',
      'elicitation/create',
      'sampling/createMessage',
    ]);
    expect(new Set(requests.map((message) => message.id)).size).toBe(3);
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('the session capabilities do not leak into stateless requests', async () => {
    await initialize();
    wire.send(stateless(1, 'tools/call', { name: 'plan_trip', arguments: { city: 'Oslo' } }, meta({})));
    const response = await wire.next();
    expect(response.error).toEqual(
      expect.objectContaining({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      }),
    );
    expect(wire.seen.filter(isRequest)).toEqual([]);
  });

  it('the session log level does not make stateless requests log, nor the reverse', async () => {
    await initialize();
    wire.send(legacy(1, 'logging/setLevel', { level: 'debug' }));
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    wire.send(stateless(2, 'tools/call', { name: 'log_levels' }));
    expect(await wire.next()).toEqual(complete(2, text('logged')));
    expect(await wire.silentFor(100)).toBe(true);
    wire.send(
      stateless(3, 'tools/call', { name: 'log_levels' }, meta(undefined, { [K.logLevel]: 'emergency' })),
    );
    expect(await wire.next()).toEqual(complete(3, text('logged')));
    wire.send(legacy(4, 'tools/call', { name: 'log_levels' }));
    expect(await lines(3)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'debug message' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error message' } },
      { jsonrpc: '2.0', id: 4, result: text('logged') },
    ]);
  });

  it('notifications/cancelled reaches the call of either era by its id', async () => {
    await initialize();
    wire.send(legacy('old', 'tools/call', { name: 'wait_for_cancel' }));
    wire.send(stateless('new', 'tools/call', { name: 'wait_for_cancel' }));
    const journal = async (id: number) => {
      wire.send(stateless(id, 'tools/call', { name: 'journal_events' }));
      return (await wire.next()).result.content[0].text as string;
    };
    let id = 100;
    while ((await journal(id)) !== 'wait started|wait started') {
      if (++id > 150) throw new Error('the two waits never started');
    }
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'new' } });
    expect(await wire.silentFor(100)).toBe(true);
    expect(await journal(200)).toBe('wait started|wait started|wait cancelled');
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'old' } });
    expect(await wire.silentFor(100)).toBe(true);
    expect(await journal(201)).toBe('wait started|wait started|wait cancelled|wait cancelled');
    expect(wire.seen.filter((message) => message.id === 'old' || message.id === 'new')).toEqual([]);
  });
});
