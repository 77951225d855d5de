// The official SDK v2 over Streamable HTTP, stateful with JSON responses, the v1 example's
// pattern (./sdk.ts) written with v2's packages as their READMEs show: `createMcpFastifyApp()`
// (@modelcontextprotocol/fastify: Fastify, Host and Origin checks), one `McpServer`
// (@modelcontextprotocol/server) + `NodeStreamableHTTPServerTransport`
// (@modelcontextprotocol/node) per session, kept in a map under its session id.
//
// The v2 packages are loaded with require() rather than imported, so the benchmark still
// builds where they are not installed; the benchmark then reports this server as not
// installed instead of running it. The local interfaces below are the few members used.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { portOf, serveBenchmark } from './harness';

interface TextResult {
  content: Array<{ type: 'text'; text: string }>;
}

interface McpServer {
  registerTool(
    name: string,
    config: { description: string; inputSchema: unknown },
    handler: (args: { text: string }) => Promise<TextResult>,
  ): unknown;
  connect(transport: Transport): Promise<void>;
}

interface Transport {
  readonly sessionId: string | undefined;
  onclose?: () => void;
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
}

interface TransportOptions {
  sessionIdGenerator: () => string;
  enableJsonResponse: boolean;
  onsessioninitialized: (sessionId: string) => void;
}

const { McpServer, isInitializeRequest } = require('@modelcontextprotocol/server') as {
  McpServer: new (info: { name: string; version: string }) => McpServer;
  isInitializeRequest(value: unknown): boolean;
};
const { NodeStreamableHTTPServerTransport } = require('@modelcontextprotocol/node') as {
  NodeStreamableHTTPServerTransport: new (options: TransportOptions) => Transport;
};
const { createMcpFastifyApp } = require('@modelcontextprotocol/fastify') as {
  createMcpFastifyApp(options?: { host?: string }): FastifyInstance;
};

function getServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk-v2-http', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its input', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const transports = new Map<string, Transport>();

const jsonRpcError = (code: number, message: string) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id: null,
});

serveBenchmark(async () => {
  const app = createMcpFastifyApp();

  app.post('/mcp', async (request, reply) => {
    const sessionId = request.headers['mcp-session-id'] as string | undefined;
    const existing = sessionId === undefined ? undefined : transports.get(sessionId);
    if (existing !== undefined) {
      await existing.handleRequest(request.raw, reply.raw, request.body);
      return reply;
    }
    if (sessionId !== undefined) return reply.code(404).send(jsonRpcError(-32001, 'Session not found'));
    if (!isInitializeRequest(request.body)) {
      return reply.code(400).send(jsonRpcError(-32000, 'Bad Request: No valid session ID provided'));
    }
    const transport: Transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    await getServer().connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  return portOf(app.server.address());
});
