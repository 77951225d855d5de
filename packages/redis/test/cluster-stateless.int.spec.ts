// Three Gantry nodes of one cluster (sessions and the bus in a real redis-server) in the eras
// and transports cluster-sdk.int.spec.ts does not cover: the official v2 client pinned to
// 2026-07-28 through a real nginx (input_required retries and subscriptions/listen), a Gantry
// client over WebSocket, and the official v1 client over the legacy 2024-11-05 HTTP+SSE
// transport. The last two connect to one node directly: such a connection lives on one node,
// and changes made on the others must still reach it, once.
import type { AddressInfo } from 'node:net';
import { Client as GantryClient, WebSocketClientTransport } from '@gantry/client';
import { Changes } from '@gantry/testing';
import { attachWebSocket } from '@gantry/ws';
import { StreamableHTTPClientTransport, Client as V2Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  type JSONRPCMessage,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type ClusterNode, startNodes } from './support/cluster-nodes';
import { type Nginx, startNginx } from './support/nginx';
import { type RedisServer, startRedisServer } from './support/redis-server';

const text = (result: any): string => result.content[0].text;
const README = 'docs://readme';
/** Updated last: once its notification arrived, every earlier one would have too. */
const SENTINEL = 'docs://logo';

let redis: RedisServer;
let nodes: ClusterNode[];
let nginx: Nginx;

beforeAll(async () => {
  redis = await startRedisServer();
  nodes = await startNodes(3, redis.url, { legacySse: true });
  for (const node of nodes) attachWebSocket(node.app, { server: node.fastify.server, path: '/mcp' });
  nginx = await startNginx({ upstreams: nodes.map((node) => node.url) });
});

afterAll(async () => {
  await nginx?.stop();
  for (const node of nodes ?? []) await node.close();
  await redis?.stop();
});

/** Disables and re-enables `weather` on `node`: two list changes, each awaited by `seen`. */
async function toggleWeather(node: ClusterNode, seen: (count: number) => Promise<void>, base: number) {
  node.app.registry.tools.disable('weather');
  await seen(base + 1);
  node.app.registry.tools.enable('weather');
  await seen(base + 2);
}

