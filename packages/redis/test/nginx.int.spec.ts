// Gantry nodes behind a real nginx (Debian's package), configured by nginxConfig(), the
// configuration docs/deploy.md recommends: round robin with no stickiness, SSE passed through
// unbuffered, a dead node skipped, a POST that reached a node never sent to another, the MCP
// headers unchanged, and a real Gantry node answering through it.
import 'reflect-metadata';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { http } from '@gantry/fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { type Nginx, startNginx } from './support/nginx';

/** What an upstream saw of one request. */
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Upstream {
  readonly name: string;
  readonly url: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

type Handler = (seen: Seen, res: ServerResponse) => void;

const upstreams: Upstream[] = [];
const proxies: Nginx[] = [];

/** A plain node:http server on a free loopback port; by default it answers with its name. */
async function upstream(name: string, handle?: Handler): Promise<Upstream> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      if (handle) return handle(entry, res);
      res.setHeader('mcp-session-id', `from-${name}`);
      res.setHeader('content-type', 'text/plain');
      res.end(name);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const node: Upstream = {
    name,
    url: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      if (!server.listening) return;
      const closed = once(server, 'close');
      server.close();
      // nginx keeps idle connections to its upstreams (keepalive): end them too.
      server.closeAllConnections();
      await closed;
    },
  };
  upstreams.push(node);
  return node;
}

async function nginxFor(nodes: readonly Upstream[]): Promise<Nginx> {
  const nginx = await startNginx({ upstreams: nodes.map((node) => node.url) });
  proxies.push(nginx);
  return nginx;
}

/** The name each answer came from, in order (each request on its own, one after another). */
async function namesOf(url: string, count: number, init: RequestInit = {}): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(url, init);
    expect(response.status).toBe(200);
    names.push(await response.text());
  }
  return names;
}

