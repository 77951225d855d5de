// Deeply nested params over Streamable HTTP (literal JSON bodies through fastify.inject):
// refused with −32602 in both eras before any handler, validator or digest sees them, and the
// session keeps serving. Without the limit they overflowed the stack and came back as −32603.
import 'reflect-metadata';
import type { GantryApplication } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { gantryMcp } from '../src';
import { headersFor, injectStateless, rpc } from './stateless-support';
import { ACCEPT_BOTH, initSession } from './support';

const STATELESS_META =
  '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

function depthError(id: number, method: string) {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params: the params of ${method} nest deeper than 64 levels (the server's limit, maxParamsDepth)`,
      data: { maxParamsDepth: 64 },
    },
  };
}

let app: GantryApplication;
let fastify: FastifyInstance;
const logged: string[] = [];

beforeEach(async () => {
  logged.length = 0;
  const record = (message: string) => void logged.push(message);
  app = await createDualEraApp({ logger: { debug: record, info: record, warn: record, error: record } });
  fastify = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, responseMode: 'json' });
  await fastify.ready();
  logged.length = 0;
});

afterEach(async () => {
  await fastify.close();
  await app.close();
});

function postInSession(sessionId: string, payload: string) {
  return fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    payload,
  });
}

describe.each([10_000, 100_000])('params %i levels deep over HTTP', (depth) => {
  const deep = nested(depth);

  it('session era: tools/call answers 200 −32602 and the session still answers ping', async () => {
    const session = await initSession(fastify);
    const response = await postInSession(
      session,
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":${deep}}}}`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(depthError(2, 'tools/call'));
    const ping = await postInSession(session, '{"jsonrpc":"2.0","id":3,"method":"ping"}');
    expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(logged).toEqual([]);
  });

  it('session era: logging/setLevel answers 200 −32602', async () => {
    const session = await initSession(fastify);
    const response = await postInSession(
      session,
      `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":${deep}}}`,
    );
    expect(response.json()).toEqual(depthError(2, 'logging/setLevel'));
    expect(logged).toEqual([]);
  });

  // The stateless era has no ping (2026-07-28); server/discover shows the server still answers.
  it('stateless era: a requestState retry answers 200 −32602, and server/discover still works', async () => {
    const body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan_trip","arguments":{"city":${deep}},"requestState":"x.y","inputResponses":{},"_meta":${STATELESS_META}}}`;
    const response = await fastify.inject({
      method: 'POST',
      url: '/mcp',
      headers: headersFor({ method: 'tools/call', params: { name: 'plan_trip' } }),
      payload: body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(depthError(2, 'tools/call'));
    const discover = await injectStateless(fastify, rpc(3, 'server/discover'));
    expect(discover.json()).toMatchObject({ id: 3, result: { supportedVersions: ['2026-07-28'] } });
    expect(logged).toEqual([]);
  });

  it('a body that is one deep array parses and is refused as a message (400 −32600), not a crash', async () => {
    const session = await initSession(fastify);
    const response = await postInSession(session, deep);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe(-32600);
    const ping = await postInSession(session, '{"jsonrpc":"2.0","id":3,"method":"ping"}');
    expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});
