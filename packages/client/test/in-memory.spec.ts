import { Client, InMemoryTransport } from '@gantry/client';
import {
  GantryError,
  type JSONRPCNotification,
  type JSONRPCRequest,
  McpError,
  MethodNotFoundError,
  NotConnectedError,
  Peer,
  RequestCancelledError,
  type Result,
} from '@gantry/protocol';

/** What the bare server Peer answers `initialize` with, unless a test says otherwise. */
const INITIALIZE_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'literal-server', version: '9.9.9' },
  instructions: 'Use the tools.',
};

type Answer = (request: JSONRPCRequest) => Result | Promise<Result>;

/** The bare server below speaks the session era only: these tests pin the handshake to it. */
const LEGACY = { era: 'session' } as const;

/**
 * A bare Peer standing in for a server: it answers from a table of literal JSON and records
 * every request and notification it receives, exactly as they arrived.
 */
async function bareServer(answers: { [method: string]: Answer }) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const requests: JSONRPCRequest[] = [];
  const notifications: JSONRPCNotification[] = [];
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  const peer = new Peer({
    onRequest: (request) => {
      requests.push(request);
      const answer = answers[request.method];
      if (!answer) throw new MethodNotFoundError(`Method not found: ${request.method}`);
      return answer(request);
    },
    onNotification: (notification) => notifications.push(notification),
    onClose: () => onClosed(),
  });
  await peer.connect(serverEnd);
  return { peer, clientEnd, requests, notifications, closed };
}

function tool(name: string) {
  return { name, inputSchema: { type: 'object' } };
}

