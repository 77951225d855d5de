import { Client, WebSocketClientTransport } from '@gantry/client';
import { serve } from './support';

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("Gantry's own client over WebSocket", () => {
  let server: Awaited<ReturnType<typeof serve>>;
  afterEach(async () => {
    await server?.app.close();
  });

  it('lists and calls tools, answers sampling, pings, and closes cleanly', async () => {
    server = await serve();
    const client = new Client({ name: 'gantry-ws', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      model: 'ws-model',
      content: { type: 'text', text: 'over the socket' },
    }));
    const transport = new WebSocketClientTransport({ url: server.url, protocols: ['mcp'] });
    await client.connect(transport);
    expect(transport.protocol).toBe('mcp');

    const tools = await client.listTools();
    expect(tools.length).toBe(15);
    const weather = await client.callTool('weather', { city: 'Lima' });
    expect(weather.structuredContent).toEqual({ city: 'Lima', celsius: 21.5, sky: 'clear' });
    expect(text(await client.callTool('sample_joke', { topic: 'frames' }))).toBe('ws-model: over the socket');
    const progress: number[] = [];
    expect(
      text(
        await client.callTool(
          'count',
          { steps: 3, delayMs: 5 },
          { onProgress: (p) => progress.push(p.progress) },
        ),
      ),
    ).toBe('counted to 3');
    expect(progress).toEqual([1, 2, 3]);
    await client.ping();
    expect(server.app.server.sessions.size).toBe(1);
    const [session] = server.app.server.sessions;
    const ended = new Promise<void>((resolve) => session.onClose(resolve));

    await client.close();
    await ended;
    expect(server.app.server.sessions.size).toBe(0);
  });

  it('sees the server go away when the app closes', async () => {
    server = await serve();
    let onClose!: (error?: Error) => void;
    const closed = new Promise<Error | undefined>((resolve) => {
      onClose = resolve;
    });
    const client = new Client({ name: 'gantry-ws', version: '1.0.0' }, { onClose });
    await client.connect(new WebSocketClientTransport({ url: server.url }));
    await server.app.close();
    expect((await closed)?.message).toMatch(/1001/);
    await expect(client.listTools()).rejects.toThrow();
  });

  it('reports a refused upgrade with its status and reason', async () => {
    server = await serve();
    const client = new Client({ name: 'gantry-ws', version: '1.0.0' });
    await expect(
      client.connect(new WebSocketClientTransport({ url: server.url, protocols: ['other'] })),
    ).rejects.toThrow(/HTTP 400.*"mcp"/);
  });
});
