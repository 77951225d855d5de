import { type CachedEra, Client, clearEraCache, InMemoryTransport } from '@gantry/client';
import {
  type JSONRPCRequest,
  LATEST_STATELESS_PROTOCOL_VERSION,
  MethodNotFoundError,
  Peer,
  type Result,
  type Transport,
} from '@gantry/protocol';

const V = LATEST_STATELESS_PROTOCOL_VERSION;
const KEY = 'memory:client-seams';

const DISCOVER = {
  supportedVersions: [V],
  capabilities: { tools: { listChanged: true } },
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bare', version: '1.0.0' } },
};
const INITIALIZE = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  serverInfo: { name: 'bare', version: '1.0.0' },
};

/** A bare server Peer answering from a table, and the client end of its pipe, keyed for the era cache. */
async function bareServer(answers: {
  [method: string]: (request: JSONRPCRequest) => Result | Promise<Result>;
}) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const methods: string[] = [];
  const peer = new Peer({
    onRequest: (request) => {
      methods.push(request.method);
      const answer = answers[request.method];
      if (!answer) throw new MethodNotFoundError(`Method not found: ${request.method}`);
      return answer(request);
    },
  });
  await peer.connect(serverEnd);
  // The era cache is keyed by the transport's eraCacheKey; an in-memory pipe has none of its own.
  const transport = Object.assign(clientEnd, { eraCacheKey: KEY }) as Transport;
  return { peer, transport, methods };
}

beforeEach(() => clearEraCache());

describe('ClientOptions.eraCache', () => {
  it('remembers the era in the injected cache, not in the shared one', async () => {
    const eraCache = new Map<string, CachedEra>();
    // No server/discover: −32601 over a message stream means the session era.
    const first = await bareServer({ initialize: () => INITIALIZE });
    const client = new Client({ name: 'tests', version: '1.0.0' }, { eraCache });
    await client.connect(first.transport);
    expect(client.era).toBe('session');
    expect(first.methods).toEqual(['server/discover', 'initialize']);
    expect(eraCache.get(KEY)).toEqual({ era: 'session' });
    await client.close();

    // A client on the shared cache has heard nothing of this server: it probes again
    // (had the shared cache learnt 'session', it would send initialize first).
    const second = await bareServer({ initialize: () => INITIALIZE });
    const other = new Client({ name: 'tests', version: '1.0.0' });
    await other.connect(second.transport);
    expect(second.methods).toEqual(['server/discover', 'initialize']);
    await other.close();
  });

  it('tries the era the injected cache names first', async () => {
    const eraCache = new Map<string, CachedEra>([[KEY, { era: 'session' }]]);
    const server = await bareServer({
      'server/discover': () => DISCOVER,
      initialize: () => INITIALIZE,
    });
    const client = new Client({ name: 'tests', version: '1.0.0' }, { eraCache });
    await client.connect(server.transport);
    expect(client.era).toBe('session');
    expect(server.methods).toEqual(['initialize']);
    await client.close();
  });

  it('records a stateless-era server with the version it accepted', async () => {
    const eraCache = new Map<string, CachedEra>();
    const server = await bareServer({ 'server/discover': () => DISCOVER });
    const client = new Client({ name: 'tests', version: '1.0.0' }, { eraCache });
    await client.connect(server.transport);
    expect(client.era).toBe('stateless');
    expect(eraCache.get(KEY)).toEqual({ era: 'stateless', version: V });
    await client.close();
  });
});

describe('listen(): the stream is known by the id its request went out with', () => {
  it('routes tagged notifications to the subscription, and ends it cleanly on the server’s notifications/cancelled', async () => {
    let listenId: JSONRPCRequest['id'] | undefined;
    const server = await bareServer({
      'server/discover': () => DISCOVER,
      'subscriptions/listen': (request) => {
        listenId = request.id;
        const tag = { 'io.modelcontextprotocol/subscriptionId': request.id };
        // Sent while the request is open; the response never comes: the server cancels instead.
        void (async () => {
          await server.peer.notify({
            method: 'notifications/subscriptions/acknowledged',
            params: { notifications: { toolsListChanged: true }, _meta: tag },
          });
          await server.peer.notify({ method: 'notifications/tools/list_changed', params: { _meta: tag } });
          await server.peer.notify({ method: 'notifications/cancelled', params: { requestId: request.id } });
        })();
        return new Promise<Result>(() => {});
      },
    });
    const client = new Client({ name: 'tests', version: '1.0.0' }, { eraCache: new Map() });
    await client.connect(server.transport);

    const subscription = client.listen({ toolsListChanged: true });
    await expect(subscription.acknowledged).resolves.toEqual({ toolsListChanged: true });
    expect(subscription.id).toBe(listenId);
    const received: string[] = [];
    for await (const notification of subscription) received.push(notification.method);
    expect(received).toEqual(['notifications/tools/list_changed']);
    expect(subscription.isClosed).toBe(true);
    expect(client.isConnected).toBe(true);
    await client.close();
  });
});
