// Both protocol eras on one endpoint at the same time: the official SDK v1 client (session
// era: initialize, Mcp-Session-Id, server→client elicitation and sampling, GET stream) beside
// raw stateless-era POSTs (2026-07-28: input_required rounds, subscriptions/listen).

import { Changes } from '@gantry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { DUAL_META, headersFor, listenOn, rpc, SseReader, SUB, textResult } from './stateless-support';

type App = Awaited<ReturnType<typeof createDualEraApp>>;
type Server = Awaited<ReturnType<typeof listenOn>>;

const CAPS = { elicitation: { form: {} }, sampling: {} };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** An SDK v1 client that answers elicitation and sampling; `beforeFirstAnswer` may hold the first answer back. */
function sdkClient(beforeFirstAnswer: () => Promise<void> = async () => undefined) {
  const client = new Client(
    { name: 'sdk-v1', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const message = request.params.message;
    asked.push(message);
    if (message.startsWith('Who travels')) {
      await beforeFirstAnswer();
      return { action: 'accept', content: { name: 'Lin' } };
    }
    return { action: 'accept', content: { confirm: true } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.push((request.params.messages[0].content as { text: string }).text);
    return { role: 'assistant', model: 'sdk-model', content: { type: 'text', text: 'Ciao!' } };
  });
  return { client, asked };
}

const ANSWERS: Record<string, unknown> = {
  'elicitation-1': { action: 'accept', content: { name: 'Ada' } },
  'elicitation-2': { action: 'accept', content: { confirm: true } },
  'sampling-3': { role: 'assistant', model: 'raw', content: { type: 'text', text: 'Fjords!' } },
};

/**
 * Runs plan_trip to the end with raw stateless-era POSTs, a new id per try. `afterRound(n)`
 * runs once try n was answered. Returns every answer in order.
 */
async function statelessPlanTrip(
  server: Server,
  city: string,
  afterRound: (round: number) => Promise<void> | void = () => undefined,
) {
  const answers: unknown[] = [];
  let retry: Record<string, unknown> = {};
  for (let round = 1; round <= 4; round++) {
    const body = rpc(100 + round, 'tools/call', { name: 'plan_trip', arguments: { city }, ...retry }, CAPS);
    const response = await server.post(body);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result: { inputRequests?: object; requestState?: string } };
    answers.push(answer);
    await afterRound(round);
    const keys = Object.keys(answer.result.inputRequests ?? {});
    if (keys.length === 0) break;
    retry = {
      inputResponses: Object.fromEntries(keys.map((key) => [key, ANSWERS[key]])),
      requestState: answer.result.requestState,
    };
  }
  return answers;
}

describe('both eras side by side on one server (real sockets)', () => {
  let app: App;
  let server: Server;
  beforeEach(async () => {
    app = await createDualEraApp();
    server = await listenOn(app);
  });
  afterEach(async () => {
    await server.fastify.close();
    await app.close();
  });

  it('an SDK session and raw stateless POSTs run plan_trip at the same time; each ends in its own era', async () => {
    const legacyAsked = deferred();
    const statelessHalfway = deferred();
    // The session-era call waits, mid-elicitation, for the stateless one to be half done; the
    // stateless one starts only once the session-era call is waiting: the two overlap for sure.
    const { client, asked } = sdkClient(async () => {
      legacyAsked.resolve();
      await statelessHalfway.promise;
    });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    expect(transport.sessionId).toEqual(expect.any(String));

    const [legacy, stateless] = await Promise.all([
      client.callTool({ name: 'plan_trip', arguments: { city: 'Rome' } }),
      legacyAsked.promise.then(() =>
        statelessPlanTrip(server, 'Oslo', (round) => {
          if (round === 2) statelessHalfway.resolve();
        }),
      ),
    ]);

    expect(legacy).toEqual({ content: [{ type: 'text', text: 'Booked Rome for Lin (session): Ciao!' }] });
    expect(asked).toEqual(['Who travels to Rome?', 'Book Rome for Lin?', 'A slogan for Rome']);
    expect(stateless).toHaveLength(4);
    expect(
      stateless.map((answer) =>
        Object.keys((answer as { result: { inputRequests?: object } }).result.inputRequests ?? {}),
      ),
    ).toEqual([['elicitation-1'], ['elicitation-2'], ['sampling-3'], []]);
    expect(stateless[3]).toEqual(textResult(104, 'Booked Oslo for Ada (stateless): Fjords!'));
    await client.close();
  });

  it('a stateless POST that carries a live session’s Mcp-Session-Id is still served statelessly', async () => {
    const { client } = sdkClient();
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    const session = transport.sessionId as string;
    const body = rpc(1, 'tools/call', { name: 'plan_trip', arguments: { city: 'Oslo' } }, CAPS);
    const response = await server.post(body, headersFor(body, { 'mcp-session-id': session }));
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: {
          'elicitation-1': {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Who travels to Oslo?',
              requestedSchema: {
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
              },
            },
          },
        },
        requestState: expect.any(String),
        _meta: DUAL_META,
      },
    });
    // The session is untouched and keeps working in its own era.
    expect(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })).toEqual({
      content: [{ type: 'text', text: 'still here' }],
    });
    await client.close();
  });

  it('a runtime registry change reaches the session-era GET stream and the stateless listen stream', async () => {
    const { client } = sdkClient();
    const legacy = new Changes();
    let legacyChanges = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      legacyChanges++;
      legacy.changed();
    });
    const legacyUpdates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      legacyUpdates.push(notification.params.uri);
      legacy.changed();
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.subscribeResource({ uri: 'trips://readme' });

    const controller = new AbortController();
    const listen = await server.post(
      rpc('sub-1', 'subscriptions/listen', {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] },
      }),
      undefined,
      controller.signal,
    );
    const stream = new SseReader(listen);
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] },
        _meta: { [SUB]: 'sub-1' },
      },
    });
    const toolsChanged = {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUB]: 'sub-1' } },
    };

    // Changed by a stateless-era POST …
    const toggle = await server.post(rpc(1, 'tools/call', { name: 'toggle_extra' }));
    expect(await toggle.json()).toEqual(textResult(1, 'added'));
    expect(await stream.next()).toEqual(toolsChanged);
    await legacy.until(() => legacyChanges >= 1, { what: 'list_changed on the session-era GET stream' });
    expect(legacyChanges).toBe(1);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('extra');

    // … and by the session-era client.
    expect(await client.callTool({ name: 'toggle_extra' })).toEqual({
      content: [{ type: 'text', text: 'removed' }],
    });
    expect(await stream.next()).toEqual(toolsChanged);
    await legacy.until(() => legacyChanges >= 2, { what: 'a second list_changed on the GET stream' });
    expect(legacyChanges).toBe(2);

    // resources/subscribe (session era) and resourceSubscriptions (listen) hear the same update.
    await app.resources.updated('trips://readme');
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'trips://readme', _meta: { [SUB]: 'sub-1' } },
    });
    await legacy.until(() => legacyUpdates.length >= 1, { what: 'resources/updated on the GET stream' });
    expect(legacyUpdates).toEqual(['trips://readme']);

    controller.abort();
    await client.close();
  });
});
