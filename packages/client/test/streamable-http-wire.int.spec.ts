import type { ServerResponse } from 'node:http';
import { Client, HttpStatusError, StreamableHttpClientTransport } from '@gantry/client';
import { ErrorCode, McpError } from '@gantry/protocol';
import { INITIALIZE_RESULT, json, RawHttpServer, sse } from './fixtures/raw-http-server';
import type { RecordedRequest } from './fixtures/sdk-http-server';

/** Handlers for what the raw server does beyond the handshake. */
interface RawMcpAnswers {
  /** A POSTed request other than `initialize`. */
  request?: (request: RecordedRequest, res: ServerResponse) => void;
  /** A POSTed notification or response; default 202. */
  notification?: (request: RecordedRequest, res: ServerResponse) => void;
  /** A GET; default 405 (no standalone stream). */
  get?: (request: RecordedRequest, res: ServerResponse) => void;
  /** The session id assigned in the answer to initialize. */
  sessionId?: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A Streamable HTTP server answering with literal bytes. */
async function rawMcpServer(answers: RawMcpAnswers): Promise<RawHttpServer & { url: string }> {
  const server = await new RawHttpServer((request, res) => {
    const body = request.body;
    if (request.method === 'POST' && body?.method === 'initialize') {
      json(
        res,
        200,
        { jsonrpc: '2.0', id: body.id, result: INITIALIZE_RESULT },
        {
          'mcp-session-id': answers.sessionId ?? 'raw-session',
        },
      );
    } else if (request.method === 'POST' && !('id' in body && 'method' in body)) {
      if (answers.notification) answers.notification(request, res);
      else res.writeHead(202).end();
    } else if (request.method === 'POST') {
      answers.request!(request, res);
    } else if (request.method === 'GET') {
      if (answers.get) answers.get(request, res);
      else res.writeHead(405, { allow: 'POST, DELETE' }).end();
    } else {
      res.writeHead(200).end();
    }
  }).listen();
  cleanups.push(() => server.close());
  return Object.assign(server, { url: `${server.origin}/mcp` });
}

async function connect(
  server: { url: string },
  options: Partial<ConstructorParameters<typeof StreamableHttpClientTransport>[0]> = {},
  onError?: (error: Error) => void,
) {
  const client = new Client({ name: 'wire', version: '1' }, { onError });
  cleanups.push(() => client.close());
  const transport = new StreamableHttpClientTransport({
    url: server.url,
    reconnect: { initialDelayMs: 1, maxDelayMs: 5, maxRetries: 3 },
    ...options,
  });
  // The scripted server below speaks the session era: the handshake is pinned to it.
  await client.connect(transport, { era: 'session' });
  return { client, transport };
}

const resumptions = (server: RawHttpServer) =>
  server.requests.filter(
    (request) => request.method === 'GET' && request.headers['last-event-id'] !== undefined,
  );

describe('Streamable HTTP polling (2025-11-25, SEP-1699), literal SSE', () => {
  it('resumes with GET + Last-Event-ID each time the server closes, until the response comes', async () => {
    let callId: number | undefined;
    const server = await rawMcpServer({
      request: (request, res) => {
        callId = request.body.id;
        // Priming event: an id, a retry, empty data; then the server drops the connection.
        sse(res).end('id: p0\nretry: 5\ndata:\n\n');
      },
      get: (request, res) => {
        // No standalone stream: only resumptions are served.
        if (request.headers['last-event-id'] === undefined) res.writeHead(405).end();
        else if (request.headers['last-event-id'] === 'p0') {
          sse(res).end(': still working\nid: p1\ndata:\n\n');
        } else {
          sse(res).end(
            `id: p2\nevent: message\ndata: {"jsonrpc":"2.0","id":${callId},"result":{"content":[{"type":"text","text":"done"}]}}\n\n`,
          );
        }
      },
    });
    const { client } = await connect(server);

    await expect(client.callTool('slow', {})).resolves.toEqual({ content: [{ type: 'text', text: 'done' }] });

    const gets = resumptions(server);
    expect(gets.map((request) => request.headers['last-event-id'])).toEqual(['p0', 'p1']);
    expect(gets.map((request) => request.headers['mcp-session-id'])).toEqual(['raw-session', 'raw-session']);
    expect(gets.map((request) => request.headers.accept)).toEqual(['text/event-stream', 'text/event-stream']);
  });

  it('rejects the request when its SSE answer ends without the response and without an event id', async () => {
    const server = await rawMcpServer({
      request: (_request, res) => {
        sse(res).end(
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
        );
      },
    });
    const { client } = await connect(server);

    const error = await client.callTool('t', {}).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: ErrorCode.InternalError,
      message: `The server's SSE answer to POST ${server.url} ended before the response, and it sent no event id to resume from`,
    });
    expect(resumptions(server)).toEqual([]);
    expect(client.isConnected).toBe(true);
  });