function tally(names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** A request with a Host header of our choosing (fetch may not set Host). */
function withHost(url: string, host: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

afterEach(async () => {
  for (const nginx of proxies.splice(0)) await nginx.stop();
  for (const node of upstreams.splice(0)) await node.close();
});

describe('nginx in front of three nodes', () => {
  it('sends requests round robin, with no stickiness even for one Mcp-Session-Id', async () => {
    const nodes = [await upstream('a'), await upstream('b'), await upstream('c')];
    const nginx = await nginxFor(nodes);
    const names = await namesOf(`${nginx.url}/mcp`, 6, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': 'one-session' },
      body: '{}',
    });
    // One worker, equal weights: nginx's round robin visits a, b, c in turn.
    expect(tally(names)).toEqual({ a: 2, b: 2, c: 2 });
    for (const node of nodes) {
      expect(node.seen.map((seen) => seen.headers['mcp-session-id'])).toEqual(['one-session', 'one-session']);
    }
  });

  it('passes the MCP headers both ways unchanged, and the client Host and forwarding headers', async () => {
    const node = await upstream('a');
    const nginx = await nginxFor([node]);
    // MCP 2025-11-25, Basic › Transports › Streamable HTTP: Mcp-Session-Id, MCP-Protocol-Version,
    // Last-Event-ID; and the 2026-07-28 request headers Mcp-Method, Mcp-Name, Mcp-Param-*.
    const sent = {
      'mcp-session-id': 'f3b1c2d4-0e9a-4b7c-8d6e-5a4b3c2d1e0f',
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': 'stream-7.42',
      'mcp-method': 'tools/call',
      'mcp-name': 'search_notes',
      'mcp-param-region': 'eu-west',
    };
    const response = await fetch(`${nginx.url}/mcp?x=1`, {
      method: 'POST',
      headers: { ...sent, 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBe('from-a');
    const [seen] = node.seen;
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/mcp?x=1',
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    for (const [name, value] of Object.entries(sent))
      expect([name, seen.headers[name]]).toEqual([name, value]);
    // The Host the client addressed (nginx's own loopback address), not the upstream's.
    expect(seen.headers.host).toBe(`127.0.0.1:${nginx.port}`);
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    // Keep-alive to the upstream: nginx sends HTTP/1.1 without `Connection: close`.
    expect(seen.headers.connection).toBeUndefined();
  });

  it('passes an SSE event on before the upstream ends the response (no buffering)', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let ended = false;
    const node = await upstream('stream', (_seen, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('id: 1\ndata: {"first":true}\n\n');
      void released.then(() => {
        ended = true;
        res.end('id: 2\ndata: {"last":true}\n\n');
      });
    });
    const nginx = await nginxFor([node]);
    const response = await fetch(`${nginx.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('id: 1\ndata: {"first":true}\n\n');
    expect(ended).toBe(false);
    release();
    let rest = '';
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      rest += decoder.decode(chunk.value, { stream: true });
    }
    expect(rest).toBe('id: 2\ndata: {"last":true}\n\n');
    expect(ended).toBe(true);
  });

  it('skips a dead node: GETs and POSTs still succeed on the others', async () => {
    const nodes = [await upstream('a'), await upstream('b'), await upstream('c')];
    const nginx = await nginxFor(nodes);
    expect(tally(await namesOf(`${nginx.url}/mcp`, 3))).toEqual({ a: 1, b: 1, c: 1 });
    await nodes[1].close();
    const names = [
      ...(await namesOf(`${nginx.url}/mcp`, 3)),
      ...(await namesOf(`${nginx.url}/mcp`, 3, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
      })),
    ];
    expect(new Set(names)).toEqual(new Set(['a', 'c']));
    const posts = [...nodes[0].seen, ...nodes[2].seen].filter((seen) => seen.method === 'POST');
    expect(posts.map((seen) => seen.body)).toEqual(
      Array(3).fill('{"jsonrpc":"2.0","id":2,"method":"tools/list"}'),
    );
  });

  it('never sends a POST that reached a node to another one; a GET it retries', async () => {
    // A node that reads the request, then drops the connection without answering.
    const dropper = await upstream('dropper', (_seen, res) => res.socket?.destroy());
    const good = await upstream('good');
    const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };

    let nginx = await nginxFor([dropper, good]);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${nginx.url}/mcp`, post);
      statuses.push(response.status);
      await response.text();
    }
    // Round robin gave each node one POST: the dropped one is a 502, not a second run on `good`.
    expect(statuses.sort()).toEqual([200, 502]);
    expect(dropper.seen.map((seen) => seen.method)).toEqual(['POST']);
    expect(good.seen.map((seen) => seen.method)).toEqual(['POST']);

    await nginx.stop();
    nginx = await nginxFor([dropper, good]);
    expect(await namesOf(`${nginx.url}/mcp`, 2)).toEqual(['good', 'good']);
    expect(dropper.seen.map((seen) => seen.method)).toEqual(['POST', 'GET']);
  });

  it('reloads with other upstreams', async () => {
    const nodes = [await upstream('a'), await upstream('b'), await upstream('c')];
    const nginx = await nginxFor(nodes.slice(0, 2));
    expect(tally(await namesOf(`${nginx.url}/mcp`, 2))).toEqual({ a: 1, b: 1 });
    await nginx.reload([nodes[2].url]);
    expect(await namesOf(`${nginx.url}/mcp`, 3)).toEqual(['c', 'c', 'c']);
  });

  it('leaves no nginx process after stop()', async () => {
    const node = await upstream('a');
    const nginx = await startNginx({ upstreams: [node.url] });
    const pids = [nginx.pid, ...nginx.workerPids()];
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(() => process.kill(pid, 0)).not.toThrow();
    await nginx.stop();
    for (const pid of pids)
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});

describe('a Gantry node behind nginx', () => {
  it('answers initialize, tools/list and tools/call through nginx (its Host check passes)', async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {} });
    await app.listen(listener);
    try {
      const node = new URL(listener.url as string).origin;
      const nginx = await startNginx({ upstreams: [node] });
      proxies.push(nginx);
      const client = new Client({ name: 'through-nginx', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`)));
      expect(client.getServerVersion()).toMatchObject({ name: expect.any(String) });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      const echoed = await client.callTool({ name: 'echo', arguments: { text: 'via nginx' } });
      expect(echoed.content).toEqual([{ type: 'text', text: 'via nginx' }]);
      await client.close();

      // nginx forwards the client's Host: on the node's loopback bind only loopback names pass,
      // so a public name needs the node's `allowedHosts` (docs/deploy.md).
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      expect(await withHost(`${nginx.url}/mcp`, 'mcp.example.com', initialize)).toBe(403);
      expect(await withHost(`${nginx.url}/mcp`, `127.0.0.1:${nginx.port}`, initialize)).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('refuses the bodies the node refuses: client_max_body_size is its default bodyLimit', async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {} });
    await app.listen(listener);
    try {
      const nginx = await startNginx({ upstreams: [new URL(listener.url as string).origin] });
      proxies.push(nginx);
      /** A ping of exactly `bytes` bytes. */
      const ping = (bytes: number) => {
        const empty = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } });
        return JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'ping',
          params: { pad: 'x'.repeat(bytes - empty.length) },
        });
      };
      const post = (url: string, body: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body,
        });
      const limit = 4 * 1024 * 1024;
      // One byte over: the node itself refuses it, and so does nginx before it reaches a node.
      expect((await post(listener.url as string, ping(limit + 1))).status).toBe(413);
      const refused = await post(`${nginx.url}/mcp`, ping(limit + 1));
      expect(refused.status).toBe(413);
      // nginx's own page, not the node's JSON-RPC error passed through.
      expect(refused.headers.get('content-type')).toBe('text/html');
      expect(await refused.text()).toContain('413 Request Entity Too Large');
      // At the limit both let it through: the node answers it.
      const passed = await post(`${nginx.url}/mcp`, ping(limit));
      expect(passed.status).not.toBe(413);
      expect(passed.headers.get('content-type')).toMatch(/^(application\/json|text\/event-stream)/);
      await passed.body?.cancel();
    } finally {
      await app.close();
    }
  });

  it('passes a public Host the node lists in allowedHosts', async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, allowedHosts: ['mcp.example.com'], onListening: () => {} });
    await app.listen(listener);
    try {
      const nginx = await startNginx({ upstreams: [new URL(listener.url as string).origin] });
      proxies.push(nginx);
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      expect(await withHost(`${nginx.url}/mcp`, 'mcp.example.com', initialize)).toBe(200);
    } finally {
      await app.close();
    }
  });
});
