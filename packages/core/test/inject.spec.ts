import { Args, Ctx, GantryFactory, Injectable, type McpContext, Module, Tool } from '@gantry/core';
import { LATEST_STATELESS_PROTOCOL_VERSION, MetaKey } from '@gantry/protocol';
import { IsString } from 'class-validator';

class TextArgs {
  @IsString()
  text!: string;
}

/** Lets `slow` finish only after `open` ran, so that responses come back out of request order. */
@Injectable()
class Gate {
  open!: () => void;
  readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });
}

@Injectable()
class InjectTools {
  readonly aborted: string[] = [];

  constructor(private readonly gate: Gate) {}

  @Tool({ description: 'Echoes its text' })
  echo(@Args() args: TextArgs): string {
    return args.text;
  }

  @Tool({ description: 'Answers once the gate is open' })
  async slow(): Promise<string> {
    await this.gate.opened;
    return 'slow';
  }

  @Tool({ description: 'Opens the gate' })
  open(): string {
    this.gate.open();
    return 'open';
  }

  @Tool({ description: 'Logs and reports progress' })
  async chatty(@Ctx() ctx: McpContext): Promise<string> {
    await ctx.log('info', 'working');
    await ctx.progress(1, 2);
    return 'done';
  }

  @Tool({ description: 'Returns the client roots' })
  async roots(@Ctx() ctx: McpContext): Promise<string> {
    return JSON.stringify(await ctx.roots());
  }

  @Tool({ description: 'Who is calling' })
  whoami(@Ctx() ctx: McpContext): string {
    return ctx.auth?.clientId ?? 'anonymous';
  }

  @Tool({ description: 'Waits until aborted' })
  async wait(@Ctx() ctx: McpContext): Promise<string> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    this.aborted.push(ctx.method);
    return 'aborted';
  }
}

@Module({ providers: [Gate, InjectTools] })
class InjectModule {}

const call = (id: number | string, name: string, args: object = {}) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const text = (response: { result?: any }) => response.result?.content?.[0]?.text;

let app: Awaited<ReturnType<typeof GantryFactory.create>>;

beforeEach(async () => {
  app = await GantryFactory.create(InjectModule, { name: 'inject', version: '1.0.0', logger: false });
});

afterEach(async () => {
  await app.close();
});