  it('gives up after reconnect.maxRetries failed resumptions in a row', async () => {
    const server = await rawMcpServer({
      request: (_request, res) => {
        sse(res).end('id: a1\nretry: 1\ndata:\n\n');
      },
      get: (_request, res) => {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      },
    });
    const { client } = await connect(server);

    const error = await client.callTool('t', {}).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toBe(
      `Gave up resuming the SSE answer to POST ${server.url} after 4 failed attempts: HTTP 503 Service Unavailable from GET ${server.url}: busy`,
    );
    // One attempt, then maxRetries (3) more: every one resumed after the priming event.
    expect(resumptions(server).map((request) => request.headers['last-event-id'])).toEqual([
      'a1',
      'a1',
      'a1',
      'a1',
    ]);
  });
});

describe('Streamable HTTP answers that do not answer', () => {
  it('rejects a request whose JSON answer holds no response for it', async () => {
    const server = await rawMcpServer({
      request: (_request, res) => json(res, 200, { jsonrpc: '2.0', id: 999, result: {} }),
    });
    const { client } = await connect(server);
    await expect(client.callTool('t', {})).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: `The server's JSON answer to POST ${server.url} holds no response for this request`,
    });
  });

  it('rejects a request answered 202 without a body', async () => {
    const server = await rawMcpServer({ request: (_request, res) => res.writeHead(202).end() });
    const { client } = await connect(server);
    await expect(client.callTool('t', {})).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: `The server answered POST ${server.url} with HTTP 202 and no Content-Type; a request must be answered with application/json or text/event-stream (2025-11-25 transports)`,
    });
  });

  it("keeps the code of a JSON-RPC error in an HTTP error's body", async () => {
    const server = await rawMcpServer({
      request: (_request, res) =>
        json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad request' } }),
    });
    const { client } = await connect(server);
    const error = await client.callTool('t', {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'InvalidRequestError',
      code: -32600,
      data: {
        httpStatus: 400,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad request"}}',
      },
    });
  });

  it('reports a notification refused with HTTP 400 to onError as an HttpStatusError', async () => {
    const server = await rawMcpServer({
      notification: (request, res) => {
        if (request.body.method === 'notifications/roots/list_changed')
          res.writeHead(400).end('no roots here');
        else res.writeHead(202).end();
      },
    });
    const errors: Error[] = [];
    const { client } = await connect(server, {}, (error) => errors.push(error));

    await client.notify('notifications/roots/list_changed');

    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(HttpStatusError);
    expect(errors[0]).toMatchObject({
      code: 'GANTRY_ERR_HTTP_STATUS',
      method: 'POST',
      status: 400,
      body: 'no roots here',
      message: `HTTP 400 Bad Request from POST ${server.url}: no roots here`,
    });
  });
});

describe('Streamable HTTP headers', () => {
  it('calls the headers function before each request; the protocol headers win over it', async () => {
    let calls = 0;
    const server = await rawMcpServer({
      request: (request, res) =>
        json(res, 200, { jsonrpc: '2.0', id: request.body.id, result: { tools: [] } }),
    });
    const { client } = await connect(server, {
      headers: async () => ({ authorization: `Bearer token-${++calls}`, accept: 'text/html' }),
    });
    await client.listTools();

    const posts = server.requests.filter((request) => request.method === 'POST');
    expect(posts.map((post) => post.body.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
    expect(posts.map((post) => post.headers.accept)).toEqual([
      'application/json, text/event-stream',
      'application/json, text/event-stream',
      'application/json, text/event-stream',
    ]);
    // One call per HTTP request, the standalone GET included, in whatever order they went out.
    await server.waitForRequests(1, (request) => request.method === 'GET');
    const tokens = server.requests.map((request) => request.headers.authorization).sort();
    expect(tokens).toEqual(['Bearer token-1', 'Bearer token-2', 'Bearer token-3', 'Bearer token-4']);
    expect(server.requests.find((request) => request.method === 'GET')!.headers.accept).toBe(
      'text/event-stream',
    );
  });

  it('refuses a session id with characters outside visible ASCII', async () => {
    const server = await rawMcpServer({ sessionId: 'has space' });
    const client = new Client({ name: 'wire', version: '1' });
    const error = await client
      .connect(new StreamableHttpClientTransport({ url: server.url }), { era: 'session' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: ErrorCode.InternalError,
      message:
        'The server assigned an invalid MCP-Session-Id "has space": it must hold only visible ASCII characters (2025-11-25 transports)',
    });
  });

  it('rejects bad options at construction', () => {
    expect(() => new StreamableHttpClientTransport({ url: 'not a url' })).toThrow(
      'StreamableHttpClientTransport: `url` must be an absolute http(s) URL (got "not a url")',
    );
    expect(() => new StreamableHttpClientTransport({ url: 'ftp://127.0.0.1/mcp' })).toThrow(
      'StreamableHttpClientTransport: `url` must use http or https (got ftp:)',
    );
    expect(
      () => new StreamableHttpClientTransport({ url: 'http://127.0.0.1/mcp', reconnect: { maxRetries: -1 } }),
    ).toThrow('StreamableHttpClientTransport: reconnect.maxRetries must be a finite number ≥ 0 (got -1)');
  });
});
