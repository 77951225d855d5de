import { Client, SseClientTransport } from '@gantry/client';
import { ConnectionClosedError, ErrorCode, GantryError, McpError } from '@gantry/protocol';
import { INITIALIZE_RESULT, RawHttpServer, sse } from './fixtures/raw-http-server';
import { LegacySseServer } from './fixtures/sdk-http-server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function newClient(options?: ConstructorParameters<typeof Client>[1]): Client {
  const client = new Client({ name: 'legacy-tests', version: '1' }, options);
  cleanups.push(() => client.close());
  return client;
}

describe('Client over HTTP+SSE (2024-11-05) against the SDK SSEServerTransport', () => {
  let server: LegacySseServer;

  beforeEach(async () => {
    server = await new LegacySseServer({ ssePath: '/sse', messagesPath: '/messages' }).listen();
    cleanups.push(() => server.close());
  });

  it('connects: GET /sse, then POSTs to the endpoint the server named', async () => {
    const client = newClient();
    const transport = new SseClientTransport({ url: server.sseUrl });
    await client.connect(transport);

    const [sessionId] = [...server.transports.keys()];
    expect(transport.endpoint?.href).toBe(`${server.origin}/messages?sessionId=${sessionId}`);
    expect(client.serverInfo).toEqual({ name: 'sdk-http', version: '2.0.0' });
    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ['GET', '/sse'],
      ['POST', `/messages?sessionId=${sessionId}`],
      ['POST', `/messages?sessionId=${sessionId}`],
    ]);
    expect(server.requests[0].headers.accept).toBe('text/event-stream');
    expect(server.requests[1].headers['content-type']).toBe('application/json');
    expect(server.requests[1].body.method).toBe('initialize');
    expect(server.requests[2].body).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  it('lists and calls tools; answers arrive as message events', async () => {
    const client = newClient();
    await client.connect(new SseClientTransport({ url: server.sseUrl }));
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'count', 'ask', 'poll']);
    await expect(client.callTool('add', { a: 19, b: 23 })).resolves.toEqual({
      content: [{ type: 'text', text: '42' }],
    });
    const progress: number[] = [];
    await expect(
      client.callTool('count', { steps: 2 }, { onProgress: (update) => progress.push(update.progress) }),
    ).resolves.toEqual({ content: [{ type: 'text', text: 'counted to 2' }] });
    expect(progress).toEqual([1, 2]);
  });

  it('closes the SSE stream on close; the server sees the connection end', async () => {
    const client = newClient();
    await client.connect(new SseClientTransport({ url: server.sseUrl }));
    const [sessionId] = [...server.transports.keys()];
    await client.close();
    await server.sessionEnded(sessionId);
    expect(server.transports.size).toBe(0);
    expect(client.isConnected).toBe(false);
  });
});

/** A legacy server answering with literal bytes: GET `/a/sse` is the stream, POSTs go where `endpoint` says. */
async function rawLegacyServer(
  endpoint: string,
  onPost?: (body: any, stream: import('node:http').ServerResponse) => number,
) {
  let stream: import('node:http').ServerResponse | undefined;
  const server = await new RawHttpServer((request, res) => {
    if (request.method === 'GET') {
      stream = sse(res);
      stream.write(`event: endpoint\ndata: ${endpoint}\n\n`);
      return;
    }
    const body = request.body;
    if (body.method === 'initialize') {
      stream!.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: INITIALIZE_RESULT })}\n\n`,
      );
      res.writeHead(202).end('Accepted');
      return;
    }
    const status = onPost ? onPost(body, stream!) : 202;
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 202 ? 'Accepted' : 'refused');
  }).listen();
  cleanups.push(() => server.close());
  return {
    server,
    url: `${server.origin}/a/sse`,
    endStream: () => stream!.end(),
  };
}

describe('HTTP+SSE endpoint event', () => {
  it('resolves a relative endpoint against the SSE URL', async () => {
    const { server, url } = await rawLegacyServer('messages?session=7');
    const transport = new SseClientTransport({ url });
    await newClient().connect(transport);
    expect(transport.endpoint?.href).toBe(`${server.origin}/a/messages?session=7`);
    expect(
      server.requests.filter((request) => request.method === 'POST').map((request) => request.path),
    ).toEqual(['/a/messages?session=7', '/a/messages?session=7']);
  });

  it('refuses an endpoint on another origin, before sending anything', async () => {
    const { server, url } = await rawLegacyServer('http://evil.example/messages');
    const error = await newClient()
      .connect(new SseClientTransport({ url }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({
      code: 'GANTRY_ERR_PROTOCOL_VIOLATION',
      message: `The server's endpoint http://evil.example/messages is not on the origin of ${url} (${server.origin}); refusing to send messages there`,
    });
    expect(server.requests.map((request) => request.method)).toEqual(['GET']);
  });

  it('refuses an endpoint on another port of the same host', async () => {
    const { url } = await rawLegacyServer('http://127.0.0.1:1/messages');
    await expect(newClient().connect(new SseClientTransport({ url }))).rejects.toThrow(
      'is not on the origin of',
    );
  });
});

describe('HTTP+SSE failures', () => {
  it('rejects only the request whose POST got an HTTP error', async () => {
    const { url } = await rawLegacyServer('/messages', (body, stream) => {
      if (body.method === 'tools/list') {
        stream.write(`event: message\ndata: {"jsonrpc":"2.0","id":${body.id},"result":{"tools":[]}}\n\n`);
        return 202;
      }
      return body.method === 'tools/call' ? 500 : 202;
    });
    const client = newClient();
    await client.connect(new SseClientTransport({ url }));
    const [call, list] = await Promise.allSettled([client.callTool('t', {}), client.listTools()]);
    expect(call.status).toBe('rejected');
    const error = (call as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: ErrorCode.InternalError,
      message: `HTTP 500 Internal Server Error from POST ${new URL('/messages', url).href}: refused`,
      data: { httpStatus: 500, body: 'refused' },
    });
    expect(list).toEqual({ status: 'fulfilled', value: [] });
  });

  it('ends the connection with ConnectionClosedError when the server ends the stream', async () => {
    const { url, endStream } = await rawLegacyServer('/messages');
    const closed: (Error | undefined)[] = [];
    let onEnded!: () => void;
    const ended = new Promise<void>((resolve) => {
      onEnded = resolve;
    });
    const client = newClient({
      onClose: (error) => {
        closed.push(error);
        onEnded();
      },
    });
    await client.connect(new SseClientTransport({ url }));
    endStream();
    await ended;
    expect(closed).toHaveLength(1);
    expect(closed[0]).toBeInstanceOf(ConnectionClosedError);
    expect(closed[0]!.message).toBe(`The server ended the SSE stream of ${url}`);
    expect(client.isConnected).toBe(false);
  });

  it('fails to start when the stream ends before the endpoint event', async () => {
    const server = await new RawHttpServer((_request, res) => {
      sse(res).end('event: message\ndata: {}\n\n');
    }).listen();
    cleanups.push(() => server.close());
    const url = `${server.origin}/sse`;
    await expect(newClient().connect(new SseClientTransport({ url }))).rejects.toThrow(
      `The SSE stream of ${url} ended before its endpoint event`,
    );
  });
});
