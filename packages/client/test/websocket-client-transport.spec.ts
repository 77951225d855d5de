import type { AddressInfo } from 'node:net';
import type { TransportSink } from '@gantry/protocol';
import WebSocket, { WebSocketServer } from 'ws';
import { WebSocketClientTransport } from '../src';

function recordingSink() {
  const messages: unknown[] = [];
  let resolveClosed!: (error?: Error) => void;
  const closed = new Promise<Error | undefined>((resolve) => {
    resolveClosed = resolve;
  });
  const sink: TransportSink = {
    message: (value) => messages.push(value),
    invalid: () => {},
    closed: (error) => resolveClosed(error),
  };
  return { sink, messages, closed };
}

describe('WebSocketClientTransport', () => {
  let wss: WebSocketServer;
  let url: string;
  let accepted: Promise<{ socket: WebSocket; protocol: string; frames: { text: string; binary: boolean }[] }>;

  beforeEach(async () => {
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
        socket.on('message', (data, binary) =>
          frames.push({ text: (data as Buffer).toString('utf8'), binary }),
        );
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
    const { sink, messages } = recordingSink();
    await transport.start(sink);
    const server = await accepted;
    expect(server.protocol).toBe('mcp');
    expect(transport.protocol).toBe('mcp');

    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await transport.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    server.socket.send('{"jsonrpc":"2.0","id":1,"result":{}}');
    for (let i = 0; i < 50 && (server.frames.length < 2 || messages.length < 1); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
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
    const { sink, messages } = recordingSink();
    await transport.start(sink);
    const server = await accepted;
    server.socket.send('not json');
    server.socket.send('{"jsonrpc":"2.0","method":"notifications/message","params":{}}');
    for (let i = 0; i < 50 && messages.length < 1; i++) await new Promise((r) => setTimeout(r, 5));
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
