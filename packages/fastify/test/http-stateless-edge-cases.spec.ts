// Stateless-era (2026-07-28) HTTP edge cases that once went wrong: any unknown version answers
// −32022, errors keep their status in responseMode 'sse', CORS preflights allow Mcp-Param-*,
// and mirrored integers are compared as JSON numbers only (no 0x7 for 7).
import 'reflect-metadata';
import { Args, GantryFactory, Header, Injectable, Module, Tool } from '@gantry/core';
import { IsInt } from 'class-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { type GantryMcpOptions, gantryMcp } from '../src';
import { CC, headersFor, injectStateless, PV, rpc } from './stateless-support';

async function injectServer(app: GantryMcpOptions['app'], options: Omit<GantryMcpOptions, 'app'> = {}) {
  const fastify: FastifyInstance = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.ready();
  return fastify;
}

class Stay {
  @IsInt() @Header('Days') days!: number;
}

@Injectable()
class StayTools {
  @Tool({ description: 'Books a stay' })
  bookStay(@Args() stay: Stay) {
    return `${stay.days} days`;
  }
}

@Module({ providers: [StayTools] })
class StayModule {}

describe('stateless-era HTTP edge cases', () => {
  // MCP 2026-07-28, Transports › Streamable HTTP: an unknown or declined version is 400 +
  // −32022 with data.supported and data.requested, whatever the version string looks like.
  it('400 −32022 for an unknown version in header and _meta, whatever it looks like', async () => {
    const app = await createDualEraApp();
    const fastify = await injectServer(app);
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { [PV]: '1900-01-01', [CC]: {} } },
    };
    const response = await injectStateless(
      fastify,
      body,
      headersFor(body, { 'mcp-protocol-version': '1900-01-01' }),
    );
    expect(response.statusCode).toBe(400);
    // Answered under the request's id (the body was read: it names one).
    expect(response.json().id).toBe(1);
    expect(response.json().error).toEqual({
      code: -32022,
      message:
        'Unsupported protocol version: MCP-Protocol-Version "1900-01-01"; supported: 2026-07-28 (earlier revisions: send initialize)',
      data: { supported: ['2026-07-28'], requested: '1900-01-01' },
    });
    await fastify.close();
    await app.close();
  });

  // Under responseMode 'sse' an answer becomes a stream only once a notification precedes it,
  // so −32601 keeps its 404 and −32021 its 400 (MCP 2026-07-28, Transports › Streamable HTTP;
  // clients detect the era by them).
  it("keeps the era's error statuses with responseMode 'sse': 404 −32601, 400 −32021", async () => {
    const app = await createDualEraApp();
    const fastify = await injectServer(app, { responseMode: 'sse' });
    const unknown = await injectStateless(fastify, rpc(1, 'tools/frobnicate'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
    expect(unknown.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32601,
        message: 'Method not found: tools/frobnicate',
        data: { method: 'tools/frobnicate' },
      },
    });
    const capability = await injectStateless(
      fastify,
      rpc(2, 'tools/call', { name: 'plan_trip', arguments: { city: 'Oslo' } }),
    );
    expect(capability.statusCode).toBe(400);
    expect(capability.headers['content-type']).toMatch(/^application\/json/);
    expect(capability.json().error.code).toBe(-32021);
    await fastify.close();
    await app.close();
  });

  // A browser client must send Mcp-Param-{Name} (MCP 2026-07-28, Transports › Streamable HTTP): the preflight allows it.
  it('lets a CORS preflight ask for Mcp-Param-* headers', async () => {
    const app = await createDualEraApp();
    const fastify = await injectServer(app, { cors: { origins: ['http://localhost:5173'] } });
    const response = await fastify.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
      },
    });
    expect(response.statusCode).toBe(204);
    const allowed = String(response.headers['access-control-allow-headers'])
      .split(',')
      .map((name) => name.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['mcp-method', 'mcp-name', 'mcp-param-region']));
    await fastify.close();
    await app.close();
  });

  // Integers are sent as decimal (§4.4): only decimal spellings (7, 7.0) equal 7, never 0x7.
  it.each(['0x7', '0b111', '0o7'])(
    '400 −32020 for Mcp-Param-Days %s against the integer 7',
    async (value) => {
      const app = await GantryFactory.create(StayModule, { name: 'stays', version: '1.0.0', logger: false });
      const fastify = await injectServer(app);
      const body = rpc(1, 'tools/call', { name: 'book_stay', arguments: { days: 7 } });
      const response = await injectStateless(fastify, body, headersFor(body, { 'mcp-param-days': value }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32020,
          message: "Header mismatch: Mcp-Param-Days does not match the argument 'days'",
        },
      });
      await fastify.close();
      await app.close();
    },
  );
});
