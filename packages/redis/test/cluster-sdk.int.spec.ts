// Three Gantry nodes behind a real nginx in round robin (no stickiness), sessions in a real
// redis-server, driven by the official SDK's Streamable HTTP client: every request of one
// conversation may land on a different node, and the conversation goes on as on one node.

import { Changes, eventually } from '@gantry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Journal } from '../../core/test/fixtures/feature-app';
import { type ClusterNode, startNodes } from './support/cluster-nodes';
import { type Nginx, startNginx } from './support/nginx';
import { type RedisServer, startRedisServer } from './support/redis-server';

const text = (result: any): string => result.content[0].text;

function sdkClient(): Client {
  const client = new Client(
    { name: 'sdk-cluster', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    role: 'assistant',
    model: 'cluster-model',
    content: { type: 'text', text: `re: ${(request.params.messages[0].content as { text: string }).text}` },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: 'Grace', subscribe: false },
  }));
  return client;
}

describe('three nodes behind nginx, sessions in Redis, the official SDK client', () => {
  let redis: RedisServer;
  let nodes: ClusterNode[];
  let nginx: Nginx;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  /** Requests each node served, counted on its HTTP server. */
  const served = new Map<string, number>();

  beforeAll(async () => {
    redis = await startRedisServer();
    nodes = await startNodes(3, redis.url);
    for (const node of nodes) {
      served.set(node.name, 0);
      node.fastify.server.on('request', () => {
        served.set(node.name, (served.get(node.name) ?? 0) + 1);
      });
    }
    nginx = await startNginx({ upstreams: nodes.map((node) => node.url) });
    client = sdkClient();
    transport = new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`));
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await nginx?.stop();
    for (const node of nodes ?? []) await node.close();
    await redis?.stop();
  });

  it('spreads one session over every node', async () => {
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    for (let i = 0; i < 6; i++) expect((await client.listTools()).tools.length).toBe(15);
    for (const node of nodes) expect(served.get(node.name)).toBeGreaterThan(0);
  });

  it('carries progress and logs of a call, and answers to server→client requests posted to another node', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: { steps: 3, delayMs: 5 } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(text(result)).toBe('counted to 3');
    expect(progress).toEqual([1, 2, 3]);
    // Each round: the elicitation goes out on the call's stream; its answer is a new POST,
    // which round robin sends to another node than the one waiting for it.
    for (let i = 0; i < 3; i++) {
      expect(text(await client.callTool({ name: 'ask_name' }))).toBe(
        'hello Grace (no colour, subscribe=false, NameForm)',
      );
      expect(text(await client.callTool({ name: 'sample_joke', arguments: { topic: 'Redis' } }))).toBe(
        'cluster-model: re: Tell a joke about Redis',
      );
    }
  });

  it('resumes a dropped call stream on whichever node the GET reaches, losing and repeating nothing', async () => {
    for (let round = 0; round < 2; round++) {
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'resumable', arguments: { steps: 6, delayMs: 30 } },
        CallToolResultSchema,
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(text(result)).toBe('done after 6 steps (stream dropped: true)');
      expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    }
  });

  it('honours logging/setLevel on every node', async () => {
    const levels: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      levels.push(n.params.level);
    });
    await client.setLoggingLevel('error');
    // Three calls: each on another node, each must filter by the level set on one of them.
    for (let i = 0; i < 3; i++) {
      levels.length = 0;
      expect(text(await client.callTool({ name: 'log_all' }))).toBe('logged');
      expect(levels).toEqual(['error', 'critical', 'alert', 'emergency']);
    }
    await client.setLoggingLevel('debug');
  });

  it('delivers resources/updated and list_changed published on other nodes on the GET stream', async () => {
    const updates: string[] = [];
    let listChanges = 0;
    const changes = new Changes();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      changes.changed();
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanges++;
      changes.changed();
    });
    await client.subscribeResource({ uri: 'docs://readme' });
    // Three touches, round robin: on three different nodes.
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'touch', arguments: { uri: 'docs://readme' } });
    await changes.until(() => updates.length >= 3, { what: 'three resources/updated' });
    expect(updates).toEqual(['docs://readme', 'docs://readme', 'docs://readme']);
    // A change of one node's registry is announced to the session wherever its GET stream is.
    await client.callTool({ name: 'toggle_tool', arguments: { name: 'weather', enabled: false } });
    await changes.until(() => listChanges === 1, { what: 'tools/list_changed' });
    // The node that disabled it enables it again: one more list_changed.
    for (const node of nodes) node.app.registry.tools.enable('weather');
    await changes.until(() => listChanges === 2, { what: 'the second tools/list_changed' });
    await client.unsubscribeResource({ uri: 'docs://readme' });
    updates.length = 0;
    await client.callTool({ name: 'touch', arguments: { uri: 'docs://readme' } });
    await client.callTool({ name: 'touch', arguments: { uri: 'docs://other' } });
    // A later notification proves the earlier ones would have arrived by now.
    nodes[0].app.registry.tools.disable('weather');
    nodes[0].app.registry.tools.enable('weather');
    await changes.until(() => listChanges === 3, { what: 'the third tools/list_changed' });
    expect(updates).toEqual([]);
  });

  it('cancels a call from whichever node the cancellation reaches', async () => {
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'count', arguments: { steps: 50, delayMs: 40 } },
      CallToolResultSchema,
      { signal: controller.signal, onprogress: () => controller.abort('enough') },
    );
    await expect(call).rejects.toThrow();
    const journals = () => nodes.flatMap((node) => node.app.get(Journal).events);
    await eventually(() => journals().some((event) => event.startsWith('count cancelled at')), {
      what: 'the node running the call to see the cancellation',
    });
  });

  it('ends the session on every node with DELETE', async () => {
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    for (const node of nodes) {
      const response = await fetch(`${node.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    }
  });
});
