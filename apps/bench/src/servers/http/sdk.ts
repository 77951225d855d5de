// The official SDK v1 over Streamable HTTP, stateful with JSON responses, as its examples show
// (jsonResponseStreamableHttp.ts): `createMcpExpressApp()` (express, JSON body parser, Host
// check), one `McpServer` + `StreamableHTTPServerTransport` per session, created on
// `initialize` and kept in a map under its session id. The example's console.log per request,
// idle sweep and session cap are left out.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { portOf, serveBenchmark } from './harness';

function getServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk-http', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its input', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse & { status(code: number): { json(body: unknown): void } };

const transports = new Map<string, StreamableHTTPServerTransport>();

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

serveBenchmark(async () => {
  const app = createMcpExpressApp();

  app.post('/mcp', async (req: Request, res: Response) => {
    try {
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      const existing = sessionId === undefined ? undefined : transports.get(sessionId);
      if (existing !== undefined) {
        await existing.handleRequest(req, res, req.body);
        return;
      }
      if (sessionId !== undefined) return jsonRpcError(res, 404, -32001, 'Session not found');
      if (!isInitializeRequest(req.body)) {
        return jsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
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
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      process.stderr.write(`error handling MCP request: ${String(error)}\n`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    }
  });

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return portOf(server.address());
});