describe('the official v2 client pinned to 2026-07-28, through nginx to three nodes', () => {
  let client: V2Client;
  const elicited: string[] = [];

  beforeAll(async () => {
    client = new V2Client(
      { name: 'v2-cluster', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} }, sampling: {} },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      elicited.push(request.params.message);
      return { action: 'accept', content: { name: 'Grace', colour: 'blue', subscribe: true } };
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const last = request.params.messages.at(-1)?.content;
      const asked = last && !Array.isArray(last) && last.type === 'text' ? last.text : '?';
      return {
        role: 'assistant',
        model: 'v2-cluster-model',
        content: { type: 'text', text: `re: ${asked}` },
      };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('discovers the server: 2026-07-28, no session', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const discovered = await client.discover();
    expect(discovered.supportedVersions).toContain('2026-07-28');
    expect(discovered.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true },
    });
    expect((await client.listTools(undefined, { cacheMode: 'refresh' })).tools).toHaveLength(15);
  });

  it('answers input_required rounds on other nodes than the one that asked', async () => {
    // MCP 2026-07-28 (Server Features › Multi Round-Trip Requests): the server answers
    // `input_required` with a `requestState`; the retry carrying it may reach any server.
    const whereServed = () =>
      nodes.flatMap((node) =>
        node.posted
          .filter((method) => method.startsWith('tools/call'))
          .map((method) => ({ node: node.name, method })),
      );
    const rounds: { first: string; retry: string }[] = [];
    for (let i = 0; i < 3; i++) {
      for (const node of nodes) node.posted.length = 0;
      expect(text(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe(
        'hello Grace (blue, subscribe=true, NameForm)',
      );
      const served = whereServed();
      expect(served.map(({ method }) => method).sort()).toEqual(['tools/call', 'tools/call (retry)']);
      const first = served.find(({ method }) => method === 'tools/call')?.node as string;
      const retry = served.find(({ method }) => method === 'tools/call (retry)')?.node as string;
      rounds.push({ first, retry });
      for (const node of nodes) node.posted.length = 0;
      expect(text(await client.callTool({ name: 'sample_joke', arguments: { topic: 'Redis' } }))).toBe(
        'v2-cluster-model: re: Tell a joke about Redis',
      );
      const sampled = whereServed();
      expect(sampled).toHaveLength(2);
      rounds.push({
        first: sampled.find(({ method }) => method === 'tools/call')?.node as string,
        retry: sampled.find(({ method }) => method === 'tools/call (retry)')?.node as string,
      });
    }
    expect(elicited).toEqual(['Who are you?', 'Who are you?', 'Who are you?']);
    for (const { first, retry } of rounds) {
      expect(first).toMatch(/^node[123]$/);
      expect(retry).toMatch(/^node[123]$/);
      expect(retry).not.toBe(first);
    }
    // Every node answered some retry: the requestState is the cluster's, not one node's.
    expect(new Set(rounds.map(({ retry }) => retry)).size).toBe(3);
  });

  it('delivers updates and list changes made on every node to one subscriptions/listen stream, once each', async () => {
    const updates: string[] = [];
    let listChanges = 0;
    const changes = new Changes();
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params.uri);
      changes.changed();
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanges++;
      changes.changed();
    });
    // MCP 2026-07-28 (Basic › Subscriptions): subscriptions/listen replaces the GET stream and
    // resources/subscribe; the stream is one POST, held by whichever node nginx chose.
    const subscription = await client.listen({
      toolsListChanged: true,
      resourceSubscriptions: [README, SENTINEL],
    });
    try {
      expect(subscription.honoredFilter).toEqual({
        toolsListChanged: true,
        resourceSubscriptions: [README, SENTINEL],
      });
      // Each change on one node in turn: two of the three do not hold the stream.
      for (const [i, node] of nodes.entries()) {
        await node.app.resources.updated(README);
        await changes.until(() => updates.length >= i + 1, { what: `resources/updated from ${node.name}` });
      }
      for (const [i, node] of nodes.entries()) {
        await toggleWeather(
          node,
          (count) =>
            changes.until(() => listChanges >= count, { what: `tools/list_changed from ${node.name}` }),
          i * 2,
        );
      }
      await nodes[0].app.resources.updated(SENTINEL);
      await changes.until(() => updates.includes(SENTINEL), { what: 'the sentinel update' });
      expect(updates).toEqual([README, README, README, SENTINEL]);
      expect(listChanges).toBe(6);
    } finally {
      await subscription.close();
    }
  });
});

describe('a Gantry client over WebSocket, connected to node 1 only', () => {
  let client: GantryClient;

  afterAll(async () => {
    await client?.close();
  });

  it('gets resources/updated from nodes 2 and 3 and list_changed from node 3, exactly once each', async () => {
    const { port } = nodes[0].fastify.server.address() as AddressInfo;
    client = new GantryClient({ name: 'ws-cluster', version: '1.0.0' });
    await client.connect(
      new WebSocketClientTransport({ url: `ws://127.0.0.1:${port}/mcp`, protocols: ['mcp'] }),
    );
    const updates: string[] = [];
    let listChanges = 0;
    const changes = new Changes();
    client.onNotification('notifications/resources/updated', (notification) => {
      updates.push((notification.params as { uri: string }).uri);
      changes.changed();
    });
    client.onNotification('notifications/tools/list_changed', () => {
      listChanges++;
      changes.changed();
    });
    const subscription = client.listen({ toolsListChanged: true, resourceSubscriptions: [README, SENTINEL] });
    try {
      await expect(subscription.acknowledged).resolves.toMatchObject({
        resourceSubscriptions: [README, SENTINEL],
      });
      await nodes[1].app.resources.updated(README);
      await changes.until(() => updates.length >= 1, { what: 'resources/updated from node 2' });
      await nodes[2].app.resources.updated(README);
      await changes.until(() => updates.length >= 2, { what: 'resources/updated from node 3' });
      await toggleWeather(
        nodes[2],
        (count) => changes.until(() => listChanges >= count, { what: 'tools/list_changed from node 3' }),
        0,
      );
      await nodes[1].app.resources.updated(SENTINEL);
      await changes.until(() => updates.includes(SENTINEL), { what: 'the sentinel update' });
      expect(updates).toEqual([README, README, SENTINEL]);
      expect(listChanges).toBe(2);
    } finally {
      await subscription.close();
    }
  });
});

