import type { AddressInfo } from 'node:net';
import { GantryFactory } from '@gantry/core';
import { Changes } from '@gantry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { FeatureModule } from '../../core/test/fixtures/feature-app';
import { type GantryMcpOptions, gantryMcp } from '../src';

async function listen(options: Omit<GantryMcpOptions, 'app'> = {}) {
  const app = await GantryFactory.create(FeatureModule, {
    name: 'features',
    version: '1.0.0',
    logger: false,
  });
  const fastify: FastifyInstance = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, sse: { retryMs: 50 }, ...options });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  return {
    app,
    fastify,
    base: `http://127.0.0.1:${port}`,
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

function sdkClient() {
  const client = new Client(
    { name: 'sdk-http', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    role: 'assistant',
    model: 'http-model',
    content: { type: 'text', text: `re: ${(request.params.messages[0].content as { text: string }).text}` },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: 'Grace', subscribe: false },
  }));
  return client;
}

const text = (result: any): string => result.content[0].text;

describe.each([
  ['stateful, auto responses', { mode: 'stateful' as const, responseMode: 'auto' as const }],
  ['stateful, SSE responses', { mode: 'stateful' as const, responseMode: 'sse' as const }],
])('the official SDK StreamableHTTPClientTransport against Gantry (%s)', (_name, options) => {
  let server: Awaited<ReturnType<typeof listen>>;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  beforeAll(async () => {
    server = await listen(options);
    client = sdkClient();
    transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('has a session and lists tools, resources and prompts', async () => {
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await client.listTools()).tools.length).toBe(15);
    expect((await client.listResources()).resources[0].uri).toBe('docs://readme');
    expect((await client.readResource({ uri: 'docs://pages/usage' })).contents).toEqual([
      { uri: 'docs://pages/usage', mimeType: 'text/plain', text: 'The usage page' },
    ]);
    expect(
      (await client.getPrompt({ name: 'greet', arguments: { name: 'Lin' } })).messages[0].content,
    ).toEqual({ type: 'text', text: 'Hello Lin!' });
  });

  it('carries sampling and elicitation requests on the call’s SSE stream', async () => {
    expect(text(await client.callTool({ name: 'sample_joke', arguments: { topic: 'HTTP' } }))).toBe(
      'http-model: re: Tell a joke about HTTP',
    );
    expect(text(await client.callTool({ name: 'ask_name' }))).toBe(
      'hello Grace (no colour, subscribe=false, NameForm)',
    );
  });

  it('delivers progress and logs before the result', async () => {
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: { steps: 3, delayMs: 5 } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(text(result)).toBe('counted to 3');
    expect(progress).toEqual([1, 2, 3]);
    expect(logs).toEqual([{ step: 1 }, { step: 2 }, { step: 3 }]);
  });

  it('resumes a stream the server drops mid-call, losing and repeating nothing', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'resumable', arguments: { steps: 6, delayMs: 30 } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(text(result)).toBe('done after 6 steps (stream dropped: true)');
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('sends list_changed on the GET stream', async () => {
    let changed = 0;
    const changes = new Changes();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
      changes.changed();
    });
    await client.callTool({ name: 'toggle_tool', arguments: { name: 'weather', enabled: false } });
    await changes.until(() => changed > 0, { what: 'tools/list_changed on the GET stream' });
    await client.callTool({ name: 'toggle_tool', arguments: { name: 'weather', enabled: true } });
  });
});

describe('the official SDK client in stateless mode', () => {
  it('lists and calls without a session; server→client requests are refused clearly', async () => {
    const server = await listen({ mode: 'stateless' });
    const client = sdkClient();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`));
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('weather');
    expect(
      (await client.callTool({ name: 'weather', arguments: { city: 'Kyiv' } })).structuredContent,
    ).toEqual({
      city: 'Kyiv',
      celsius: 21.5,
      sky: 'clear',
    });
    const refused = await client.callTool({ name: 'sample_joke', arguments: { topic: 'x' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^ctx\.sample\(\): this server runs stateless HTTP/);
    await client.close();
    await server.close();
  });
});

describe('the official SDK SSEClientTransport against the legacy HTTP+SSE endpoints', () => {
  it('connects through GET /sse and POST /messages, lists and calls', async () => {
    const server = await listen();
    const client = sdkClient();
    await client.connect(new SSEClientTransport(new URL(`${server.base}/sse`)));
    expect((await client.listTools()).tools.length).toBe(15);
    expect(text(await client.callTool({ name: 'sample_joke', arguments: { topic: 'SSE' } }))).toBe(
      'http-model: re: Tell a joke about SSE',
    );
    await client.close();
    await server.close();
  });
});

describe('embedding in an existing Fastify app', () => {
  it('serves MCP under a prefix beside other routes, and the app’s hooks see MCP requests', async () => {
    const app = await GantryFactory.create(FeatureModule, {
      name: 'features',
      version: '1.0.0',
      logger: false,
    });
    const fastify = Fastify({ logger: false });
    const seen: string[] = [];
    fastify.addHook('onRequest', async (request) => {
      seen.push(`${request.method} ${request.url}`);
    });
    fastify.get('/health', async () => ({ ok: true }));
    await fastify.register(
      async (api) => {
        api.get('/version', async () => ({ version: '1.2.3' }));
        api.post('/echo', async (request) => request.body);
        await api.register(gantryMcp, { app, path: '/mcp' });
      },
      { prefix: '/api' },
    );
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fastify.server.address() as AddressInfo;
    const client = sdkClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`)));
    expect((await client.listTools()).tools.length).toBe(15);
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`http://127.0.0.1:${port}/api/version`)).json()).toEqual({ version: '1.2.3' });
    expect(seen).toContain('POST /api/mcp');
    expect(seen).toContain('GET /health');
    // The plugin's parsers and error handler stay inside it: a bad body elsewhere gets Fastify's own answer.
    const elsewhere = await fetch(`http://127.0.0.1:${port}/api/echo`, {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(elsewhere.status).toBe(400);
    const body = (await elsewhere.json()) as { code?: string; jsonrpc?: string };
    expect(body.code).toBe('FST_ERR_CTP_INVALID_JSON_BODY');
    expect(body.jsonrpc).toBeUndefined();
    await client.close();
    await fastify.close();
    await app.close();
  });
});
