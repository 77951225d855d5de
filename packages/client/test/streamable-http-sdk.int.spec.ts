import { Client, StreamableHttpClientTransport } from '@gantry/client';
import {
  ConnectionClosedError,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  McpError,
  type ProgressNotificationParams,
} from '@gantry/protocol';
import {
  StreamableSdkServer,
  type StreamableServerOptions,
  TinyEventStore,
} from './fixtures/sdk-http-server';

const CLIENT_INFO = { name: 'gantry-http-tests', version: '0.0.1' };
/** Short reconnection delays: the tests wait for events, never for a duration. */
const FAST_RECONNECT = { initialDelayMs: 10, maxDelayMs: 50, maxRetries: 3 };

/** Servers and clients to close after each test, even a failing one. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function startServer(options: StreamableServerOptions): Promise<StreamableSdkServer> {
  const server = await new StreamableSdkServer(options).listen();
  cleanups.push(() => server.close());
  return server;
}

function newClient(options?: ConstructorParameters<typeof Client>[1]): Client {
  const client = new Client(CLIENT_INFO, options);
  cleanups.push(() => client.close());
  return client;
}

async function connectedClient(
  server: StreamableSdkServer,
  options: { sampling?: boolean; errors?: Error[] } = {},
) {
  const client = newClient({ capabilities: options.sampling ? { sampling: {} } : {} });
  const transport = new StreamableHttpClientTransport({
    url: server.url,
    reconnect: FAST_RECONNECT,
    onError: (error) => options.errors?.push(error),
  });
  await client.connect(transport);
  return { client, transport };
}

const modes: [string, StreamableServerOptions][] = [
  ['stateful, SSE answers', { stateful: true, json: false }],
  ['stateful, JSON answers', { stateful: true, json: true }],
  ['stateless, SSE answers', { stateful: false, json: false }],
  ['stateless, JSON answers', { stateful: false, json: true }],
];

describe.each(modes)('Client over Streamable HTTP against the SDK server (%s)', (_mode, options) => {
  let server: StreamableSdkServer;
  let client: Client;
  let transport: StreamableHttpClientTransport;

  beforeAll(async () => {
    server = await new StreamableSdkServer(options).listen();
    client = new Client(CLIENT_INFO);
    transport = new StreamableHttpClientTransport({ url: server.url, reconnect: FAST_RECONNECT });
    // These tests check the session-era wire exchange from its first POST.
    await client.connect(transport, { era: 'session' });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('completes the handshake; the session id comes from the answer to initialize', () => {
    expect(client.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(client.serverInfo).toEqual({ name: 'sdk-http', version: '2.0.0' });
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    if (options.stateful) expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    else expect(transport.sessionId).toBeUndefined();
  });

  it('POSTs initialize with both Accept types, no session id and no version header', () => {
    const [initialize] = server.postsOf('initialize');
    expect(initialize.headers['content-type']).toBe('application/json');
    expect(initialize.headers.accept).toBe('application/json, text/event-stream');
    expect(initialize.headers['mcp-session-id']).toBeUndefined();
    expect(initialize.headers['mcp-protocol-version']).toBeUndefined();
    expect(initialize.body).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
    });
  });

  it('sends the session id and MCP-Protocol-Version on every later POST', () => {
    const [initialized] = server.postsOf('notifications/initialized');
    expect(initialized.body).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(initialized.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(initialized.headers['mcp-session-id']).toBe(transport.sessionId);
  });

  it('lists the tools', async () => {
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'count', 'ask', 'poll']);
    const [list] = server.postsOf('tools/list');
    expect(list.headers['mcp-session-id']).toBe(transport.sessionId);
    expect(list.headers['mcp-protocol-version']).toBe('2025-11-25');
  });

  it('calls a tool', async () => {
    await expect(client.callTool('add', { a: 20, b: 22 })).resolves.toEqual({
      content: [{ type: 'text', text: '42' }],
    });
  });

  it('calls tools concurrently, each answer reaching its own call', async () => {
    const sums = await Promise.all([1, 2, 3, 4, 5].map((n) => client.callTool('add', { a: n, b: 100 })));
    expect(sums.map((result) => (result.content[0] as { text: string }).text)).toEqual([
      '101',
      '102',
      '103',
      '104',
      '105',
    ]);
  });

  it('rejects only the request whose POST got HTTP 500, with the status and body in the error', async () => {
    server.failNextPost((body) => body?.params?.arguments?.a === 500, 500, 'boom: the tool exploded');
    const [failed, fine] = await Promise.allSettled([
      client.callTool('add', { a: 500, b: 1 }),
      client.callTool('add', { a: 1, b: 1 }),
    ]);
    expect(failed.status).toBe('rejected');
    const error = (failed as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(
      `HTTP 500 Internal Server Error from POST ${server.url}: boom: the tool exploded`,
    );
    expect(error.data).toEqual({ httpStatus: 500, body: 'boom: the tool exploded' });
    expect(fine).toEqual({ status: 'fulfilled', value: { content: [{ type: 'text', text: '2' }] } });
    expect(client.isConnected).toBe(true);
    await expect(client.callTool('add', { a: 2, b: 2 })).resolves.toEqual({
      content: [{ type: 'text', text: '4' }],
    });
  });

  it('gets a tool error result for an unknown tool, over the same transport', async () => {
    const result = await client.callTool('nope', {});
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toBe('MCP error -32602: Tool nope not found');
  });
});

describe.each([
  ['stateful', true],
  ['stateless', false],
])('progress over the SSE answer of a POST (%s)', (_mode, stateful) => {
  it('delivers every progress notification before the result', async () => {
    const server = await startServer({ stateful, json: false });
    const { client } = await connectedClient(server);
    const progress: ProgressNotificationParams[] = [];
    const result = await client.callTool(
      'count',
      { steps: 3 },
      { onProgress: (update) => progress.push(update) },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'counted to 3' }] });
    expect(progress.map(({ progress: value, total, message }) => ({ value, total, message }))).toEqual([
      { value: 1, total: 3, message: 'step 1' },
      { value: 2, total: 3, message: 'step 2' },
      { value: 3, total: 3, message: 'step 3' },
    ]);
  });
});

describe('sampling: a server → client request on the SSE answer of a tool call', () => {
  it('answers sampling/createMessage through the handler, and the tool gets the answer', async () => {
    const server = await startServer({ stateful: true, json: false });
    const { client } = await connectedClient(server, { sampling: true });
    const seen: unknown[] = [];
    client.setRequestHandler('sampling/createMessage', (params) => {
      seen.push(params);
      return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
    });

    const result = await client.callTool('ask', { prompt: 'What is six times seven?' });

    expect(result).toEqual({ content: [{ type: 'text', text: 'the model (test-model) said: forty-two' }] });
    expect(seen).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is six times seven?' } }],
        maxTokens: 20,
      },
    ]);
    // Our answer went back as its own POST, in the session, and was accepted.
    const answers = server
      .requestsOf('POST')
      .filter((request) => request.body?.result?.model === 'test-model');
    expect(answers).toHaveLength(1);
    expect(answers[0].headers['mcp-session-id']).toBe(
      server.postsOf('tools/call')[0].headers['mcp-session-id'],
    );
  });
});

describe('the standalone GET stream', () => {
  it('is opened after initialize with the session headers, and carries server notifications', async () => {
    const server = await startServer({ stateful: true, json: false });
    const { client, transport } = await connectedClient(server);
    await server.waitForRequest((request) => request.method === 'GET');
    const [get] = server.requestsOf('GET');
    expect(get.headers.accept).toBe('text/event-stream');
    expect(get.headers['mcp-session-id']).toBe(transport.sessionId);
    expect(get.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(get.headers['last-event-id']).toBeUndefined();

    const notified = new Promise<unknown>((resolve) =>
      client.onNotification('notifications/tools/list_changed', resolve),
    );
    server.mcpServers.get(transport.sessionId!)!.sendToolListChanged();
    await expect(notified).resolves.toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });

  it('is not retried when the server answers GET with 405', async () => {
    const server = await startServer({ stateful: false, json: true });
    const errors: Error[] = [];
    const { client } = await connectedClient(server, { errors });
    await server.waitForRequest((request) => request.method === 'GET');
    await client.callTool('add', { a: 1, b: 2 });
    await client.listTools();
    expect(server.requestsOf('GET')).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('reconnects with Last-Event-ID when the server closes it, and gets the missed notification', async () => {
    const eventStore = new TinyEventStore();
    const server = await startServer({ stateful: true, json: false, eventStore });
    const { client, transport } = await connectedClient(server);
    const sessionId = transport.sessionId!;
    await server.waitForRequest((request) => request.method === 'GET');
    const received: unknown[] = [];
    let onSecond!: () => void;
    const second = new Promise<void>((resolve) => {
      onSecond = resolve;
    });
    let onFirst!: () => void;
    const first = new Promise<void>((resolve) => {
      onFirst = resolve;
    });
    client.onNotification('notifications/tools/list_changed', (notification) => {
      received.push(notification);
      if (received.length === 1) onFirst();
      if (received.length === 2) onSecond();
    });

    server.mcpServers.get(sessionId)!.sendToolListChanged();
    await first;
    server.transports.get(sessionId)!.closeStandaloneSSEStream();
    server.mcpServers.get(sessionId)!.sendToolListChanged();
    await second;

    const firstId = eventStore.idOf((_message, streamId) => streamId === '_GET_stream');
    expect(firstId).toMatch(/^_GET_stream#\d+$/);
    const gets = server.requestsOf('GET');
    expect(gets).toHaveLength(2);
    expect(gets[1].headers['last-event-id']).toBe(firstId);
    expect(gets[1].headers['mcp-session-id']).toBe(sessionId);
    expect(received).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
  });
});

describe('resuming the SSE answer of a POST after the server closed it (SEP-1699 polling)', () => {
  it('reconnects with GET + Last-Event-ID after `retry`, gets the replayed progress and then the result', async () => {
    const eventStore = new TinyEventStore();
    const server = await startServer({
      stateful: true,
      json: false,
      eventStore,
      retryInterval: 25,
    });
    const { client, transport } = await connectedClient(server);
    const progress: number[] = [];

    const result = await client.callTool(
      'poll',
      {},
      {
        onProgress: (update) => {
          progress.push(update.progress);
          // Progress 2 was stored while no connection was open: it arrives replayed on the
          // resumed stream, which the tool's result then follows.
          if (update.progress === 2) server.hooks.releasePoll();
        },
      },
    );

    expect(server.hooks.closeSSEStreamOffered).toBe(true);
    expect(result).toEqual({ content: [{ type: 'text', text: 'polled' }] });
    expect(progress).toEqual([1, 2]);
    const progressOneId = eventStore.idOf((message) => message.params?.progress === 1);
    const resumes = server
      .requestsOf('GET')
      .filter((request) => request.headers['last-event-id'] !== undefined);
    expect(progressOneId).toEqual(expect.any(String));
    expect(resumes).toHaveLength(1);
    expect(resumes[0].headers['last-event-id']).toBe(progressOneId);
    expect(resumes[0].headers['mcp-session-id']).toBe(transport.sessionId);
    expect(resumes[0].headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(resumes[0].headers.accept).toBe('text/event-stream');
  });
});

describe('closing a Streamable HTTP connection', () => {
  it('sends DELETE with the session id; the server ends the session', async () => {
    const server = await startServer({ stateful: true, json: false });
    const closed: (Error | undefined)[] = [];
    const client = newClient({ onClose: (error) => closed.push(error) });
    const transport = new StreamableHttpClientTransport({ url: server.url });
    await client.connect(transport);
    const sessionId = transport.sessionId!;

    await client.close();

    expect(server.deletedSessions).toEqual([sessionId]);
    const [deleteRequest] = server.requestsOf('DELETE');
    expect(deleteRequest.headers['mcp-session-id']).toBe(sessionId);
    expect(deleteRequest.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(closed).toEqual([undefined]);
  });

  it('sends no DELETE when the server gave no session', async () => {
    const server = await startServer({ stateful: false, json: true });
    const { client } = await connectedClient(server);
    await client.close();
    expect(server.requestsOf('DELETE')).toEqual([]);
  });
});

describe('session lost: HTTP 404 on a request carrying the session id', () => {
  it('starts a new session through the Client and re-sends the request once', async () => {
    const server = await startServer({ stateful: true, json: false });
    const { client, transport } = await connectedClient(server);
    const oldSession = transport.sessionId!;

    // Once the GET stream is open, so the 404 meets the POST rather than that GET.
    await server.waitForRequest((request) => request.method === 'GET');
    server.forgetSessions();
    const result = await client.callTool('add', { a: 40, b: 2 });

    expect(result).toEqual({ content: [{ type: 'text', text: '42' }] });
    const newSession = transport.sessionId!;
    expect(newSession).toMatch(/^[0-9a-f-]{36}$/);
    expect(newSession).not.toBe(oldSession);
    const initializes = server.postsOf('initialize');
    expect(initializes).toHaveLength(2);
    expect(initializes[1].headers['mcp-session-id']).toBeUndefined();
    expect(server.postsOf('notifications/initialized').map((post) => post.headers['mcp-session-id'])).toEqual(
      [oldSession, newSession],
    );
    // The call went out twice: once into the lost session, once into the new one.
    expect(server.postsOf('tools/call').map((post) => post.headers['mcp-session-id'])).toEqual([
      oldSession,
      newSession,
    ]);
    expect(client.isConnected).toBe(true);
    await expect(client.listTools()).resolves.toHaveLength(4);
    await client.close();
    expect(server.deletedSessions).toEqual([newSession]);
  });

  it('re-initializes once for several requests that meet the 404 together', async () => {
    const server = await startServer({ stateful: true, json: true });
    const { client, transport } = await connectedClient(server);
    const oldSession = transport.sessionId!;

    // Once the GET stream is open, so the 404 meets the POST rather than that GET.
    await server.waitForRequest((request) => request.method === 'GET');
    server.forgetSessions();
    const results = await Promise.all([1, 2, 3].map((n) => client.callTool('add', { a: n, b: n })));

    expect(results.map((result) => (result.content[0] as { text: string }).text)).toEqual(['2', '4', '6']);
    expect(server.postsOf('initialize')).toHaveLength(2);
    const calls = server.postsOf('tools/call');
    // Each call met the 404 at most once; none went to the old session after the new one began.
    expect(calls.filter((post) => post.headers['mcp-session-id'] === transport.sessionId)).toHaveLength(3);
    expect(calls.filter((post) => post.headers['mcp-session-id'] === oldSession).length).toBeLessThanOrEqual(
      3,
    );
  });

  it('closes the connection instead when reinitializeOnSessionLost is false', async () => {
    const server = await startServer({ stateful: true, json: true });
    const closed: (Error | undefined)[] = [];
    const client = newClient({ onClose: (error) => closed.push(error) });
    const transport = new StreamableHttpClientTransport({
      url: server.url,
      reinitializeOnSessionLost: false,
    });
    await client.connect(transport);
    const oldSession = transport.sessionId!;

    // Once the GET stream is open, so the 404 meets the POST rather than that GET.
    await server.waitForRequest((request) => request.method === 'GET');
    server.forgetSessions();
    const error = await client.callTool('add', { a: 1, b: 1 }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toBe(
      `Connection closed: The server no longer knows session ${oldSession} (HTTP 404 Not Found from POST ${server.url}: {"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}); connect again to start a new session`,
    );
    expect(closed).toHaveLength(1);
    expect(closed[0]).toBeInstanceOf(ConnectionClosedError);
    expect(client.isConnected).toBe(false);
    expect(server.postsOf('initialize')).toHaveLength(1);
  });
});
