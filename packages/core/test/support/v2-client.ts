// The official v2 client (@modelcontextprotocol/client) against the dual-era fixture
// (fixtures/dual-era-app.ts): a client factory with elicitation, sampling and roots handlers that
// record what they were asked, a tap on its transport, and the test suites both transports run
// (stdio: core/test/interop-v2-client-stdio.int.spec.ts; HTTP: fastify/test/interop-v2-client.int.spec.ts).
import {
  Client,
  type ClientCapabilities,
  type ElicitResult,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';

/** `pin` speaks 2026-07-28 only; `auto` probes with server/discover; `legacy` runs initialize. */
export type Negotiation = 'pin' | 'auto' | 'legacy';

/** Every tool of the fixture a caller without the admin scope may see, in registration order. */
export const DUAL_ERA_TOOLS = [
  'plan_trip',
  'echo',
  'root_uris',
  'log_levels',
  'wait_for_cancel',
  'trace',
  'polite_name',
  'toggle_extra',
  'journal_events',
];

export const FULL_CAPABILITIES: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };

/** What the sampling handler answers to a request whose last message says `text`. */
export const sampledReply = (text: string) => `${text}, as sampled by the v2 client`;

export interface V2Harness {
  client: Client;
  /** What the client's handlers were asked. */
  asked: { elicitations: string[]; samplings: string[]; roots: number };
  /** How the elicitation handler answers; `accept` fills a Traveller or Confirm form. */
  elicitAction: 'accept' | 'decline' | 'cancel';
  /** Resolves with the next notifications/tools/list_changed the client dispatches. */
  nextToolsChanged(): Promise<{ params?: { _meta?: Record<string, unknown> } }>;
}

/** A v2 client with handlers for every input request the fixture makes; not yet connected. */
export function v2Client(
  negotiation: Negotiation,
  capabilities: ClientCapabilities = FULL_CAPABILITIES,
): V2Harness {
  const client = new Client(
    { name: 'v2-interop', version: '2.4.0' },
    {
      capabilities,
      versionNegotiation: { mode: negotiation === 'pin' ? { pin: '2026-07-28' } : negotiation },
    },
  );
  const waiters: ((notification: { params?: { _meta?: Record<string, unknown> } }) => void)[] = [];
  const harness: V2Harness = {
    client,
    asked: { elicitations: [], samplings: [], roots: 0 },
    elicitAction: 'accept',
    nextToolsChanged: () => new Promise((resolve) => waiters.push(resolve)),
  };
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request): Promise<ElicitResult> => {
      harness.asked.elicitations.push(request.params.message);
      if (harness.elicitAction !== 'accept') return { action: harness.elicitAction };
      const fields =
        'requestedSchema' in request.params ? Object.keys(request.params.requestedSchema.properties) : [];
      if (fields.includes('name')) return { action: 'accept', content: { name: 'Ada' } };
      if (fields.includes('confirm')) return { action: 'accept', content: { confirm: true } };
      throw new Error(`unexpected form with fields ${fields.join(', ')}`);
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const last = request.params.messages.at(-1)?.content;
      const text = last && !Array.isArray(last) && last.type === 'text' ? last.text : '?';
      harness.asked.samplings.push(text);
      return {
        role: 'assistant',
        model: 'v2-test-model',
        content: { type: 'text', text: sampledReply(text) },
      };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler('roots/list', async () => {
      harness.asked.roots++;
      return { roots: [{ uri: 'file:///trips', name: 'trips' }] };
    });
  }
  client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
    for (const resolve of waiters.splice(0)) resolve(notification);
  });
  return harness;
}

export interface Tapped {
  /** Messages the client sent, in order. */
  sent: JSONRPCMessage[];
  /** Messages the client received, in order. */
  received: JSONRPCMessage[];
}

/**
 * Records what crosses a connected transport, passing every message on unchanged. Call it after
 * `connect()`, which is where the client installs its `onmessage`.
 */
export function tap(transport: Transport): Tapped {
  const tapped: Tapped = { sent: [], received: [] };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    tapped.sent.push(message);
    return send(message, options);
  };
  const onmessage = transport.onmessage;
  if (!onmessage) throw new Error('tap() needs a connected transport');
  transport.onmessage = (message, extra) => {
    tapped.received.push(message);
    onmessage(message, extra);
  };
  return tapped;
}

type Loose = Record<string, any>;
export const text = (result: Loose): string => result.content[0].text;
const idOf = (message: JSONRPCMessage) => (message as Loose).id as string | number | undefined;
const methodOf = (message: JSONRPCMessage) => (message as Loose).method as string | undefined;

/** The requests the client sent with `method`, and the answer each got. */
function exchanges(tapped: Tapped, method: string) {
  return tapped.sent
    .filter((m) => methodOf(m) === method && idOf(m) !== undefined)
    .map((request) => ({
      request: request as Loose,
      answer: tapped.received.find((m) => methodOf(m) === undefined && idOf(m) === idOf(request)) as Loose,
    }));
}