describe('Client handshake on an in-memory pipe', () => {
  it('sends initialize with our info, version and capabilities, then notifications/initialized', async () => {
    const server = await bareServer({ initialize: () => INITIALIZE_RESULT });
    const client = new Client(
      { name: 'in-memory-client', version: '0.1.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    await client.connect(server.clientEnd, LEGACY);

    expect(server.requests).toEqual([
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { roots: { listChanged: true } },
          clientInfo: { name: 'in-memory-client', version: '0.1.0' },
        },
      },
    ]);
    expect(server.notifications).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(client.serverInfo).toEqual({ name: 'literal-server', version: '9.9.9' });
    expect(client.serverCapabilities).toEqual({ tools: { listChanged: true } });
    expect(client.instructions).toBe('Use the tools.');
    expect(client.protocolVersion).toBe('2025-11-25');
    await client.close();
  });

  it('asks for an older version when told to, and accepts it answered', async () => {
    const server = await bareServer({
      initialize: () => ({ ...INITIALIZE_RESULT, protocolVersion: '2025-03-26' }),
    });
    const client = new Client({ name: 'c', version: '1' }, { protocolVersion: '2025-03-26' });
    await client.connect(server.clientEnd, LEGACY);
    expect(server.requests[0].params?.protocolVersion).toBe('2025-03-26');
    expect(client.protocolVersion).toBe('2025-03-26');
    await client.close();
  });

  it('refuses to be built with a version it does not speak', () => {
    expect(() => new Client({ name: 'c', version: '1' }, { protocolVersion: '2026-07-28' })).toThrow(
      'Client: protocolVersion "2026-07-28" is not supported; use one of 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05',
    );
  });

  it('closes the connection and throws when the server answers an unsupported version', async () => {
    const server = await bareServer({
      initialize: () => ({ ...INITIALIZE_RESULT, protocolVersion: '1999-01-01' }),
    });
    const client = new Client({ name: 'c', version: '1' });
    const error = await client.connect(server.clientEnd, LEGACY).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({
      code: 'GANTRY_ERR_PROTOCOL_VIOLATION',
      message:
        'The server answered initialize with protocol version "1999-01-01", which this client does not support (supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05); the connection was closed',
    });
    await server.closed;
    expect(server.peer.isConnected).toBe(false);
    // No notifications/initialized after a refused version.
    expect(server.notifications).toEqual([]);
    expect(client.isConnected).toBe(false);
    await expect(client.ping()).rejects.toThrow(NotConnectedError);
  });

  it('rejects an initialize result without serverInfo', async () => {
    const server = await bareServer({
      initialize: () => ({ protocolVersion: '2025-11-25', capabilities: {} }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await expect(client.connect(server.clientEnd, LEGACY)).rejects.toMatchObject({
      code: 'GANTRY_ERR_PROTOCOL_VIOLATION',
      message:
        'The server answered initialize without "serverInfo": {"protocolVersion":"2025-11-25","capabilities":{}}',
    });
    await server.closed;
  });

  it('rejects requests made before connect() finished with NotConnectedError', async () => {
    let answerInitialize!: () => void;
    const server = await bareServer({
      initialize: () =>
        new Promise<Result>((resolve) => {
          answerInitialize = () => resolve(INITIALIZE_RESULT);
        }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await expect(client.listTools()).rejects.toThrow(
      new NotConnectedError('Not connected: call connect() before sending "tools/list"'),
    );

    const connecting = client.connect(server.clientEnd, LEGACY);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(server.requests.map((request) => request.method)).toEqual(['initialize']);
    await expect(client.ping()).rejects.toThrow(
      new NotConnectedError('Not connected: "ping" was sent before connect() finished'),
    );
    await expect(client.connect(server.clientEnd, LEGACY)).rejects.toThrow('Client is already connected');

    answerInitialize();
    await connecting;
    expect(client.isConnected).toBe(true);
    await client.close();
  });

  it('aborts the handshake by closing the connection, never by cancelling initialize', async () => {
    const server = await bareServer({ initialize: () => new Promise<Result>(() => {}) });
    const client = new Client({ name: 'c', version: '1' });
    const controller = new AbortController();
    const connecting = client.connect(server.clientEnd, { ...LEGACY, signal: controller.signal });
    await new Promise<void>((resolve) => setImmediate(resolve));
    controller.abort('user gave up');

    const error = await connecting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect((error as Error).message).toBe('Request "initialize" was cancelled: user gave up');
    await server.closed;
    // 2025-11-25 lifecycle: "The client MUST NOT cancel initialize".
    expect(server.notifications).toEqual([]);
    expect(client.isConnected).toBe(false);
  });
});

describe('Client.listTools on an in-memory pipe', () => {
  it('follows nextCursor until the server gives none', async () => {
    const pages: { [cursor: string]: Result } = {
      '': { tools: [tool('a'), tool('b')], nextCursor: 'page-2' },
      'page-2': { tools: [tool('c')], nextCursor: 'page-3' },
      'page-3': { tools: [tool('d')] },
    };
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'tools/list': (request) => pages[(request.params?.cursor as string | undefined) ?? ''],
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);

    const tools = await client.listTools();
    expect(tools.map((entry) => entry.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(server.requests.filter((request) => request.method === 'tools/list')).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'page-2' } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'page-3' } },
    ]);
    await client.close();
  });

  it('stops with a protocol violation when the server repeats a cursor', async () => {
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'tools/list': (request) =>
        request.params?.cursor === undefined
          ? { tools: [tool('a')], nextCursor: 'loop' }
          : { tools: [tool('b')], nextCursor: 'loop' },
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);

    await expect(client.listTools()).rejects.toMatchObject({
      code: 'GANTRY_ERR_PROTOCOL_VIOLATION',
      message: 'tools/list repeated the cursor "loop"; stopped after 2 pages to avoid an endless loop',
    });
    expect(server.requests.filter((request) => request.method === 'tools/list')).toHaveLength(2);
    await client.close();
  });

  it('returns one page with its cursor from listToolsPage', async () => {
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'tools/list': () => ({ tools: [tool('x')], nextCursor: 'next' }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);
    await expect(client.listToolsPage('start')).resolves.toEqual({ tools: [tool('x')], nextCursor: 'next' });
    expect(server.requests[1].params).toEqual({ cursor: 'start' });
    await client.close();
  });

  it('rejects a tools/list result without a tools array', async () => {
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'tools/list': () => ({ items: [] }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);
    await expect(client.listTools()).rejects.toMatchObject({
      code: 'GANTRY_ERR_PROTOCOL_VIOLATION',
      message: 'tools/list answered without a "tools" array: {"items":[]}',
    });
    await client.close();
  });
});

describe('Client requests and notifications on an in-memory pipe', () => {
  it('sends tools/call with name and arguments, and rebuilds a JSON-RPC error as its McpError', async () => {
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'tools/call': (request) => {
        if (request.params?.name === 'boom') throw new McpError(-32050, 'custom failure', { why: 'test' });
        return { content: [{ type: 'text', text: 'done' }], structuredContent: { ok: true } };
      },
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);

    await expect(client.callTool('work', { n: 1 })).resolves.toEqual({
      content: [{ type: 'text', text: 'done' }],
      structuredContent: { ok: true },
    });
    expect(server.requests[1]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'work', arguments: { n: 1 } },
    });
    const error = await client.callTool('boom').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32050, message: 'custom failure', data: { why: 'test' } });
    expect(server.requests[2].params).toEqual({ name: 'boom' });
    await client.close();
  });

  it('rejects a tools/call result without a content array', async () => {
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'tools/call': () => ({ structuredContent: {} }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);
    await expect(client.callTool('t')).rejects.toMatchObject({
      code: 'GANTRY_ERR_PROTOCOL_VIOLATION',
      message: 'tools/call "t" answered without a "content" array: {"structuredContent":{}}',
    });
    await client.close();
  });

  it('sends any method through request() and notify()', async () => {
    const server = await bareServer({
      initialize: () => INITIALIZE_RESULT,
      'resources/read': (request) => ({ contents: [{ uri: request.params?.uri, text: 'hi' }] }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);
    await expect(client.request('resources/read', { uri: 'notes://1' })).resolves.toEqual({
      contents: [{ uri: 'notes://1', text: 'hi' }],
    });
    await client.notify('notifications/roots/list_changed');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(server.notifications.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/roots/list_changed',
    });
    await client.close();
  });

  it('delivers server notifications to subscribers until they unsubscribe', async () => {
    const server = await bareServer({ initialize: () => INITIALIZE_RESULT });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(server.clientEnd, LEGACY);
    const seen: JSONRPCNotification[] = [];
    const unsubscribe = client.onNotification('notifications/tools/list_changed', (notification) =>
      seen.push(notification),
    );

    await server.peer.notify({ method: 'notifications/tools/list_changed' });
    await server.peer.notify({ method: 'notifications/message', params: { level: 'info', data: 'x' } });
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(seen).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);

    unsubscribe();
    await server.peer.notify({ method: 'notifications/tools/list_changed' });
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(1);
    await client.close();
  });

  it('answers server → client requests: ping built in, −32601 without a handler, the handler once set', async () => {
    const server = await bareServer({ initialize: () => INITIALIZE_RESULT });
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { roots: {} } });
    await client.connect(server.clientEnd, LEGACY);

    await expect(server.peer.request({ method: 'ping' })).resolves.toEqual({});
    const missing = await server.peer.request({ method: 'roots/list' }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(MethodNotFoundError);
    expect(missing).toMatchObject({ code: -32601, message: 'Method not found: roots/list' });

    client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await expect(server.peer.request({ method: 'roots/list' })).resolves.toEqual({
      roots: [{ uri: 'file:///work', name: 'work' }],
    });

    client.removeRequestHandler('roots/list');
    await expect(server.peer.request({ method: 'roots/list' })).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });

  it('reports the end of the connection to onClose and rejects later requests', async () => {
    const server = await bareServer({ initialize: () => INITIALIZE_RESULT });
    const closings: (Error | undefined)[] = [];
    const client = new Client({ name: 'c', version: '1' }, { onClose: (error) => closings.push(error) });
    await client.connect(server.clientEnd, LEGACY);

    await server.peer.close();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(closings).toEqual([undefined]);
    expect(client.isConnected).toBe(false);
    await expect(client.callTool('t')).rejects.toThrow(
      new NotConnectedError('Not connected: "tools/call" was sent after the connection closed'),
    );
  });

  it('connects again on a new pipe after a close', async () => {
    const first = await bareServer({ initialize: () => INITIALIZE_RESULT });
    const second = await bareServer({
      initialize: () => ({ ...INITIALIZE_RESULT, serverInfo: { name: 'second', version: '2' } }),
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(first.clientEnd, LEGACY);
    await client.close();
    await client.connect(second.clientEnd, LEGACY);
    expect(client.serverInfo).toEqual({ name: 'second', version: '2' });
    await expect(client.ping()).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });
});
