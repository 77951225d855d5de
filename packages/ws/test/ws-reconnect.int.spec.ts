// Gantry's WebSocket client transport against Gantry's server when the server restarts: what
// was in flight fails, the socket is reopened, the session is started again through the hook
// the Client installs (setSessionLostHandler), then onReconnect runs. Driven at the Peer level,
// as the Client drives it.
import { WebSocketClientTransport } from '@gantry/client';
import type { GantryApplication } from '@gantry/core';
import { McpError, Peer, type Result } from '@gantry/protocol';
import { websocket } from '../src';
import { createFlowApp, type FlowProbe } from './fixtures/flow-app';

interface Server {
  app: GantryApplication;
  probe: FlowProbe;
  port: number;
}

async function startServer(port = 0): Promise<Server> {
  // shutdownGraceMs 0: the server goes away at once, as a crashed or killed one would, so the
  // call in flight is lost (a drain would deliver its answer).
  const { app, probe } = await createFlowApp({ shutdownGraceMs: 0 });
  const listener = websocket({ port });
  await app.listen(listener);
  return { app, probe, port: listener.port };
}

/** The session-era handshake, as the Client performs it. */
async function handshake(peer: Peer): Promise<void> {
  await peer.request({
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'reconnect', version: '1' },
    },
  });
  await peer.notify({ method: 'notifications/initialized' });
}

function callTool(peer: Peer, name: string, args: object) {
  return peer.request<Result & { content: { text: string }[] }>({
    method: 'tools/call',
    params: { name, arguments: args as Record<string, unknown> },
  });
}

describe('WebSocketClientTransport reconnecting to a Gantry server', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.probe.releaseAll();
      await server.app.close();
    }
  });

  it('fails what was in flight, reopens after a restart, re-initializes, then calls onReconnect', async () => {
    const first = await startServer();
    servers.push(first);
    const events: string[] = [];
    let reconnected!: () => void;
    const onReconnected = new Promise<void>((resolve) => {
      reconnected = resolve;
    });
    const transport = new WebSocketClientTransport({
      url: `ws://127.0.0.1:${first.port}/mcp`,
      reconnect: { initialDelayMs: 20, maxDelayMs: 100, maxAttempts: 1000 },
      onReconnect: () => {
        events.push('onReconnect');
        reconnected();
      },
    });
    const closes: (Error | undefined)[] = [];
    const peer = new Peer({ onClose: (error) => closes.push(error) });
    await peer.connect(transport);
    await handshake(peer);
    transport.setSessionLostHandler(async () => {
      events.push('session lost: initialize again');
      await handshake(peer);
    });

    // A call in flight when the server goes away fails; the connection itself lives on.
    const inFlight = callTool(peer, 'hold', { n: 1 });
    await first.probe.until(() => first.probe.started === 1);
    await first.app.close();
    // Only now does the handler (which ignores its signal) finish: its answer has no connection.
    first.probe.releaseAll();
    servers.splice(servers.indexOf(first), 1);
    const lost = await inFlight.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(McpError);
    expect((lost as McpError).code).toBe(-32603);
    expect((lost as McpError).message).toMatch(
      /^Connection lost before the answer arrived \(WebSocket closed with code 1001 \(Server shutting down\)\)/,
    );
    expect(peer.isConnected).toBe(true);
    expect(transport.isReconnecting).toBe(true);

    // Sent while the server is down: it waits for the new session.
    const during = callTool(peer, 'blob', { kib: 1 });
    const second = await startServer(first.port);
    servers.push(second);
    await onReconnected;
    expect((await during).content[0].text).toHaveLength(1024);
    expect(second.probe.blobs).toBe(1);
    expect(events).toEqual(['session lost: initialize again', 'onReconnect']);
    expect(transport.reconnectCount).toBe(1);
    expect(transport.isReconnecting).toBe(false);
    expect(closes).toEqual([]);

    await peer.close();
    expect(closes).toEqual([undefined]);
  });

  it('gives up after maxAttempts and ends the connection with an error saying so', async () => {
    const server = await startServer();
    const transport = new WebSocketClientTransport({
      url: `ws://127.0.0.1:${server.port}/mcp`,
      reconnect: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 3 },
    });
    let closed!: (error?: Error) => void;
    const ended = new Promise<Error | undefined>((resolve) => {
      closed = resolve;
    });
    const peer = new Peer({ onClose: (error) => closed(error) });
    await peer.connect(transport);
    await handshake(peer);
    await server.app.close();
    const error = await ended;
    expect(error?.message).toMatch(
      /^WebSocket closed with code 1001 \(Server shutting down\); reconnecting failed after 3 attempts: Cannot open WebSocket ws:\/\/127\.0\.0\.1:\d+\/mcp: connect ECONNREFUSED/,
    );
    await expect(peer.request({ method: 'ping' })).rejects.toThrow(/Not connected/);
  });

  it('stops at once when the server refuses the new upgrade with a client error', async () => {
    // The server lets the first socket in, and refuses every later one.
    let admitted = 0;
    // shutdownGraceMs 0: the server goes away at once, as a crashed or killed one would, so the
    // call in flight is lost (a drain would deliver its answer).
    const { app, probe } = await createFlowApp({ shutdownGraceMs: 0 });
    const listener = websocket({
      port: 0,
      authenticate: () => {
        if (admitted++ === 0) return undefined;
        throw new Error('Missing bearer token');
      },
    });
    await app.listen(listener);
    servers.push({ app, probe, port: listener.port });
    let sessionLost = 0;
    const transport = new WebSocketClientTransport({
      url: listener.url,
      reconnect: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 1000 },
    });
    transport.setSessionLostHandler(async () => {
      sessionLost++;
    });
    let closed!: (error?: Error) => void;
    const ended = new Promise<Error | undefined>((resolve) => {
      closed = resolve;
    });
    const peer = new Peer({ onClose: (error) => closed(error) });
    await peer.connect(transport);
    const [serverSide] = listener.connections;
    await serverSide.close(1001, 'Restarting');
    expect((await ended)?.message).toBe(
      'WebSocket closed with code 1001 (Restarting); reconnecting failed after 1 attempt: WebSocket upgrade refused with HTTP 401: Missing bearer token',
    );
    expect(admitted).toBe(2);
    expect(sessionLost).toBe(0);
  });
});