export interface Connected {
  harness: V2Harness;
  transport: Transport;
  close(): Promise<void>;
}

/**
 * The 2026-07-28 suite: discovery, tools, input_required round trips and a subscription.
 * `open` connects a pinned (or auto) v2 client with FULL_CAPABILITIES.
 */
export function statelessSuite(open: () => Promise<Connected>) {
  let c: Connected;
  let client: Client;
  beforeAll(async () => {
    c = await open();
    client = c.harness.client;
  });
  afterAll(() => c.close());
  beforeEach(() => {
    c.harness.asked = { elicitations: [], samplings: [], roots: 0 };
    c.harness.elicitAction = 'accept';
  });

  it('negotiates 2026-07-28 through server/discover and exposes what it discovered', async () => {
    // The SDK's own vocabulary: getProtocolEra() says 'modern' / 'legacy'.
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()).toEqual({ name: 'dual-era', version: '1.0.0' });
    expect(client.getInstructions()).toBe('Plan trips.');
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
    const probed = client.getDiscoverResult();
    expect(probed?.supportedVersions).toContain('2026-07-28');
    const tapped = tap(c.transport);
    const discovered = await client.discover();
    expect(discovered.supportedVersions).toEqual(probed?.supportedVersions);
    expect(discovered.capabilities).toEqual(client.getServerCapabilities());
    expect(discovered.instructions).toBe('Plan trips.');
    const [{ request, answer }] = exchanges(tapped, 'server/discover');
    expect(request.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(answer.result).toMatchObject({
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: expect.stringMatching(/^(public|private)$/),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'dual-era', version: '1.0.0' } },
    });
  });

  it('lists the tools', async () => {
    const { tools } = await client.listTools(undefined, { cacheMode: 'refresh' });
    expect(tools.map((tool) => tool.name)).toEqual(DUAL_ERA_TOOLS);
    expect(tools.find((tool) => tool.name === 'echo')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
  });

  it('calls echo with the per-request _meta envelope', async () => {
    const tapped = tap(c.transport);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello, 2026' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello, 2026' }]);
    expect(result.isError).toBeFalsy();
    const [{ request, answer }] = exchanges(tapped, 'tools/call');
    expect(request.params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'v2-interop', version: '2.4.0' },
      'io.modelcontextprotocol/clientCapabilities': FULL_CAPABILITIES,
    });
    expect(answer.result.resultType).toBe('complete');
  });

  it('plans a trip through input_required round trips answered by the registered handlers', async () => {
    const tapped = tap(c.transport);
    const result = await client.callTool({ name: 'plan_trip', arguments: { city: 'Paris' } });
    expect(text(result)).toBe(`Booked Paris for Ada (stateless): ${sampledReply('A slogan for Paris')}`);
    expect(text(result).endsWith(`(stateless): ${sampledReply('A slogan for Paris')}`)).toBe(true);
    expect(c.harness.asked).toEqual({
      elicitations: ['Who travels to Paris?', 'Book Paris for Ada?'],
      samplings: ['A slogan for Paris'],
      roots: 0,
    });
    // Three input_required answers (form, form, sampling), then the result; no server→client request.
    const calls = exchanges(tapped, 'tools/call');
    expect(calls.map(({ answer }) => answer.result.resultType)).toEqual([
      'input_required',
      'input_required',
      'input_required',
      'complete',
    ]);
    expect(tapped.received.filter((m) => methodOf(m) !== undefined && idOf(m) !== undefined)).toEqual([]);
    expect(new Set(calls.map(({ request }) => request.id)).size).toBe(4);
    expect(calls[0].request.params.requestState).toBeUndefined();
    expect(calls[0].request.params.inputResponses).toBeUndefined();
    const asked = calls
      .slice(0, 3)
      .map(({ answer }) => Object.values(answer.result.inputRequests) as Loose[]);
    expect(asked.map((requests) => requests.map((r) => r.method))).toEqual([
      ['elicitation/create'],
      ['elicitation/create'],
      ['sampling/createMessage'],
    ]);
    for (let round = 1; round < 4; round++) {
      const previous = calls[round - 1].answer.result;
      const retry = calls[round].request.params;
      expect(retry.requestState).toBe(previous.requestState);
      expect(Object.keys(retry.inputResponses)).toEqual(Object.keys(previous.inputRequests));
      expect(retry.arguments).toEqual({ city: 'Paris' });
    }
  });

  it('hands a declined form back to the tool, which stops there', async () => {
    c.harness.elicitAction = 'decline';
    const result = await client.callTool({ name: 'plan_trip', arguments: { city: 'Oslo' } });
    expect(text(result)).toBe('No trip: the traveller answered decline');
    expect(c.harness.asked.elicitations).toEqual(['Who travels to Oslo?']);
    expect(c.harness.asked.samplings).toEqual([]);
  });

  it('answers roots, resource and prompt input requests the same way', async () => {
    expect(text(await client.callTool({ name: 'root_uris', arguments: {} }))).toBe('file:///trips');
    expect(c.harness.asked.roots).toBe(1);
    const secret = await client.readResource({ uri: 'trips://secret' });
    expect(secret.contents).toEqual([
      { uri: 'trips://secret', mimeType: 'text/plain', text: 'Secret for Ada' },
    ]);
    const prompt = await client.getPrompt({ name: 'packing', arguments: { city: 'Lima' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Packing list for Ada going to Lima' } },
    ]);
    expect(c.harness.asked.elicitations).toEqual(['Who reads the secret?', 'Packing for whom?']);
  });

  it('receives notifications/tools/list_changed on a subscriptions/listen stream', async () => {
    await client.listTools(undefined, { cacheMode: 'refresh' });
    const subscription = await client.listen({ toolsListChanged: true });
    try {
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });

      const added = c.harness.nextToolsChanged();
      expect(text(await client.callTool({ name: 'toggle_extra', arguments: {} }))).toBe('added');
      const notification = await added;
      expect(notification.params?._meta?.['io.modelcontextprotocol/subscriptionId']).toEqual(
        expect.any(String),
      );
      // The notification evicted the client's cached tools/list (fresh for a minute otherwise).
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([...DUAL_ERA_TOOLS, 'extra']);
      expect(text(await client.callTool({ name: 'extra', arguments: {} }))).toBe('extra');

      const removed = c.harness.nextToolsChanged();
      expect(text(await client.callTool({ name: 'toggle_extra', arguments: {} }))).toBe('removed');
      await removed;
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(DUAL_ERA_TOOLS);
    } finally {
      await subscription.close();
    }
    await expect(subscription.closed).resolves.toBe('local');
  });
}

