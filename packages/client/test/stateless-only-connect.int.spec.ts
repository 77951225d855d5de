// `era: 'stateless'` against servers that speak only the session era: the official SDK's
// servers (stdio and Streamable HTTP) and hand-written HTTP answers. The connection fails
// with an error that names the problem and the way out, keeping the server's code and data;
// failures that say nothing about the era (HTTP 401) are left as they are.
import { join } from 'node:path';
import { Client, connectHttp, httpStatusOf, StdioClientTransport } from '@gantry/client';
import { GantryError, LocalErrorCode, McpError, MethodNotFoundError } from '@gantry/protocol';
import { RawHttpServer } from './fixtures/raw-http-server';
import { StreamableSdkServer } from './fixtures/sdk-http-server';

const WAY_OUT = "; connect with era 'auto' or 'session'";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function newClient(): Client {
  const client = new Client({ name: 'stateless-only', version: '1' }, { eraCache: new Map() });
  cleanups.push(() => client.close());
  return client;
}

describe("connect with era 'stateless' to a session-era-only server", () => {
  it('stdio, the official SDK server: names the -32601 it answered and what to do', async () => {
    const client = newClient();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(__dirname, 'fixtures', 'sdk-server.cjs')],
      stderr: 'pipe',
    });

    const error = await client.connect(transport, { era: 'stateless' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(MethodNotFoundError);
    expect((error as McpError).message).toBe(
      `Client.connect: the server does not speak 2026-07-28 (server/discover answered -32601 Method not found)${WAY_OUT}`,
    );
    expect((error as Error).cause).toBeInstanceOf(MethodNotFoundError);
    expect(client.isConnected).toBe(false);
  });

  it.each([
    [true, 'No session id'],
    [false, 'Unsupported protocol version: 2026-07-28'],
  ])(
    'Streamable HTTP, the official SDK server (stateful %s): names its HTTP 400 and keeps the status',
    async (stateful, said) => {
      const server = await new StreamableSdkServer({ stateful, json: true }).listen();
      cleanups.push(() => server.close());
      const client = newClient();

      const error = await connectHttp(client, server.url, { era: 'stateless' }).catch(
        (caught: unknown) => caught,
      );

      expect(error).toBeInstanceOf(McpError);
      const message = (error as McpError).message;
      expect(message).toMatch(
        /^Client\.connect: the server does not speak 2026-07-28 \(server\/discover answered -32000 HTTP 400 Bad Request from POST http:\/\/127\.0\.0\.1:\d+\/mcp: /,
      );
      expect(message).toContain(said);
      expect(message.endsWith(`)${WAY_OUT}`)).toBe(true);
      expect(httpStatusOf(error)).toBe(400);
      // Only the probe was sent: no fallback to initialize.
      expect(server.requests.map((request) => request.body?.method)).toEqual(['server/discover']);
    },
  );

  it('an answer that is no DiscoverResult is named as such', async () => {
    const server = await new RawHttpServer((request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.body.id, result: {} }));
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();

    const error = await connectHttp(client, `${server.origin}/mcp`, { era: 'stateless' }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message: `Client.connect: the server does not speak 2026-07-28 (server/discover answered with something other than a DiscoverResult: {})${WAY_OUT}`,
    });
  });

  it('a -32022 that lists only session-era versions means the same', async () => {
    const server = await new RawHttpServer((request, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.body.id,
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported: ['2025-11-25'] },
          },
        }),
      );
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();

    const error = await connectHttp(client, `${server.origin}/mcp`, { era: 'stateless' }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32022 });
    expect((error as Error).message).toMatch(
      /^Client\.connect: the server does not speak 2026-07-28 \(server\/discover answered -32022 HTTP 400 /,
    );
  });

  it('HTTP 401 says nothing about the era: the error is left as it was', async () => {
    const server = await new RawHttpServer((_request, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer' });
      res.end();
    }).listen();
    cleanups.push(() => server.close());
    const client = newClient();

    const error = await connectHttp(client, `${server.origin}/mcp`, { era: 'stateless' }).catch(
      (caught: unknown) => caught,
    );

    expect(httpStatusOf(error)).toBe(401);
    expect((error as Error).message).toMatch(/^HTTP 401 Unauthorized from POST /);
  });
});