describe('the official v1 client over legacy HTTP+SSE (2024-11-05), connected to node 1 only', () => {
  let client: V1Client;
  let transport: SSEClientTransport;
  const received: JSONRPCMessage[] = [];
  const changes = new Changes();

  beforeAll(async () => {
    client = new V1Client({ name: 'sse-cluster', version: '1.0.0' });
    transport = new SSEClientTransport(new URL(`${nodes[0].url}/sse`));
    await client.connect(transport);
    // Record everything the stream carries, before the client handles it.
    const onmessage = transport.onmessage;
    transport.onmessage = (message) => {
      received.push(message);
      onmessage?.(message);
      changes.changed();
    };
  });

  afterAll(async () => {
    await client?.close();
  });

  /** The session id of the legacy connection, from the endpoint its first event named. */
  const sessionId = () =>
    (transport as unknown as { _endpoint: URL })._endpoint.searchParams.get('sessionId') as string;

  it('gets resources/updated and list_changed published on node 2', async () => {
    const updates: string[] = [];
    let listChanges = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
      changes.changed();
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanges++;
      changes.changed();
    });
    await client.subscribeResource({ uri: README });
    await client.subscribeResource({ uri: SENTINEL });
    await nodes[1].app.resources.updated(README);
    await changes.until(() => updates.length >= 1, { what: 'resources/updated from node 2' });
    await toggleWeather(
      nodes[1],
      (count) => changes.until(() => listChanges >= count, { what: 'tools/list_changed from node 2' }),
      0,
    );
    await nodes[2].app.resources.updated(SENTINEL);
    await changes.until(() => updates.includes(SENTINEL), { what: 'the sentinel update' });
    expect(updates).toEqual([README, SENTINEL]);
    expect(listChanges).toBe(2);
  });

  it('routes a POST /messages that reaches node 2 to node 1, which holds the SSE stream', async () => {
    const id = sessionId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    for (const node of nodes) node.posted.length = 0;
    const response = await fetch(`${nodes[1].url}/messages?sessionId=${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'routed-1',
        method: 'tools/call',
        params: { name: 'touch', arguments: { uri: 'docs://routed' } },
      }),
    });
    // MCP 2024-11-05 (Basic › Transports › HTTP with SSE): the answer travels on the SSE stream.
    expect(response.status).toBe(202);
    expect(nodes[1].posted).toEqual(['tools/call']);
    expect(nodes[0].posted).toEqual([]);
    await changes.until(() => received.some((message) => (message as { id?: unknown }).id === 'routed-1'), {
      what: 'the routed call’s result on the SSE stream of node 1',
    });
    const answer = received.find((message) => (message as { id?: unknown }).id === 'routed-1') as {
      result?: unknown;
    };
    expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'touched docs://routed' }] });
    // The client's own POSTs (to node 1) still work alongside.
    expect((await client.listTools()).tools).toHaveLength(15);
  });

  it('accepts a POST for a session id no node holds (indistinguishable from one held elsewhere), refuses one without', async () => {
    // In a cluster, a node cannot tell an unknown legacy session from one held elsewhere
    // without asking every node: it forwards and accepts (see legacy-sse.ts). The node holding
    // the stream keeps refusing what it knows to be wrong: a POST without a sessionId.
    const missing = await fetch(`${nodes[1].url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(missing.status).toBe(400);
    const unknown = await fetch(`${nodes[1].url}/messages?sessionId=nobody-holds-this-session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'lost', method: 'ping' }),
    });
    expect(unknown.status).toBe(202);
  });
});
