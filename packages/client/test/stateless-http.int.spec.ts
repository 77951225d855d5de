// The client over Streamable HTTP in the stateless era (2026-07-28), against Gantry apps served
// by @gantry/fastify on a real loopback socket: request-metadata headers, Mcp-Param-* mirroring,
// input_required rounds, listen streams, cancellation by closing the POST, era fallbacks. Every
// HTTP request the server receives is recorded (method, headers, body).
import type { AddressInfo } from 'node:net';
import {
  Client,
  clearEraCache,
  connectHttp,
  SseClientTransport,
  StreamableHttpClientTransport,
} from '@gantry/client';
import { Args, Ctx, GantryFactory, Header, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import { gantryMcp } from '@gantry/fastify';
import { GantryError, LocalErrorCode, McpError, RequestCancelledError } from '@gantry/protocol';
import { Changes, eventually } from '@gantry/testing';
import { IsBoolean, IsInt, IsString } from 'class-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDualEraApp, Journal } from '../../core/test/fixtures/dual-era-app';
import { json, RawHttpServer } from './fixtures/raw-http-server';
import { LegacySseServer, type RecordedRequest, StreamableSdkServer } from './fixtures/sdk-http-server';

const V = '2026-07-28';
const CAPS = { elicitation: { form: {} }, sampling: {} };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
beforeEach(() => clearEraCache());

class Query {
  @IsString() @Header('Region') region!: string;
  @IsString() sql!: string;
  @IsInt() @Header('Shard') shard!: number;
  @IsBoolean() @Header('Dry-Run') dryRun!: boolean;
}

@Injectable()
class QueryTools {
  readonly seen: string[] = [];

  @Tool({ description: 'Runs a query in a region' })
  query(@Args() query: Query, @Ctx() ctx: McpContext) {
    this.seen.push(ctx.era);
    return `${query.region}/${query.shard}${query.dryRun ? ' (dry run)' : ''}: ${query.sql}`;
  }
}

@Module({ providers: [QueryTools] })
class QueryModule {}

type Served = Awaited<ReturnType<typeof serve>>;

/** Serves `app` at /mcp on a real socket, recording every request as it arrives. */
async function serve(app: Awaited<ReturnType<typeof GantryFactory.create>>) {
  const requests: RecordedRequest[] = [];
  const fastify: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  fastify.addHook('preHandler', async (request) => {
    requests.push({
      method: request.method,
      path: request.url,
      headers: request.headers,
      body: request.body,
    });
  });
  await fastify.register(gantryMcp, { app });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  cleanups.push(async () => {
    await fastify.close();
    await app.close();
  });
  return {
    app,
    requests,
    url: `http://127.0.0.1:${port}/mcp`,
    posts: (method?: string) =>
      requests.filter(
        (request) => request.method === 'POST' && (method === undefined || request.body?.method === method),
      ),
  };
}

async function dualEra(): Promise<Served> {
  return serve(await createDualEraApp());
}

function newClient(options: ConstructorParameters<typeof Client>[1] = {}): Client {
  const client = new Client({ name: 'http-era-tests', version: '1.0.0' }, options);
  cleanups.push(() => client.close());
  return client;
}

function answerTrips(client: Client) {
  client.setRequestHandler('elicitation/create', (params) =>
    (params.message as string).startsWith('Book')
      ? { action: 'accept', content: { confirm: true } }
      : { action: 'accept', content: { name: 'Ines' } },
  );
  client.setRequestHandler('sampling/createMessage', () => ({
    role: 'assistant',
    model: 'http-model',
    content: { type: 'text', text: 'Tagus!' },
  }));
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('Streamable HTTP, stateless era, against @gantry/fastify', () => {
  it("era 'auto' picks the stateless era: POSTs only, with MCP-Protocol-Version, Mcp-Method and Mcp-Name, never a session", async () => {
    const server = await dualEra();
    const client = newClient({ capabilities: CAPS });
    answerTrips(client);
    const transport = new StreamableHttpClientTransport({ url: server.url });
    await client.connect(transport);

    expect(client.era).toBe('stateless');
    expect(client.serverInfo).toEqual({ name: 'dual-era', version: '1.0.0' });
    expect(transport.sessionId).toBeUndefined();
    expect(text(await client.callTool('plan_trip', { city: 'Lisboa' }))).toBe(
      'Booked Lisboa for Ines (stateless): Tagus!',
    );
    expect((await client.getPrompt('packing', { city: 'Faro' })).messages[0].content).toEqual({
      type: 'text',
      text: 'Packing list for Ines going to Faro',
    });
    expect((await client.readResource('trips://Évora')).contents[0]).toMatchObject({ text: 'About Évora' });

    expect(server.requests.every((request) => request.method === 'POST')).toBe(true);
    for (const request of server.requests) {
      expect(request.headers['mcp-protocol-version']).toBe(V);
      expect(request.headers['mcp-method']).toBe(request.body.method);
      expect(request.headers['mcp-session-id']).toBeUndefined();
      expect(request.headers['last-event-id']).toBeUndefined();
      expect(request.headers.accept).toBe('application/json, text/event-stream');
      expect(request.body.params._meta['io.modelcontextprotocol/protocolVersion']).toBe(V);
    }
    expect(server.posts('server/discover')).toHaveLength(1);
    expect(server.posts('initialize')).toHaveLength(0);
    const calls = server.posts('tools/call');
    expect(calls).toHaveLength(4);
    expect(calls.map((request) => request.headers['mcp-name'])).toEqual(Array(4).fill('plan_trip'));
    expect(server.posts('prompts/get').map((request) => request.headers['mcp-name'])).toEqual([
      'packing',
      'packing',
    ]);
    // Not plain ASCII: the sentinel encoding.
    expect(server.posts('resources/read')[0].headers['mcp-name']).toBe(
      `=?base64?${Buffer.from('trips://Évora', 'utf8').toString('base64')}?=`,
    );
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-*, learning them from tools/list or after a −32020', async () => {
    const app = await GantryFactory.create(QueryModule, {
      name: 'queries',
      version: '1.0.0',
      logger: false,
      stateless: { requestStateKey: 'q'.repeat(32) },
    });
    const server = await serve(app);
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    const args = { region: 'eu-west', sql: 'select 1', shard: 7, dryRun: true };

    // Not listed yet: the server answers 400 −32020 for the missing headers; the client reads
    // tools/list and sends the call again, once.
    expect(text(await client.callTool('query', args))).toBe('eu-west/7 (dry run): select 1');
    const first = server.posts('tools/call');
    expect(first).toHaveLength(2);
    expect(first[0].headers['mcp-param-region']).toBeUndefined();
    expect(server.posts().map((request) => request.body.method)).toEqual([
      'server/discover',
      'tools/call',
      'tools/list',
      'tools/call',
    ]);
    expect(first[1].headers).toMatchObject({
      'mcp-name': 'query',
      'mcp-param-region': 'eu-west',
      'mcp-param-shard': '7',
      'mcp-param-dry-run': 'true',
    });

    // A value that is not plain ASCII goes base64-encoded; the server decodes and compares.
    expect(text(await client.callTool('query', { ...args, region: ' zürich ', dryRun: false }))).toBe(
      ' zürich /7: select 1',
    );
    const last = server.posts('tools/call').at(-1)!;
    expect(last.headers['mcp-param-region']).toBe(
      `=?base64?${Buffer.from(' zürich ', 'utf8').toString('base64')}?=`,
    );
    expect(last.headers['mcp-param-dry-run']).toBe('false');
    expect(app.get(QueryTools).seen).toEqual(['stateless', 'stateless']);
  });

  it('listen() keeps the POST stream open for notifications; close() aborts it and the server ends the subscription', async () => {
    const server = await dualEra();
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));

    const subscription = client.listen({ toolsListChanged: true });
    await expect(subscription.acknowledged).resolves.toEqual({ toolsListChanged: true });
    expect(server.app.server.hub.size).toBe(1);
    const next = subscription[Symbol.asyncIterator]().next();
    await client.callTool('toggle_extra');
    await expect(next).resolves.toMatchObject({
      value: {
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': subscription.id } },
      },
    });
    const [listen] = server.posts('subscriptions/listen');
    expect(listen.headers['mcp-method']).toBe('subscriptions/listen');

    await subscription.close();
    // The hub drops the listener when the server notices the closed stream; nothing announces that.
    await eventually(() => server.app.server.hub.size === 0, { what: 'the hub to drop the listen stream' });
    // Closing the stream is the cancellation: no notifications/cancelled is POSTed.
    expect(server.posts('notifications/cancelled')).toEqual([]);
  });

  it('cancels a call by aborting its POST, which the server sees as the cancellation', async () => {
    const server = await dualEra();
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: server.url }));
    // The tool records into the app's Journal: each entry is the event awaited.
    const journal = server.app.get(Journal).events;
    const recorded = new Changes();
    const push = journal.push.bind(journal);
    journal.push = (...entries) => {
      const length = push(...entries);
      recorded.changed();
      return length;
    };
    const controller = new AbortController();
    const waiting = client.callTool('wait_for_cancel', {}, { signal: controller.signal });
    await recorded.until(() => journal.includes('wait started'), { what: 'the tool to start' });
    controller.abort('enough');
    await expect(waiting).rejects.toBeInstanceOf(RequestCancelledError);
    await recorded.until(() => journal.includes('wait cancelled'), {
      what: 'the tool to see the cancellation',
    });
    expect(text(await client.callTool('journal_events'))).toBe('wait started|wait cancelled');
    expect(server.posts('notifications/cancelled')).toEqual([]);
  });

  it("era 'session' still opens a session on the same endpoint", async () => {
    const server = await dualEra();
    const client = newClient();
    const transport = new StreamableHttpClientTransport({ url: server.url });
    await client.connect(transport, { era: 'session' });
    expect(client.era).toBe('session');
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(server.posts('server/discover')).toEqual([]);
    expect(text(await client.callTool('echo', { text: 'session' }))).toBe('session');
  });
});