/** The 2025-11-25 suite: initialize, tools, and server→client requests for the same handlers. */
export function legacySuite(open: () => Promise<Connected>) {
  let c: Connected;
  let client: Client;
  beforeAll(async () => {
    c = await open();
    client = c.harness.client;
  });
  afterAll(() => c.close());
  beforeEach(() => {
    c.harness.asked = { elicitations: [], samplings: [], roots: 0 };
  });

  it('runs the initialize handshake at 2025-11-25', async () => {
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(client.getServerVersion()).toEqual({ name: 'dual-era', version: '1.0.0' });
    expect(client.getInstructions()).toBe('Plan trips.');
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
    expect(client.getDiscoverResult()).toBeUndefined();
  });

  it('lists the tools', async () => {
    const { tools } = await client.listTools(undefined, { cacheMode: 'refresh' });
    expect(tools.map((tool) => tool.name)).toEqual(DUAL_ERA_TOOLS);
  });

  it('calls echo without a 2026 envelope', async () => {
    const tapped = tap(c.transport);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello, 2025' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello, 2025' }]);
    const [{ request, answer }] = exchanges(tapped, 'tools/call');
    expect(request.params._meta).toBeUndefined();
    expect(answer.result.resultType).toBeUndefined();
  });

  it('plans a trip through server→client requests answered by the same handlers', async () => {
    const tapped = tap(c.transport);
    const result = await client.callTool({ name: 'plan_trip', arguments: { city: 'Paris' } });
    expect(text(result)).toBe(`Booked Paris for Ada (session): ${sampledReply('A slogan for Paris')}`);
    expect(c.harness.asked).toEqual({
      elicitations: ['Who travels to Paris?', 'Book Paris for Ada?'],
      samplings: ['A slogan for Paris'],
      roots: 0,
    });
    expect(exchanges(tapped, 'tools/call')).toHaveLength(1);
    const serverRequests = tapped.received.filter((m) => methodOf(m) !== undefined && idOf(m) !== undefined);
    expect(serverRequests.map(methodOf)).toEqual([
      'elicitation/create',
      'elicitation/create',
      'sampling/createMessage',
    ]);
  });

  it('has no subscriptions/listen, and gets list_changed unsolicited instead', async () => {
    await expect(client.listen({ toolsListChanged: true })).rejects.toMatchObject({
      code: 'METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION',
    });
    const added = c.harness.nextToolsChanged();
    expect(text(await client.callTool({ name: 'toggle_extra', arguments: {} }))).toBe('added');
    await added;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([...DUAL_ERA_TOOLS, 'extra']);
    const removed = c.harness.nextToolsChanged();
    expect(text(await client.callTool({ name: 'toggle_extra', arguments: {} }))).toBe('removed');
    await removed;
  });
}
