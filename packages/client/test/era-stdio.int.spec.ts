// Choosing the protocol era over stdio, against real child processes: the dual-era Gantry app,
// and a hand-written session-era-only server that errors on (or ignores) server/discover.
import { join, resolve } from 'node:path';
import { Client, clearEraCache, StdioClientTransport } from '@gantry/client';
import { McpError, RequestCancelledError } from '@gantry/protocol';
import { eventually } from '@gantry/testing';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const DUAL_ERA_SERVER = join(__dirname, 'fixtures', 'dual-era-server.ts');
const LEGACY_SERVER = join(__dirname, 'fixtures', 'legacy-only-server.cjs');
const CAPS = { elicitation: { form: {} }, sampling: {} };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
beforeEach(() => clearEraCache());

function newClient(options: ConstructorParameters<typeof Client>[1] = {}): Client {
  const client = new Client({ name: 'stdio-era-tests', version: '1.0.0' }, options);
  cleanups.push(() => client.close());
  return client;
}

function dualEraServer(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['-r', REGISTER, DUAL_ERA_SERVER],
    cwd: ROOT,
    stderr: 'pipe',
  });
}

function legacyServer(...mode: string[]): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [LEGACY_SERVER, ...mode],
    stderr: 'pipe',
  });
}

/** What the legacy-only server received so far, read through its `received` tool. */
async function received(
  client: Client,
): Promise<{ methods: string[]; level: string | null; subscribed: string[] }> {
  const result = await client.callTool('received');
  return JSON.parse((result.content[0] as { text: string }).text);
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('stdio: a dual-era Gantry server', () => {
  it("era 'auto' speaks the stateless era; input_required rounds, listen and cancellation work over the pipe", async () => {
    const client = newClient({ capabilities: CAPS });
    client.setRequestHandler('elicitation/create', (params) =>
      (params.message as string).startsWith('Book')
        ? { action: 'accept', content: { confirm: true } }
        : { action: 'accept', content: { name: 'Grace' } },
    );
    client.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      model: 'stdio-model',
      content: { type: 'text', text: 'Andes!' },
    }));
    await client.connect(dualEraServer());
    expect(client.era).toBe('stateless');
    expect(client.serverInfo).toEqual({ name: 'dual-era', version: '1.0.0' });

    expect(text(await client.callTool('plan_trip', { city: 'Lima' }))).toBe(
      'Booked Lima for Grace (stateless): Andes!',
    );

    const subscription = client.listen({ toolsListChanged: true });
    await expect(subscription.acknowledged).resolves.toEqual({ toolsListChanged: true });
    const next = subscription[Symbol.asyncIterator]().next();
    expect(text(await client.callTool('toggle_extra'))).toBe('added');
    await expect(next).resolves.toMatchObject({
      done: false,
      value: {
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': subscription.id } },
      },
    });
    await subscription.close();

    const controller = new AbortController();
    const waiting = client.callTool('wait_for_cancel', {}, { signal: controller.signal });
    // The journal lives in the server's process: read through a request, polled.
    const journal = async () => text(await client.callTool('journal_events'));
    await eventually(async () => (await journal()).includes('wait started'), { what: 'the tool to start' });
    controller.abort('enough');
    await expect(waiting).rejects.toBeInstanceOf(RequestCancelledError);
    await eventually(async () => (await journal()).includes('wait cancelled'), {
      what: 'the tool to see the cancellation',
    });
    expect(await journal()).toBe('wait started|wait cancelled');
  });

  it("era 'session' forces initialize on the same server", async () => {
    const client = newClient();
    await client.connect(dualEraServer(), { era: 'session' });
    expect(client.era).toBe('session');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(text(await client.callTool('echo', { text: 'session' }))).toBe('session');
  });
});

describe('stdio: a session-era-only server', () => {
  it("era 'auto' falls back to initialize when server/discover gets an error (here −32000, not −32601)", async () => {
    const client = newClient();
    await client.connect(legacyServer('error', '-32000'));
    expect(client.era).toBe('session');
    expect(client.serverInfo).toEqual({ name: 'legacy-only', version: '0.1.0' });
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect((await received(client)).methods).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/call',
      'tools/call',
    ]);
  });

  it("era 'auto' falls back to initialize when server/discover is never answered, after probeTimeoutMs", async () => {
    const client = newClient({ probeTimeoutMs: 200 });
    await client.connect(legacyServer('silent'));
    expect(client.era).toBe('session');
    expect((await received(client)).methods).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
  });

  it('remembers the era per command line: the next connect goes straight to initialize', async () => {
    const first = newClient({ probeTimeoutMs: 200 });
    await first.connect(legacyServer('silent'));
    await first.close();

    const second = newClient({ probeTimeoutMs: 200 });
    await second.connect(legacyServer('silent'));
    expect(second.era).toBe('session');
    expect((await received(second)).methods).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);

    // Forgetting the entry makes the next connect probe again.
    clearEraCache(legacyServer('silent').eraCacheKey);
    const third = newClient({ probeTimeoutMs: 200 });
    await third.connect(legacyServer('silent'));
    expect((await received(third)).methods[0]).toBe('server/discover');
  });

  it("era 'stateless' does not fall back: it rejects with the server's error", async () => {
    const client = newClient();
    const error = await client
      .connect(legacyServer('error', '-32601'), { era: 'stateless' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: -32601,
      message: `Client.connect: the server does not speak 2026-07-28 (server/discover answered -32601 Server not initialized); connect with era 'auto' or 'session'`,
    });
    expect(client.isConnected).toBe(false);
  });

  it('listen() maps to list-changed notifications and resources/subscribe; setLoggingLevel to logging/setLevel', async () => {
    const client = newClient();
    await client.connect(legacyServer('error', '-32601'));
    await client.setLoggingLevel('warning');

    const subscription = client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['file:///a'],
    });
    // No prompts capability: the server cannot honour promptsListChanged.
    await expect(subscription.acknowledged).resolves.toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['file:///a'],
    });
    const iterator = subscription[Symbol.asyncIterator]();
    await client.callTool('toggle');
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    });
    await client.callTool('touch', { uri: 'file:///b' });
    await client.callTool('touch', { uri: 'file:///a' });
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a' } },
    });
    expect(await received(client)).toMatchObject({ level: 'warning', subscribed: ['file:///a'] });

    await subscription.close();
    const after = await received(client);
    expect(after.subscribed).toEqual([]);
    expect(after.methods.filter((method) => method.startsWith('resources/'))).toEqual([
      'resources/subscribe',
      'resources/unsubscribe',
    ]);
  });
});
