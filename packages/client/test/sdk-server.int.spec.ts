import { join } from 'node:path';
import { Client, StdioClientTransport } from '@gantry/client';
import {
  LATEST_PROTOCOL_VERSION,
  NotConnectedError,
  type ProgressNotificationParams,
  RequestCancelledError,
  RequestTimeoutError,
} from '@gantry/protocol';

/** An official-SDK McpServer over stdio, run as a real child process. */
const SDK_SERVER = join(__dirname, 'fixtures', 'sdk-server.cjs');

interface SlowToolState {
  started: number;
  cancelled: { requestId: number | string; reason: string }[];
}

function sdkServer(): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [SDK_SERVER], stderr: 'pipe' });
}

async function slowToolState(client: Client): Promise<SlowToolState> {
  const result = await client.callTool('status');
  return result.structuredContent as unknown as SlowToolState;
}

describe('Client over stdio against the official SDK server', () => {
  let transport: StdioClientTransport;
  let client: Client;

  beforeAll(async () => {
    transport = sdkServer();
    client = new Client({ name: 'gantry-client-tests', version: '0.0.1' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
  });

  it('completes the handshake and exposes what the server declared', () => {
    expect(client.isConnected).toBe(true);
    expect(client.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(client.serverInfo).toEqual({ name: 'sdk-fixture', version: '1.2.3' });
    expect(client.serverCapabilities).toEqual({ tools: { listChanged: true } });
    expect(client.instructions).toBe('A fixture server for @gantry/client tests.');
    expect(typeof transport.pid).toBe('number');
  });

  it('lists every tool with its JSON Schema', async () => {
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'echo', 'slow', 'status', 'noise', 'crash']);
    const add = tools.find((tool) => tool.name === 'add')!;
    expect(add.description).toBe('Adds two numbers');
    expect(add.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
  });

  it('lists tools one page at a time (the SDK serves a single page)', async () => {
    const page = await client.listToolsPage();
    expect(page.tools).toHaveLength(6);
    expect(page.nextCursor).toBeUndefined();
  });

  it('calls add and gets the exact result', async () => {
    await expect(client.callTool('add', { a: 2, b: 40 })).resolves.toEqual({
      content: [{ type: 'text', text: '42' }],
    });
  });

  it('gets the SDK answer for an unknown tool: an isError result, not a JSON-RPC error', async () => {
    // SDK 1.32 McpServer throws McpError(-32602, "Tool nope not found") inside its tools/call
    // handler and turns it into a tool error result; the McpError message carries the code.
    await expect(client.callTool('nope', {})).resolves.toEqual({
      content: [{ type: 'text', text: 'MCP error -32602: Tool nope not found' }],
      isError: true,
    });
  });

  it('gets the SDK answer for invalid arguments as an isError result', async () => {
    const result = await client.callTool('add', { a: 'two', b: 40 });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text' });
    expect((result.content[0] as { text: string }).text).toContain(
      'MCP error -32602: Input validation error: Invalid arguments for tool add',
    );
  });

  it('pings', async () => {
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it('reports progress in increasing order, then cancels through an AbortSignal the server sees', async () => {
    const before = await slowToolState(client);
    const controller = new AbortController();
    const progress: ProgressNotificationParams[] = [];
    const call = client.callTool(
      'slow',
      { steps: 3 },
      {
        signal: controller.signal,
        onProgress: (update) => {
          progress.push(update);
          if (update.progress === 3) controller.abort('enough progress');
        },
      },
    );

    const error = await call.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect((error as RequestCancelledError).message).toBe(
      'Request "tools/call" was cancelled: enough progress',
    );
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
    expect(progress.map((update) => update.total)).toEqual([3, 3, 3]);
    expect(progress[2].message).toBe('step 3');

    // notifications/cancelled went out before this call, on the same ordered pipe.
    const after = await slowToolState(client);
    expect(after.started).toBe(before.started + 1);
    expect(after.cancelled.slice(before.cancelled.length)).toEqual([
      { requestId: expect.any(Number), reason: 'enough progress' },
    ]);
  });

  it('times out with RequestTimeoutError and cancels the call on the server', async () => {
    const before = await slowToolState(client);
    const error = await client.callTool('slow', {}, { timeoutMs: 500 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: 'GANTRY_ERR_REQUEST_TIMEOUT', method: 'tools/call', timeoutMs: 500 });

    const after = await slowToolState(client);
    expect(after.cancelled.slice(before.cancelled.length)).toEqual([
      { requestId: expect.any(Number), reason: 'Request timed out after 500 ms' },
    ]);
  });

  it('still answers after the cancelled and timed-out calls', async () => {
    await expect(client.callTool('add', { a: 1, b: 1 })).resolves.toEqual({
      content: [{ type: 'text', text: '2' }],
    });
  });
});

describe('closing a stdio connection to the SDK server', () => {
  it('closes stdin and the server exits by itself', async () => {
    const transport = sdkServer();
    const closed: (Error | undefined)[] = [];
    const client = new Client({ name: 'closer', version: '1' }, { onClose: (error) => closed.push(error) });
    await client.connect(transport);
    const pid = transport.pid!;
    expect(() => process.kill(pid, 0)).not.toThrow();

    await client.close();

    // 2025-11-25 lifecycle: EOF on stdin is enough; the SDK server exits with code 0.
    expect(transport.exitCode).toBe(0);
    expect(transport.signalCode).toBeNull();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(closed).toEqual([undefined]);
    expect(client.isConnected).toBe(false);
    await expect(client.ping()).rejects.toThrow(NotConnectedError);
  });

  it('rejects a call in flight with ConnectionClosedError when the client closes', async () => {
    const client = new Client({ name: 'closer', version: '1' });
    await client.connect(sdkServer());
    const call = client.callTool('slow', {});
    await client.close();
    await expect(call).rejects.toMatchObject({ name: 'ConnectionClosedError', message: 'Connection closed' });
  });
});
