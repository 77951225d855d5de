import type { AuthInfo } from '@gantry/protocol';
import { principalOf } from '@gantry/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { gantryMcp } from '../src';
import { headersFor, injectStateless, listenOn, rpc } from './stateless-support';

/**
 * Three callers whose raw ids are all "alice": a user (subject), an OAuth client acting for nobody
 * (client credentials: clientId, no subject), and an opaque token whose text is "alice".
 */
const TOKENS: Record<string, AuthInfo> = {
  'user-alice': { token: 'user-alice', subject: 'alice', clientId: 'app', scopes: [] },
  'client-alice': { token: 'client-alice', clientId: 'alice', scopes: [] },
  alice: { token: 'alice', scopes: [] },
};
const AUTH = {
  verify: (token: string) => TOKENS[token],
  metadata: { authorizationServers: ['https://auth.example.com'] },
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'principal', version: '1' },
  },
};

type App = Awaited<ReturnType<typeof createDualEraApp>>;

describe('principalOf', () => {
  it('namespaces the subject, the client and the bare token, so equal ids never collide', () => {
    expect(principalOf(TOKENS['user-alice'])).toBe('sub:alice');
    expect(principalOf(TOKENS['client-alice'])).toBe('client:alice');
    expect(principalOf(TOKENS.alice)).toBe('token:alice');
    expect(principalOf(undefined)).toBeUndefined();
  });
});

describe('a streamable HTTP session is bound to its principal, namespaced', () => {
  let app: App;
  let fastify: FastifyInstance;
  beforeAll(async () => {
    app = await createDualEraApp();
    fastify = Fastify({ logger: false });
    await fastify.register(gantryMcp, { app, auth: AUTH });
    await fastify.ready();
  });
  afterAll(async () => {
    await fastify.close();
    await app.close();
  });

  const post = (token: string, body: object, session?: string) =>
    fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        ...JSON_HEADERS,
        ...bearer(token),
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
      },
      payload: JSON.stringify(body),
    });

  it.each(['client-alice', 'alice'])(
    "refuses subject alice's session to the token %s as if the session did not exist",
    async (other) => {
      const init = await post('user-alice', INITIALIZE);
      expect(init.statusCode).toBe(200);
      const session = init.headers['mcp-session-id'] as string;
      const refused = await post(other, { jsonrpc: '2.0', id: 2, method: 'ping' }, session);
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Session not found: it ended or never existed; send initialize to start a new one',
        },
      });
      // The owner still gets in.
      const own = await post('user-alice', { jsonrpc: '2.0', id: 3, method: 'ping' }, session);
      expect(own.statusCode).toBe(200);
      expect(own.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    },
  );
});

describe('a legacy HTTP+SSE connection is bound to its principal, namespaced', () => {
  let app: App;
  let server: Awaited<ReturnType<typeof listenOn>>;
  beforeAll(async () => {
    app = await createDualEraApp();
    server = await listenOn(app, { auth: AUTH });
  });
  afterAll(async () => {
    await server.fastify.close();
    await app.close();
  });

  /** Opens `GET /sse` and reads up to the `endpoint` event. */
  async function openLegacy(token: string): Promise<{ endpoint: string; cancel: () => Promise<void> }> {
    const response = await fetch(`${server.base}/sse`, {
      headers: { accept: 'text/event-stream', ...bearer(token) },
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const match = /event: endpoint\ndata: (\S+)\n\n/.exec(text);
      if (match) return { endpoint: match[1], cancel: () => reader.cancel() };
      const { value, done } = await reader.read();
      if (done) throw new Error(`The SSE stream ended before the endpoint event: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  }

  it("refuses subject alice's connection to a token whose clientId is alice", async () => {
    const legacy = await openLegacy('user-alice');
    const send = (token: string) =>
      fetch(`${server.base}${legacy.endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify(INITIALIZE),
      });
    const refused = await send('client-alice');
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Session not found: open a new one with GET on the SSE endpoint' },
    });
    expect((await send('user-alice')).status).toBe(202);
    await legacy.cancel();
  });
});

describe('a stateless-era requestState is bound to its principal, namespaced', () => {
  let app: App;
  let fastify: FastifyInstance;
  beforeAll(async () => {
    app = await createDualEraApp();
    fastify = Fastify({ logger: false });
    await fastify.register(gantryMcp, { app, auth: AUTH });
    await fastify.ready();
  });
  afterAll(async () => {
    await fastify.close();
    await app.close();
  });

  const CAPS = { elicitation: { form: {} }, sampling: {} };
  const planTrip = (id: number, retry?: string) =>
    rpc(
      id,
      'tools/call',
      retry
        ? {
            name: 'plan_trip',
            arguments: { city: 'Oslo' },
            inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
            requestState: retry,
          }
        : { name: 'plan_trip', arguments: { city: 'Oslo' } },
      CAPS,
    );
  const send = async (body: ReturnType<typeof rpc>, token: string) => {
    const response = await injectStateless(fastify, body, headersFor(body, bearer(token)));
    return { status: response.statusCode, body: response.json() };
  };

  it.each(['client-alice', 'alice'])(
    'refuses a requestState issued to subject alice when the token %s retries it (−32602)',
    async (other) => {
      const first = await send(planTrip(1), 'user-alice');
      expect(first.body.result.resultType).toBe('input_required');
      const state = first.body.result.requestState as string;
      expect(await send(planTrip(2, state), other)).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32602, message: 'Invalid params: requestState was issued to another caller' },
        },
      });
      // Subject alice herself continues.
      const own = await send(planTrip(3, state), 'user-alice');
      expect(Object.keys(own.body.result.inputRequests)).toEqual(['elicitation-2']);
    },
  );
});