describe('app.inject', () => {
  it('answers one request on a fresh connection, which follows the session lifecycle', async () => {
    const [response, ...rest] = await app.inject({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(rest).toEqual([]);
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32600,
        message: 'Invalid request: "tools/list" was sent before initialization; send "initialize" first',
      },
    });
  });

  it('initializes first with `initialize: true`', async () => {
    const [response] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { initialize: true },
    );
    expect(response.id).toBe(1);
    expect(response.result.tools.map((tool: { name: string }) => tool.name)).toContain('echo');
  });

  it('sends the given initialize params, and rejects when the server refuses them', async () => {
    const result = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'roots', arguments: {} } },
      {
        initialize: { capabilities: { roots: {} }, clientInfo: { name: 'mine', version: '2' } },
        onRequest: () => ({ roots: [{ uri: 'file:///work' }] }),
      },
    );
    expect(JSON.parse(text(result[0]))).toEqual([{ uri: 'file:///work' }]);
    expect(result.requests).toEqual([{ jsonrpc: '2.0', id: 0, method: 'roots/list' }]);
    expect(result.messages[0]).toMatchObject({
      id: 'gantry-inject:initialize',
      result: { protocolVersion: '2025-11-25' },
    });
    await expect(
      app.inject([], { initialize: { protocolVersion: 42 as unknown as string } }),
    ).rejects.toThrow(
      'app.inject: initialize failed: Invalid params: initialize needs "protocolVersion" as a string',
    );
  });

  it('serves a session-era sequence and returns the responses in request order', async () => {
    const responses = await app.inject([
      INITIALIZE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(1, 'slow'),
      call(2, 'open'),
    ]);
    expect(responses.map((r) => r.id)).toEqual([0, 1, 2]);
    expect(responses[0].result.serverInfo).toEqual({ name: 'inject', version: '1.0.0' });
    expect(responses.slice(1).map(text)).toEqual(['slow', 'open']);
    // The server answered 2 before 1: `messages` keeps the order of the wire.
    expect(responses.messages.map((m) => (m as { id?: unknown }).id)).toEqual([0, 2, 1]);
  });

  it('collects the notifications the server sent meanwhile', async () => {
    const result = await app.inject(
      [
        { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } },
        { ...call(2, 'chatty'), params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'p' } } },
      ],
      { initialize: true },
    );
    expect(result.map(text)).toEqual([undefined, 'done']);
    expect(result.notifications).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'working' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 1, total: 2 },
      },
    ]);
    expect(result.requests).toEqual([]);
  });

  it('accepts JSON text, and answers text that is not JSON with a parse error', async () => {
    const [ping, unreadable] = await app.inject(['{"jsonrpc":"2.0","id":"a","method":"ping"}', '{nope']);
    expect(ping).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
    expect(unreadable.id).toBeNull();
    expect(unreadable.error?.code).toBe(-32700);
  });

  it('answers a message that is not JSON-RPC with the error the server sent for it', async () => {
    const responses = await app.inject([{ hello: 'world' }, { jsonrpc: '2.0', id: 7, method: 'ping' }]);
    expect(responses.map((r) => [r.id, r.error?.code ?? 'ok'])).toEqual([
      [null, -32600],
      [7, 'ok'],
    ]);
  });

  it('answers a batch frame (2025-03-26) with its responses', async () => {
    const responses = await app.inject(
      [[call(1, 'echo', { text: 'a' }), { jsonrpc: '2.0', id: 2, method: 'ping' }]],
      { initialize: { protocolVersion: '2025-03-26' } },
    );
    expect(responses.map((r) => r.id).sort()).toEqual([1, 2]);
    expect(text(responses.find((r) => r.id === 1)!)).toBe('a');
  });

  it('serves stateless-era requests that carry their _meta, with no initialize', async () => {
    const meta = {
      [MetaKey.ProtocolVersion]: LATEST_STATELESS_PROTOCOL_VERSION,
      [MetaKey.ClientCapabilities]: {},
    };
    const [response] = await app.inject({
      ...call(1, 'echo', { text: 'hi' }),
      params: { name: 'echo', arguments: { text: 'hi' }, _meta: meta },
    });
    expect(text(response)).toBe('hi');
  });

  it('adds the stateless-era _meta with `stateless: true`', async () => {
    const [list, echo] = await app.inject(
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, call(2, 'echo', { text: 'x' })],
      {
        stateless: true,
      },
    );
    expect(list.result.tools.length).toBeGreaterThan(0);
    expect(text(echo)).toBe('x');
    await expect(app.inject([], { stateless: true, initialize: true })).rejects.toThrow(TypeError);
  });

  it('waits for no response to a request the messages cancel, and aborts its handler', async () => {
    const responses = await app.inject(
      [
        call(1, 'wait'),
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
        call(2, 'echo', { text: 'after' }),
      ],
      { initialize: true },
    );
    expect(responses.map(text)).toEqual(['after']);
    expect(app.get(InjectTools).aborted).toEqual(['tools/call']);
  });

  it('answers server requests with −32601 unless given onRequest', async () => {
    const [response] = await app.inject(call(1, 'roots'), { initialize: { capabilities: { roots: {} } } });
    expect(response.result).toEqual({
      content: [
        {
          type: 'text',
          text: 'The client answered roots/list with error -32601: Method not found: app.inject was given no onRequest for roots/list',
        },
      ],
      isError: true,
    });
  });

  it('passes `auth` to the connection', async () => {
    const [response] = await app.inject(call(1, 'whoami'), {
      initialize: true,
      auth: { token: 't', clientId: 'alice', scopes: [] },
    });
    expect(text(response)).toBe('alice');
  });

  it('rejects, naming the unanswered request, after timeoutMs; and closes its connection', async () => {
    await expect(app.inject(call(5, 'wait'), { initialize: true, timeoutMs: 50 })).rejects.toThrow(
      'app.inject: no response within 50 ms to tools/call (id 5)',
    );
    // Closing the connection aborted the handler.
    expect(app.get(InjectTools).aborted).toEqual(['tools/call']);
    expect(app.server.sessions.size).toBe(0);
  });

  it('closes its connection once answered', async () => {
    await app.inject(call(1, 'echo', { text: 'x' }), { initialize: true });
    expect(app.server.sessions.size).toBe(0);
  });
});
