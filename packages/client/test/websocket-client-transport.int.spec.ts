import type { AddressInfo } from 'node:net';
import { Peer, type TransportSink } from '@gantry/protocol';
import { Changes, eventually } from '@gantry/testing';
import WebSocket, { WebSocketServer } from 'ws';
import { WebSocketClientTransport } from '../src';

/** Records what the transport delivers; `changes`, when given, hears of each message. */
function recordingSink(changes?: Changes) {
  const messages: unknown[] = [];
  let resolveClosed!: (error?: Error) => void;
  const closed = new Promise<Error | undefined>((resolve) => {
    resolveClosed = resolve;
  });
  const sink: TransportSink = {
    message: (value) => {
      messages.push(value);
      changes?.changed();
    },
    invalid: () => {},
    closed: (error) => resolveClosed(error),
  };
  return { sink, messages, closed };
}

describe('WebSocketClientTransport', () => {
  let wss: WebSocketServer;
  let url: string;
  let accepted: Promise<{ socket: WebSocket; protocol: string; frames: { text: string; binary: boolean }[] }>;
  /** Hears of every frame the server receives and every message a recording sink gets. */
  let arrivals: Changes;

  beforeEach(async () => {
    arrivals = new Changes();
    wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
    });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`;
    accepted = new Promise((resolve) =>
      wss.once('connection', (socket) => {
        const frames: { text: string; binary: boolean }[] = [];
        socket.on('message', (data, binary) => {
          frames.push({ text: (data as Buffer).toString('utf8'), binary });
          arrivals.changed();
        });
        resolve({ socket, protocol: socket.protocol, frames });
      }),
    );
  });
  afterEach(async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
  });

  it('offers subprotocol mcp and exchanges one JSON message per text frame', async () => {
    const transport = new WebSocketClientTransport({ url, protocols: ['mcp'] });
    const { sink, messages } = recordingSink(arrivals);
    await transport.start(sink);
    const server = await accepted;
    expect(server.protocol).toBe('mcp');
    expect(transport.protocol).toBe('mcp');

    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await transport.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    server.socket.send('{"jsonrpc":"2.0","id":1,"result":{}}');
    await arrivals.until(() => server.frames.length >= 2 && messages.length >= 1, {
      what: 'two frames on the server and one message on the client',
    });
    expect(server.frames).toEqual([
      { text: '{"jsonrpc":"2.0","id":1,"method":"ping"}', binary: false },
      { text: '[{"jsonrpc":"2.0","method":"notifications/initialized"}]', binary: false },
    ]);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    await transport.close();
  });

  it('drops frames that are not JSON and reports them', async () => {
    const invalid: string[] = [];
    const transport = new WebSocketClientTransport({ url, onInvalidMessage: (e) => invalid.push(e.message) });
    const { sink, messages } = recordingSink(arrivals);
    await transport.start(sink);
    const server = await accepted;
    server.socket.send('not json');
    server.socket.send('{"jsonrpc":"2.0","method":"notifications/message","params":{}}');
    // Frames arrive in order: once the notification is delivered, the bad frame was reported.
    await arrivals.until(() => messages.length >= 1, { what: 'the notification' });
    expect(invalid).toHaveLength(1);
    expect(messages).toHaveLength(1);
    await transport.close();
  });

  it('closes with 1000 and reports a clean close', async () => {
    const transport = new WebSocketClientTransport({ url });
    const { sink, closed } = recordingSink();
    await transport.start(sink);
    const server = await accepted;
    const serverSaw = new Promise<number>((resolve) => server.socket.once('close', (code) => resolve(code)));
    await transport.close();
    expect(await closed).toBeUndefined();
    expect(await serverSaw).toBe(1000);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/Not connected/);
  });

  it('reports a close by the server as an error naming the code', async () => {
    const transport = new WebSocketClientTransport({ url });
    const { sink, closed } = recordingSink();
    await transport.start(sink);
    (await accepted).socket.close(1001, 'going away');
    expect((await closed)?.message).toMatch(/1001 \(going away\)/);
  });

  it('rejects start when the upgrade is refused or nothing listens', async () => {
    const refused = new WebSocketClientTransport({ url, protocols: ['other'] });
    await expect(refused.start(recordingSink().sink)).rejects.toThrow(/HTTP 400|subprotocol/);
    await new Promise((resolve) => wss.close(resolve));
    const nobody = new WebSocketClientTransport({ url: 'ws://127.0.0.1:1/mcp' });
    await expect(nobody.start(recordingSink().sink)).rejects.toThrow(/Cannot open WebSocket/);
  });
});

describe('WebSocketClientTransport reconnecting', () => {
  let wss: WebSocketServer;
  let url: string;
  /** Every accepted socket, with the upgrade's Authorization header and the frames it received. */
  const sockets: { socket: WebSocket; authorization?: string; frames: string[] }[] = [];
  let onConnection: () => void = () => {};
  /** Hears of every frame a server socket receives, and of the test peer's request and abort. */
  let changes: Changes;

  beforeEach(async () => {
    sockets.length = 0;
    changes = new Changes();
    wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
    });
    wss.on('connection', (socket, request) => {
      const entry = { socket, authorization: request.headers.authorization, frames: [] as string[] };
      socket.on('message', (data) => {
        entry.frames.push((data as Buffer).toString('utf8'));
        changes.changed();
      });
      sockets.push(entry);
      onConnection();
    });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`;
  });
  afterEach(async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
  });

  function connections(count: number): Promise<void> {
    return new Promise((resolve) => {
      onConnection = () => {
        if (sockets.length >= count) resolve();
      };
      onConnection();
    });
  }

  it("cancels the server's requests in flight, and never answers them on the new socket", async () => {
    let tokens = 0;
    const transport = new WebSocketClientTransport({
      url,
      headers: () => ({ Authorization: `Bearer token-${++tokens}` }),
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    let received = false;
    let aborted = false;
    const peer = new Peer({
      onRequest: (_request, inbound) =>
        new Promise((resolve) => {
          received = true;
          changes.changed();
          inbound.signal.addEventListener('abort', () => {
            aborted = true;
            changes.changed();
            resolve({ late: true });
          });
        }),
    });
    await peer.connect(transport);
    await connections(1);
    sockets[0].socket.send('{"jsonrpc":"2.0","id":0,"method":"roots/list"}');
    await changes.until(() => received, { what: 'roots/list to reach the peer' });
    sockets[0].socket.terminate();
    await connections(2);
    await changes.until(() => aborted, { what: 'the request in flight to be aborted' });
    // A round trip on the new socket: anything sent before it has arrived by then.
    const pong = peer.request({ method: 'ping' });
    await changes.until(() => sockets[1].frames.length === 1, { what: 'the ping on the new socket' });
    sockets[1].socket.send(`{"jsonrpc":"2.0","id":${JSON.parse(sockets[1].frames[0]).id},"result":{}}`);
    await pong;
    expect(sockets[1].frames.map((frame) => JSON.parse(frame).method)).toEqual(['ping']);
    expect(sockets.map((s) => s.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(transport.reconnectCount).toBe(1);
    await peer.close();
  });

  it('does not reconnect after the server closes with 1000', async () => {
    const transport = new WebSocketClientTransport({ url, reconnect: true });
    const { sink, closed } = recordingSink();
    await transport.start(sink);
    await connections(1);
    sockets[0].socket.close(1000, 'done');
    expect(await closed).toBeUndefined();
    expect(transport.reconnectCount).toBe(0);
    expect(sockets).toHaveLength(1);
  });

  it('stops reconnecting when closed', async () => {
    const transport = new WebSocketClientTransport({ url, reconnect: { initialDelayMs: 60_000 } });
    const { sink, closed } = recordingSink();
    await transport.start(sink);
    await connections(1);
    sockets[0].socket.terminate();
    // The transport's state, which it announces to nobody before the (60 s) retry: polled.
    await eventually(() => transport.isReconnecting, { what: 'the transport to start reconnecting' });
    const waiting = transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await transport.close();
    expect(await closed).toBeUndefined();
    await expect(waiting).rejects.toThrow('Not connected: the WebSocket closed and could not be reopened');
    expect(sockets).toHaveLength(1);
  });

  it('refuses bad reconnect options at once', () => {
    expect(() => new WebSocketClientTransport({ url, reconnect: { maxAttempts: 0 } })).toThrow(
      'WebSocketClientTransport: reconnect.maxAttempts must be a whole number ≥ 1 (got 0)',
    );
    expect(() => new WebSocketClientTransport({ url, reconnect: { factor: 0.5 } })).toThrow(/factor/);
    expect(() => new WebSocketClientTransport({ url, reconnect: { initialDelayMs: -1 } })).toThrow(
      /initialDelayMs/,
    );
  });
});