describe('Streamable HTTP: falling back to the session era', () => {
  it('against a session-era-only SDK server: the probe POST, then initialize', async () => {
    const server = await new StreamableSdkServer({ stateful: true, json: false }).listen();
    cleanups.push(() => server.close());
    const client = newClient();
    const transport = new StreamableHttpClientTransport({ url: server.url });
    await client.connect(transport);

    expect(client.era).toBe('session');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const [probe, initialize] = server.requests;
    expect(probe.body.method).toBe('server/discover');
    expect(probe.headers).toMatchObject({ 'mcp-protocol-version': V, 'mcp-method': 'server/discover' });
    expect(initialize.body.method).toBe('initialize');
    expect(initialize.headers['mcp-protocol-version']).toBeUndefined();
    await expect(client.callTool('add', { a: 1, b: 2 })).resolves.toEqual({
      content: [{ type: 'text', text: '3' }],
    });
  });

  it('remembers the era per endpoint, and probes again when the remembered era fails', async () => {
    let speaks: 'stateless' | 'session' = 'stateless';
    const server = await new RawHttpServer((request, res) => {
      const { id, method } = request.body ?? {};
      if (request.method !== 'POST') return res.writeHead(405).end();
      if (id === undefined) return res.writeHead(202).end();
      if (speaks === 'stateless' && method === 'server/discover') {
        return json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: {
            resultType: 'complete',
            supportedVersions: [V],
            capabilities: {},
            ttlMs: 0,
            cacheScope: 'public',
          },
        });
      }
      if (speaks === 'session' && method === 'initialize') {
        return json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 'raw', version: '1' },
          },
        });
      }
      json(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `not in the ${speaks} era` },
      });
    }).listen();
    cleanups.push(() => server.close());
    const url = `${server.origin}/mcp`;
    const methods = () =>
      server.requests
        .splice(0)
        .filter((request) => request.method === 'POST')
        .map((request) => request.body.method);
    const connect = async () => {
      const client = newClient();
      await client.connect(new StreamableHttpClientTransport({ url }));
      await client.close();
      return client.era;
    };

    expect(await connect()).toBe('stateless');
    expect(methods()).toEqual(['server/discover']);
    // Cached: the stateless era first, which no longer works; then initialize.
    speaks = 'session';
    expect(await connect()).toBe('session');
    expect(methods()).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    // Cached: initialize first, without a probe.
    expect(await connect()).toBe('session');
    expect(methods()).toEqual(['initialize', 'notifications/initialized']);
    // initialize fails now: the client probes again and finds the stateless era.
    speaks = 'stateless';
    expect(await connect()).toBe('stateless');
    expect(methods()).toEqual(['initialize', 'server/discover']);
  });

  it('connectHttp: probe, initialize, then HTTP+SSE against a server that predates Streamable HTTP', async () => {
    const server = await new LegacySseServer({
      ssePath: '/mcp',
      messagesPath: '/messages',
      postToSsePath: 405,
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();
    const connection = await connectHttp(client, `${server.origin}/mcp`);
    expect(connection.kind).toBe('sse');
    expect(client.era).toBe('session');
    expect(server.requests.slice(0, 3).map((request) => [request.method, request.body?.method])).toEqual([
      ['POST', 'server/discover'],
      ['POST', 'initialize'],
      ['GET', undefined],
    ]);
  });

  it("HTTP+SSE carries only the session era: era 'stateless' is refused up front", async () => {
    const client = newClient();
    await expect(
      client.connect(new SseClientTransport({ url: 'http://127.0.0.1:9/sse' }), { era: 'stateless' }),
    ).rejects.toThrow("Client.connect: era 'stateless' cannot be spoken over SseClientTransport");
  });

  it.each([
    [400, -32020, 'stateless'],
    [400, -32021, 'stateless'],
    [400, -32022, 'stateless'],
    [404, -32601, 'stateless'],
    [400, -32600, 'session'],
    [405, -32601, 'session'],
  ])('a probe answered HTTP %i with JSON-RPC error %i means the %s era', async (status, code, era) => {
    const server = await new RawHttpServer((request, res) => {
      if (request.body?.method === 'initialize') {
        json(res, 200, {
          jsonrpc: '2.0',
          id: request.body.id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 'raw', version: '1' },
          },
        });
      } else if (request.body?.method === 'notifications/initialized') {
        res.writeHead(202).end();
      } else if (request.body?.method === 'server/discover') {
        const data = code === -32022 ? { supported: [V], requested: V } : undefined;
        json(res, status, { jsonrpc: '2.0', id: null, error: { code, message: 'refused', data } });
      } else {
        res.writeHead(405).end();
      }
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: `${server.origin}/mcp` }));
    expect(client.era).toBe(era);
    const posts = server.requests.filter((request) => request.method === 'POST');
    expect(posts.map((request) => request.body.method)).toEqual(
      era === 'stateless'
        ? ['server/discover']
        : ['server/discover', 'initialize', 'notifications/initialized'],
    );
  });
});

