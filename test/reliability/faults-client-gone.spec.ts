// A client that goes away in the middle of a call, on each transport: the server survives,
// serves the next client, and keeps nothing of the one that left (sessions, sockets, handlers).
import { type ChildServer, startFixture } from './support/child-server';
import { statelessMeta } from './support/fuzz-cases';
import { HttpMcp, postAndVanish } from './support/http-session';
import { eventually, StdioRpcClient, WsRpcClient } from './support/rpc-clients';

const waitCall = (ms: number, token: string) => ({
  name: 'wait',
  arguments: { ms, progressSteps: 1 },
  _meta: { progressToken: token },
});

describe('stdio: the client goes away while a slow tool runs', () => {
  const servers: ChildServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('stdin ends: the call in flight is still answered, then the process exits 0', async () => {
    const { server } = await startFixture({ transport: 'stdio' });
    servers.push(server);
    const client = new StdioRpcClient(server);
    await client.initialize();
    const answer = client.request('tools/call', { name: 'wait', arguments: { ms: 1000 } });
    await server.waitForLine(/^REL-WAIT started/);
    server.child.stdin.end();
    await expect(answer).resolves.toMatchObject({
      result: { content: [{ type: 'text', text: 'waited 1000 ms' }] },
    });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('the client process dies (both pipes close): the server exits 0 without an uncaught error, and a new one serves', async () => {
    const { server } = await startFixture({ transport: 'stdio' });
    servers.push(server);
    const client = new StdioRpcClient(server);
    await client.initialize();
    void client.request('tools/call', waitCall(300, 'w')).catch(() => {});
    await server.waitForLine(/^REL-WAIT started/);
    server.child.stdout.destroy();
    server.child.stdin.destroy();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderrTail).not.toMatch(/Uncaught|Unhandled|EPIPE/);

    const next = await startFixture({ transport: 'stdio' });
    servers.push(next.server);
    const nextClient = new StdioRpcClient(next.server);
    await nextClient.initialize();
    await expect(nextClient.request('ping')).resolves.toEqual({
      jsonrpc: '2.0',
      id: expect.any(String),
      result: {},
    });
  });
});

describe('Streamable HTTP: the client goes away or gives up mid-call', () => {
  let server: ChildServer;
  let url: URL;
  beforeAll(async () => {
    // A short idle timeout, so that the session of a client that left is reclaimed within the test.
    const started = await startFixture({ transport: 'http', env: { REL_IDLE_MS: '1500' } });
    server = started.server;
    url = new URL(started.url);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('session era: the server keeps serving, and the session of the client that left is reclaimed once idle', async () => {
    const gone = new HttpMcp(url);
    await gone.initialize();
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: waitCall(500, 'w') };
    expect(await postAndVanish(url, gone.headers(false), message)).toBe(200);
    gone.close();

    const next = new HttpMcp(url);
    await next.initialize();
    expect((await next.request('ping')).result).toEqual({});
    // Only the checker's own session remains once the abandoned one is idle and its call is over.
    await eventually('one session left', async () => (await next.stats()).sessions === 1);
    expect((await next.stats()).waits).toMatchObject({ running: 0 });
    expect(await next.delete()).toBe(200);
    next.close();
  });

  it('session era: a call the client cancels ends its SSE POST, and the session is reclaimed once idle', async () => {
    const client = new HttpMcp(url);
    await client.initialize();
    const started = (await client.stats()).waits.started as number;
    const call = client.post({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: waitCall(30_000, 'w'),
    });
    await eventually('the call started', async () => (await client.stats()).waits.started === started + 1);
    await client.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'slow', reason: 'the user gave up' },
    });
    const answer = await call; // MCP 2025-11-25 Cancellation: no response follows; the stream just ends
    expect(answer.messages.filter((m) => !(m && typeof m === 'object' && 'method' in m))).toEqual([]);
    const checker = new HttpMcp(url);
    await checker.initialize();
    client.close();
    await eventually('only the checker session left', async () => (await checker.stats()).sessions === 1);
    expect(await checker.delete()).toBe(200);
    checker.close();
  });

  it('session era: a second request reusing the id of one in flight is refused, and the first still gets its answer', async () => {
    const client = new HttpMcp(url);
    await client.initialize();
    const started = (await client.stats()).waits.started as number;
    const first = client.post({
      jsonrpc: '2.0',
      id: 'dup',
      method: 'tools/call',
      params: { name: 'wait', arguments: { ms: 300 } },
    });
    await eventually(
      'the first call started',
      async () => (await client.stats()).waits.started === started + 1,
    );
    const second = await client.post({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    expect(second.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 'dup',
        error: { code: -32600, message: expect.stringContaining('already in use') },
      },
    ]);
    expect((await first).messages).toEqual([
      { jsonrpc: '2.0', id: 'dup', result: { content: [{ type: 'text', text: 'waited 300 ms' }] } },
    ]);
    expect(await client.delete()).toBe(200);
    client.close();
  });

  it('2026-07-28: closing the response stream cancels the call (its handler is aborted) and leaves nothing behind', async () => {
    const checker = new HttpMcp(url);
    const baseline = await checker.stats(true);
    const before = baseline.waits.aborted as number;
    const message = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { ...waitCall(30_000, 'w'), _meta: { ...statelessMeta(), progressToken: 'w' } },
    };
    expect(await postAndVanish(url, checker.headers(true, 'tools/call', 'wait'), message)).toBe(200);
    await eventually(
      'the abandoned call aborted',
      async () => (await checker.stats(true)).waits.aborted === before + 1,
    );
    const stats = await checker.stats(true);
    expect(stats.waits.running).toBe(0);
    expect(stats.sessions).toBe(baseline.sessions);
    checker.close();
  });
});

describe('WebSocket: the socket is terminated mid-call', () => {
  let server: ChildServer;
  let url: string;
  beforeAll(async () => {
    ({ server, url } = await startFixture({ transport: 'ws' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(['session', 'stateless'] as const)(
    '%s era: the handler is aborted, the socket forgotten, and the next client served',
    async (era) => {
      const checker = await WsRpcClient.open(url);
      const stateless = era === 'stateless';
      if (!stateless) await checker.initialize();
      const before = (await checker.stats(stateless)).waits.aborted as number;

      const gone = await WsRpcClient.open(url);
      if (!stateless) await gone.initialize();
      const params = stateless
        ? { ...waitCall(30_000, 'w'), _meta: { ...statelessMeta(), progressToken: 'w' } }
        : waitCall(30_000, 'w');
      void gone.request('tools/call', params).catch(() => {});
      await gone.until((m) => m.method === 'notifications/progress');
      gone.socket.terminate();

      await eventually(
        'the call aborted',
        async () => (await checker.stats(stateless)).waits.aborted === before + 1,
      );
      const stats = await checker.stats(stateless);
      expect(stats.connections).toBe(1);
      expect(stats.waits.running).toBe(0);

      const next = await WsRpcClient.open(url);
      if (!stateless) await next.initialize();
      const answer = stateless
        ? await next.request('server/discover', { _meta: statelessMeta() })
        : await next.request('ping');
      expect(answer.result).toBeDefined();
      await next.close();
      await checker.close();
    },
  );
});
