import {
  Client,
  connectHttp,
  HttpStatusError,
  httpStatusOf,
  SseClientTransport,
  StreamableHttpClientTransport,
} from '@gantry/client';
import { ConnectionClosedError, McpError } from '@gantry/protocol';
import { RawHttpServer } from './fixtures/raw-http-server';
import { LegacySseServer, StreamableSdkServer } from './fixtures/sdk-http-server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function newClient(): Client {
  const client = new Client({ name: 'connect-http-tests', version: '1' });
  cleanups.push(() => client.close());
  return client;
}

describe('connectHttp (2025-11-25 transports, backwards compatibility)', () => {
  it('uses Streamable HTTP when POST initialize succeeds', async () => {
    const server = await new StreamableSdkServer({ stateful: true, json: false }).listen();
    cleanups.push(() => server.close());
    const client = newClient();

    const connection = await connectHttp(client, server.url);

    expect(connection.kind).toBe('streamable-http');
    expect(connection.transport).toBeInstanceOf(StreamableHttpClientTransport);
    await expect(client.callTool('add', { a: 1, b: 2 })).resolves.toEqual({
      content: [{ type: 'text', text: '3' }],
    });
  });

  it.each([400, 404, 405])(
    'falls back to HTTP+SSE on the same URL when POST initialize answers %i',
    async (status) => {
      // The SSE endpoint is the user's URL; POSTing to it is refused, as by a server that predates Streamable HTTP.
      const server = await new LegacySseServer({
        ssePath: '/mcp',
        messagesPath: '/messages',
        postToSsePath: status,
      }).listen();
      cleanups.push(() => server.close());
      const client = newClient();

      const connection = await connectHttp(client, `${server.origin}/mcp`, { era: 'session' });

      expect(connection.kind).toBe('sse');
      expect(connection.transport).toBeInstanceOf(SseClientTransport);
      const [sessionId] = [...server.transports.keys()];
      expect(server.requests.slice(0, 3).map((request) => [request.method, request.path])).toEqual([
        ['POST', '/mcp'],
        ['GET', '/mcp'],
        ['POST', `/messages?sessionId=${sessionId}`],
      ]);
      expect(server.requests[0].body.method).toBe('initialize');
      expect(server.requests[2].body.method).toBe('initialize');
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['add', 'count', 'ask', 'poll']);
      await expect(client.callTool('add', { a: 2, b: 2 })).resolves.toEqual({
        content: [{ type: 'text', text: '4' }],
      });
    },
  );

  it.each([401, 500])('does not fall back when POST initialize answers %i', async (status) => {
    const server = await new LegacySseServer({
      ssePath: '/mcp',
      messagesPath: '/messages',
      postToSsePath: status,
    }).listen();
    cleanups.push(() => server.close());

    const error = await connectHttp(newClient(), `${server.origin}/mcp`, { era: 'session' }).catch(
      (caught: unknown) => caught,
    );

    // A refusal (401) rejects with the local HttpStatusError; a server error with a JSON-RPC error.
    expect(error).toBeInstanceOf(status === 401 ? HttpStatusError : McpError);
    expect(httpStatusOf(error)).toBe(status);
    expect(server.requests.map((request) => request.method)).toEqual(['POST']);
  });

  it('says both attempts failed when the fallback fails too', async () => {
    const server = await new RawHttpServer((request, res) => {
      res
        .writeHead(request.method === 'POST' ? 405 : 404, { 'content-type': 'text/plain' })
        .end('nothing here');
    }).listen();
    cleanups.push(() => server.close());
    const url = `${server.origin}/mcp`;

    const error = await connectHttp(newClient(), url, { era: 'session' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toBe(
      `Cannot connect to ${url}: POST initialize answered HTTP 405, so this is not a Streamable HTTP endpoint, and the HTTP+SSE fallback failed too: HTTP 404 Not Found from GET ${url}: nothing here`,
    );
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
  });
});
