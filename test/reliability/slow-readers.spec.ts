// Slow readers: a client that stops reading while the server logs a lot. The server's RSS may
// grow by the transport's per-stream output cap (`maxQueuedBytes`, set here to 8 MiB) plus slack,
// never by what the handler produced (160 MiB here): past the cap the stream is closed.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { type ChildServer, startFixture } from './support/child-server';
import { HttpMcp } from './support/http-session';
import { emptyFigures, recordFigures } from './support/results';
import { StdioRpcClient, WsRpcClient } from './support/rpc-clients';

const MIB = 1024 * 1024;
const CAP = 8 * MIB;
/**
 * Slack over the cap: V8's young generation (up to 32 MiB of short-lived JSON strings, one per
 * message, before a scavenge frees them), the socket's and the pipe's own buffers, and the
 * allocator's retention of freed pages. Unbounded buffering of the flood is 160 MiB or more.
 */
const SLACK = 56 * MIB;
const FLOOD = { count: 2560, size: 64 * 1024 };
const ENV = { REL_MAX_QUEUED_BYTES: String(CAP) };

/**
 * Starts the flood with `begin`, then samples the server's RSS until the flood is over (the
 * tool reports it on stderr) or the process ends; returns the growth over the baseline in bytes.
 */
async function measureFlood(
  name: string,
  transport: 'stdio' | 'http' | 'ws',
  server: ChildServer,
  begin: () => void,
): Promise<number> {
  const baseline = server.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    if (!server.exit) peak = Math.max(peak, server.rss());
  }, 100);
  try {
    const done = server
      .waitForLine(/^REL-FLOOD done before=(\d+) peak=(\d+)/, 60_000)
      .then((match) => Number(match[2]));
    begin();
    const reported = await Promise.race([done, server.exited.then(() => 0)]);
    done.catch(() => {}); // the process may end the flood by exiting, which also ends the wait
    peak = Math.max(peak, reported);
  } finally {
    clearInterval(sampler);
  }
  const figures = emptyFigures(`slow reader ${name}`, transport);
  figures.inputs = 1;
  figures.messages = FLOOD.count;
  figures.rssPeakMb = peak / MIB;
  figures.rssGrowthMb = (peak - baseline) / MIB;
  if (peak - baseline > CAP + SLACK) figures.violations++;
  if (peak - baseline > CAP + SLACK)
    figures.examples.push(
      `RSS grew ${(figures.rssGrowthMb ?? 0).toFixed(1)} MB, bound ${(CAP + SLACK) / MIB} MB`,
    );
  recordFigures(figures);
  return peak - baseline;
}

const floodCall = (id: string | number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'flood', arguments: FLOOD },
});

it('stdio: a client that stops reading stdout bounds the server by the cap', async () => {
  const { server } = await startFixture({ transport: 'stdio', env: ENV });
  try {
    const client = new StdioRpcClient(server);
    await client.initialize();
    server.child.stdout.pause();
    const growth = await measureFlood('stdio', 'stdio', server, () =>
      server.child.stdin.write(`${JSON.stringify(floodCall('flood'))}\n`),
    );
    expect(growth).toBeLessThanOrEqual(CAP + SLACK);
  } finally {
    await server.stop();
  }
});

it('Streamable HTTP: a POST whose SSE answer is not read bounds the server by the cap, and the server serves on', async () => {
  const { server, url } = await startFixture({ transport: 'http', env: ENV });
  const checker = new HttpMcp(new URL(url));
  let socket: Socket | undefined;
  try {
    const reader = new HttpMcp(new URL(url));
    await reader.initialize();
    const body = Buffer.from(JSON.stringify(floodCall('flood')));
    const head = Object.entries({ ...reader.headers(false), 'content-length': String(body.length) }).map(
      ([k, v]) => `${k}: ${v}\r\n`,
    );
    const growth = await measureFlood('http sse', 'http', server, () => {
      const target = new URL(url);
      socket = connect(Number(target.port), target.hostname);
      socket.pause(); // never read: the answer backs up in the server
      socket.write(`POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\n${head.join('')}\r\n`);
      socket.write(body);
    });
    expect(growth).toBeLessThanOrEqual(CAP + SLACK);
    socket?.destroy();
    await checker.initialize();
    expect((await checker.request('ping')).result).toEqual({});
    reader.close();
  } finally {
    socket?.destroy();
    checker.close();
    await server.stop();
  }
});

/** A client frame (RFC 6455 §5.2: text, FIN, masked). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length =
    payload.length < 126
      ? Buffer.from([0x80 | payload.length])
      : payload.length < 65_536
        ? Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | 127]),
            Buffer.alloc(4),
            Buffer.from([
              payload.length >>> 24,
              (payload.length >> 16) & 0xff,
              (payload.length >> 8) & 0xff,
              payload.length & 0xff,
            ]),
          ]);
  for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
  return Buffer.concat([Buffer.from([0x81]), length, mask, payload]);
}

it('WebSocket: a socket that is not read bounds the server by maxQueuedBytes (closed 1008), and the server serves on', async () => {
  const { server, url } = await startFixture({ transport: 'ws', env: ENV });
  let socket: Socket | undefined;
  try {
    const target = new URL(url);
    const growth = await measureFlood('ws', 'ws', server, () => {
      socket = connect(Number(target.port), target.hostname);
      socket.pause(); // the upgrade answer and everything after it stay unread
      const init = {
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'slow', version: '1.0.0' },
        },
      };
      socket.write(
        [
          `GET ${target.pathname} HTTP/1.1`,
          `Host: ${target.host}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Protocol: mcp',
          '',
          '',
        ].join('\r\n'),
      );
      socket.write(
        Buffer.concat([
          textFrame(JSON.stringify(init)),
          textFrame('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
          textFrame(JSON.stringify(floodCall('flood'))),
        ]),
      );
    });
    expect(growth).toBeLessThanOrEqual(CAP + SLACK);
    socket?.destroy();
    const next = await WsRpcClient.open(url);
    await next.initialize();
    expect((await next.request('ping')).result).toEqual({});
    await next.close();
  } finally {
    socket?.destroy();
    await server.stop();
  }
});
