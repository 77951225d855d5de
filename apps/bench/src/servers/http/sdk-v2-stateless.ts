// The official SDK v2 serving the stateless era (2026-07-28) over Streamable HTTP, as its
// serving guide shows for Node frameworks: `createMcpHandler(factory)`
// (@modelcontextprotocol/server, a fresh `McpServer` from the factory per request) wrapped once
// with `toNodeHandler` (@modelcontextprotocol/node) and mounted on `createMcpFastifyApp()`
// (@modelcontextprotocol/fastify: Fastify, Host and Origin checks), the body Fastify already
// parsed passed along. Every answer is a JSON body (`responseMode: 'json'`, as Gantry's
// server is configured). Session-era traffic gets the handler's default, its stateless legacy
// fallback, so this endpoint serves both eras as Gantry's does; the benchmark sends it only
// 2026-07-28 requests.
//
// As in ./sdk-v2.ts, the v2 packages are loaded with require() rather than imported, so the
// benchmark builds where they are not installed; the local interfaces are the members used.
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
}

interface McpHttpHandler {
  fetch(request: Request): Promise<Response>;
}

type NodeHandler = (req: unknown, res: unknown, parsedBody?: unknown) => Promise<void>;

const { McpServer, createMcpHandler } = require('@modelcontextprotocol/server') as {
  McpServer: new (info: { name: string; version: string }) => McpServer;
  createMcpHandler(
    factory: () => McpServer,
    options?: { legacy?: 'stateless' | 'reject'; responseMode?: 'auto' | 'sse' | 'json' },
  ): McpHttpHandler;
};
const { toNodeHandler } = require('@modelcontextprotocol/node') as {
  toNodeHandler(handler: McpHttpHandler): NodeHandler;
};
const { createMcpFastifyApp } = require('@modelcontextprotocol/fastify') as {
  createMcpFastifyApp(options?: { host?: string }): FastifyInstance;
};

function getServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk-v2-stateless-http', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its input', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

serveBenchmark(async () => {
  const handler = toNodeHandler(createMcpHandler(getServer, { responseMode: 'json' }));
  const app = createMcpFastifyApp();

  app.post('/mcp', async (request, reply) => {
    await handler(request.raw, reply.raw, request.body);
    return reply;
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  return portOf(app.server.address());
});
