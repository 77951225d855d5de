// Interop: the official TypeScript SDK v1 client, with its own WebSocketClientTransport
// (subprotocol `mcp`, one JSON-RPC message per text frame), against Gantry's WebSocket server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { serve } from './support';

describe('the official SDK v1 client over WebSocket', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  const globals = globalThis as { WebSocket?: unknown };
  const nativeWebSocket = globals.WebSocket;

  beforeAll(() => {
    // The SDK's transport opens `new WebSocket(url, 'mcp')` with the global WebSocket, which
    // Node 20 lacks (Node 22 has one); ws provides the same browser-style API.
    globals.WebSocket = WebSocket;
  });
  afterAll(() => {
    globals.WebSocket = nativeWebSocket;
  });
  afterEach(async () => {
    await server?.app.close();
  });

  it('lists and calls tools, and answers sampling requests on the same socket', async () => {
    server = await serve();
    const client = new Client({ name: 'sdk-ws', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      model: 'sdk-model',
      content: { type: 'text', text: `about ${String(request.params.messages.length)} message` },
    }));
    await client.connect(new WebSocketClientTransport(new URL(server.url)));
    expect(client.getServerVersion()).toEqual({ name: 'features', version: '1.0.0' });

    const { tools } = await client.listTools();
    expect(tools).toHaveLength(15);
    expect(tools.find((tool) => tool.name === 'weather')?.outputSchema).toMatchObject({ type: 'object' });

    const weather = await client.callTool({ name: 'weather', arguments: { city: 'Quito' } });
    expect(weather.structuredContent).toEqual({ city: 'Quito', celsius: 21.5, sky: 'clear' });
    const joke = await client.callTool({ name: 'sample_joke', arguments: { topic: 'frames' } });
    expect(joke.content).toEqual([{ type: 'text', text: 'sdk-model: about 1 message' }]);
    const invalid = await client.callTool({ name: 'weather', arguments: { city: 7 } });
    expect(invalid.isError).toBe(true);

    const [session] = [...server.app.server.sessions];
    expect(session.clientInfo).toEqual({ name: 'sdk-ws', version: '1.0.0' });
    const ended = new Promise<void>((resolve) => session.onClose(resolve));
    await client.close();
    await ended;
    expect(server.app.server.sessions.size).toBe(0);
  });
});
