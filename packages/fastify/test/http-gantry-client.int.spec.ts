import type { AddressInfo } from 'node:net';
import { Client, connectHttp, SseClientTransport, StreamableHttpClientTransport } from '@gantry/client';
import { GantryFactory } from '@gantry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { FeatureModule } from '../../core/test/fixtures/feature-app';
import { gantryMcp } from '../src';

async function listen() {
  const app = await GantryFactory.create(FeatureModule, {
    name: 'features',
    version: '1.0.0',
    logger: false,
  });
  const fastify: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app, sse: { retryMs: 20 } });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  return { app, fastify, base: `http://127.0.0.1:${port}` };
}

function client() {
  const c = new Client({ name: 'gantry-http', version: '1.0.0' }, { capabilities: { sampling: {} } });
  c.setRequestHandler('sampling/createMessage', async (params) => ({
    role: 'assistant',
    model: 'gantry-model',
    content: {
      type: 'text',
      text: `re: ${((params.messages as { content: { text: string } }[])[0].content as { text: string }).text}`,
    },
  }));
  return c;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("Gantry's own client against Gantry over HTTP", () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeEach(async () => {
    server = await listen();
  });
  afterEach(async () => {
    await server.fastify.close();
    await server.app.close();
  });

  it('streamable HTTP: lists, calls, samples over SSE, resumes a dropped stream, and ends the session with DELETE', async () => {
    const c = client();
    const transport = new StreamableHttpClientTransport({ url: `${server.base}/mcp` });
    // Sessions, resumption and DELETE are session-era features.
    await c.connect(transport, { era: 'session' });
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await c.listTools()).length).toBe(15);
    expect(text(await c.callTool('sample_joke', { topic: 'pipes' }))).toBe(
      'gantry-model: re: Tell a joke about pipes',
    );
    const progress: number[] = [];
    const resumed = await c.callTool(
      'resumable',
      { steps: 4, delayMs: 20 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(text(resumed)).toBe('done after 4 steps (stream dropped: true)');
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(server.app.server.sessions.size).toBe(1);
    const [session] = server.app.server.sessions;
    const ended = new Promise<void>((resolve) => session.onClose(resolve));
    await c.close();
    await ended;
    expect(server.app.server.sessions.size).toBe(0);
  });

  it('re-initializes once when the server forgot the session, and retries the request', async () => {
    const c = client();
    const transport = new StreamableHttpClientTransport({ url: `${server.base}/mcp` });
    // Sessions, resumption and DELETE are session-era features.
    await c.connect(transport, { era: 'session' });
    const first = transport.sessionId;
    await Promise.all([...server.app.server.sessions].map((s) => s.close()));
    expect(text(await c.callTool('weather', { city: 'Quito' }))).toBe(
      '{"city":"Quito","celsius":21.5,"sky":"clear"}',
    );
    expect(transport.sessionId).not.toBe(first);
    await c.close();
  });

  it('legacy HTTP+SSE: connects through GET /sse and calls tools', async () => {
    const c = client();
    await c.connect(new SseClientTransport({ url: `${server.base}/sse` }));
    expect(text(await c.callTool('sample_joke', { topic: 'legacy' }))).toBe(
      'gantry-model: re: Tell a joke about legacy',
    );
    await c.close();
  });

  it('connectHttp picks streamable HTTP when the server offers it', async () => {
    const c = client();
    const connection = await connectHttp(c, `${server.base}/mcp`);
    expect(connection.kind).toBe('streamable-http');
    expect((await c.listTools()).length).toBe(15);
    await c.close();
  });
});
