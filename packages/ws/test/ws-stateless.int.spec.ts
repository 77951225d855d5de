// The stateless era (2026-07-28) over WebSocket, frame by frame: exactly as on stdio. Every
// request describes itself in _meta, input comes back as input_required results, listen
// streams are multiplexed by subscriptionId, and notifications/cancelled cancels.
import type { GantryApplication } from '@gantry/core';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { websocket } from '../src';
import { RawClient } from './support';

const V = '2026-07-28';
const SUB = 'io.modelcontextprotocol/subscriptionId';
const meta = (caps: object = {}, extra: object = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': caps,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-ws', version: '1' },
  ...extra,
});
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'dual-era', version: '1.0.0' } };

let app: GantryApplication;
let url: string;
let client: RawClient;

beforeEach(async () => {
  app = await createDualEraApp();
  const listener = websocket({ port: 0 });
  await app.listen(listener);
  url = listener.url;
  client = await RawClient.open(url);
});

afterEach(async () => {
  client.close();
  await app.close();
});

const send = (frame: object) => client.sendText(JSON.stringify(frame));

describe('a stateless conversation over one socket', () => {
  test('discover and a tool call that asks twice and samples once', async () => {
    send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } });
    expect(await client.response(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        supportedVersions: [V],
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          logging: {},
          completions: {},
        },
        instructions: 'Plan trips.',
        ttlMs: 300000,
        cacheScope: 'public',
        resultType: 'complete',
        _meta: SERVER_INFO,
      },
    });

    const caps = { elicitation: {}, sampling: {} };
    const call = { name: 'plan_trip', arguments: { city: 'Oslo' } };
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...call, _meta: meta(caps) } });
    const first = (await client.response(2)).result as Record<string, any>;
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toEqual({
      'elicitation-1': {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Who travels to Oslo?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        },
      },
    });

    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        ...call,
        inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
        requestState: first.requestState,
        _meta: meta(caps),
      },
    });
    const second = (await client.response(3)).result as Record<string, any>;
    expect(Object.keys(second.inputRequests)).toEqual(['elicitation-2']);

    send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {
        ...call,
        inputResponses: { 'elicitation-2': { action: 'accept', content: { confirm: true } } },
        requestState: second.requestState,
        _meta: meta(caps),
      },
    });
    const third = (await client.response(4)).result as Record<string, any>;
    expect(third.inputRequests).toEqual({
      'sampling-3': {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'A slogan for Oslo' } }],
          maxTokens: 40,
        },
      },
    });

    send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: {
        ...call,
        inputResponses: {
          'sampling-3': { role: 'assistant', model: 'm', content: { type: 'text', text: 'Fjords!' } },
        },
        requestState: third.requestState,
        _meta: meta(caps),
      },
    });
    expect(await client.response(5)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: {
        content: [{ type: 'text', text: 'Booked Oslo for Ada (stateless): Fjords!' }],
        resultType: 'complete',
        _meta: SERVER_INFO,
      },
    });
    // The server never sent a request of its own on this socket.
    expect(client.frames.filter((f) => 'method' in (f as object) && 'id' in (f as object))).toEqual([]);
  });

  test('listen streams are multiplexed by subscriptionId and cancelled with notifications/cancelled', async () => {
    send({
      jsonrpc: '2.0',
      id: 'tools',
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: meta() },
    });
    send({
      jsonrpc: '2.0',
      id: 'readme',
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: ['trips://readme'] }, _meta: meta() },
    });
    expect(
      await client.next((f) => f.method === 'notifications/subscriptions/acknowledged' && sub(f) === 'tools'),
    ).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { [SUB]: 'tools' } },
    });
    await client.next((f) => f.method === 'notifications/subscriptions/acknowledged' && sub(f) === 'readme');

    send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'toggle_extra', _meta: meta() } });
    await client.response(7);
    expect(await client.next((f) => f.method === 'notifications/tools/list_changed')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUB]: 'tools' } },
    });

    await app.resources.updated('trips://readme');
    expect(await client.next((f) => f.method === 'notifications/resources/updated')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'trips://readme', _meta: { [SUB]: 'readme' } },
    });

    // Cancelling one stream leaves the other.
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'tools' } });
    send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'toggle_extra', _meta: meta() } });
    await client.response(8);
    await app.resources.updated('trips://readme');
    expect(await client.next((f) => f.method === 'notifications/resources/updated')).toMatchObject({
      params: { _meta: { [SUB]: 'readme' } },
    });
    expect(
      client.frames.some((f) => (f as { method?: string }).method === 'notifications/tools/list_changed'),
    ).toBe(false);
    expect(client.frames.some((f) => (f as { id?: unknown }).id === 'tools')).toBe(false);
  });

  test('app.close() ends an open listen with its final result', async () => {
    send({
      jsonrpc: '2.0',
      id: 'l',
      method: 'subscriptions/listen',
      params: { notifications: { promptsListChanged: true }, _meta: meta() },
    });
    await client.next((f) => f.method === 'notifications/subscriptions/acknowledged');
    const closing = app.close();
    expect(await client.response('l')).toEqual({
      jsonrpc: '2.0',
      id: 'l',
      result: { resultType: 'complete', _meta: { [SUB]: 'l', ...SERVER_INFO } },
    });
    await closing;
  });

  test('both eras on one socket: an initialize session beside stateless requests', async () => {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(((await client.response(1)).result as { protocolVersion: string }).protocolVersion).toBe(
      '2025-11-25',
    );
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await client.response(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'nope://x' } });
    expect(((await client.response(3)).error as { code: number }).code).toBe(-32002);
    send({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'nope://x', _meta: meta() } });
    expect(((await client.response(4)).error as { code: number }).code).toBe(-32602);
  });
});

function sub(frame: Record<string, unknown>): unknown {
  return (frame.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[SUB];
}