describe('Streamable HTTP: x-mcp-header annotations from tools/list', () => {
  const DISCOVER = {
    resultType: 'complete',
    supportedVersions: [V],
    capabilities: { tools: {} },
    ttlMs: 0,
    cacheScope: 'public',
  };
  const tool = (name: string, properties: object) => ({ name, inputSchema: { type: 'object', properties } });
  const TOOLS = [
    tool('good', {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      deep: { type: 'object', properties: { id: { type: 'integer', 'x-mcp-header': 'Id' } } },
    }),
    tool('number', { n: { type: 'number', 'x-mcp-header': 'N' } }),
    tool('spaces', { s: { type: 'string', 'x-mcp-header': 'Has Space' } }),
    tool('twice', {
      a: { type: 'string', 'x-mcp-header': 'Same' },
      b: { type: 'string', 'x-mcp-header': 'same' },
    }),
    tool('in_items', {
      list: {
        type: 'array',
        items: { type: 'object', properties: { x: { type: 'string', 'x-mcp-header': 'X' } } },
      },
    }),
    tool('in_any_of', { v: { anyOf: [{ type: 'string', 'x-mcp-header': 'V' }] } }),
    tool('plain', { 'x-mcp-header': { type: 'string' } }),
  ];

  it('drops the tools whose annotations are invalid, says why, and mirrors the valid ones', async () => {
    const server = await new RawHttpServer((request, res) => {
      const { id, method, params } = request.body;
      if (method === 'server/discover') json(res, 200, { jsonrpc: '2.0', id, result: DISCOVER });
      else if (method === 'tools/list')
        json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: { resultType: 'complete', tools: TOOLS, ttlMs: 0, cacheScope: 'public' },
        });
      else
        json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: {
            resultType: 'complete',
            content: [{ type: 'text', text: JSON.stringify(params.arguments) }],
          },
        });
    }).listen();
    cleanups.push(() => server.close());
    const errors: Error[] = [];
    const client = newClient({ onError: (error) => errors.push(error) });
    await client.connect(new StreamableHttpClientTransport({ url: `${server.origin}/mcp` }));

    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['good', 'plain']);
    expect(errors.map((error) => error.message)).toEqual([
      'Dropped tool "number" from tools/list: its inputSchema has an invalid x-mcp-header annotation ("x-mcp-header" is on property "n" of type "number"; only string, integer and boolean properties may carry it)',
      'Dropped tool "spaces" from tools/list: its inputSchema has an invalid x-mcp-header annotation ("x-mcp-header" of property "s" is "Has Space", which is not an HTTP token (RFC 9110 tchar only))',
      'Dropped tool "twice" from tools/list: its inputSchema has an invalid x-mcp-header annotation ("x-mcp-header" "same" of property "b" repeats the one of property "a" (names are case-insensitive))',
      'Dropped tool "in_items" from tools/list: its inputSchema has an invalid x-mcp-header annotation ("x-mcp-header" at /properties/list/items/properties/x is not on a property reachable from the root through "properties" alone)',
      'Dropped tool "in_any_of" from tools/list: its inputSchema has an invalid x-mcp-header annotation ("x-mcp-header" at /properties/v/anyOf/0 is not on a property reachable from the root through "properties" alone)',
    ]);
    expect(
      errors.every(
        (error) => error instanceof GantryError && error.code === LocalErrorCode.ProtocolViolation,
      ),
    ).toBe(true);

    await client.callTool('good', { region: 'ap-south', deep: { id: 42 } });
    await client.callTool('good', { region: null, deep: {} });
    const [withValues, withoutValues] = server.requests.filter(
      (request) => request.body.method === 'tools/call',
    );
    expect(withValues.headers).toMatchObject({
      'mcp-name': 'good',
      'mcp-param-region': 'ap-south',
      'mcp-param-id': '42',
    });
    expect(Object.keys(withoutValues.headers).filter((name) => name.startsWith('mcp-param-'))).toEqual([]);
  });

  it('keeps annotations out of the session era: no tool is dropped and no header is sent', async () => {
    const server = await new RawHttpServer((request, res) => {
      const { id, method } = request.body ?? {};
      if (request.method !== 'POST') res.writeHead(405).end();
      else if (method === 'initialize') {
        json(res, 200, {
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'raw', version: '1' },
          },
        });
      } else if (method === 'tools/list') json(res, 200, { jsonrpc: '2.0', id, result: { tools: TOOLS } });
      else if (id === undefined) res.writeHead(202).end();
      else json(res, 200, { jsonrpc: '2.0', id, result: { content: [] } });
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: `${server.origin}/mcp` }), {
      era: 'session',
    });
    expect(await client.listTools()).toHaveLength(TOOLS.length);
    await client.callTool('good', { region: 'x' });
    const call = server.requests.find((request) => request.body?.method === 'tools/call')!;
    expect(call.headers['mcp-param-region']).toBeUndefined();
    expect(call.headers['mcp-method']).toBeUndefined();
  });

  it('rejects a broken SSE answer instead of resuming it (2026-07-28 has no resumption)', async () => {
    const server = await new RawHttpServer((request, res) => {
      const { id, method } = request.body;
      if (method === 'server/discover') return json(res, 200, { jsonrpc: '2.0', id, result: DISCOVER });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(
        `id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: 1 } })}\n\n`,
      );
      res.end();
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();
    await client.connect(new StreamableHttpClientTransport({ url: `${server.origin}/mcp` }));
    const progress: number[] = [];
    const error = await client
      .callTool('slow', {}, { onProgress: (p) => progress.push(p.progress) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toBe(
      `The server's SSE answer to POST ${server.origin}/mcp ended before the response; 2026-07-28 streams cannot be resumed, so the request is lost (send it again)`,
    );
    expect(progress).toEqual([1]);
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });
});
