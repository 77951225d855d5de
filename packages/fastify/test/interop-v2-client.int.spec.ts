// The official v2 client (@modelcontextprotocol/client 2.4.0) drives the dual-era fixture served
// by `gantryMcp` on 127.0.0.1, over Streamable HTTP, in both protocol eras.
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import Fastify from 'fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import {
  type Connected,
  legacySuite,
  type Negotiation,
  statelessSuite,
  text,
  v2Client,
} from '../../core/test/support/v2-client';
import { type GantryMcpOptions, gantryMcp } from '../src';

type PluginOptions = Omit<GantryMcpOptions, 'app'>;

async function serve(options: PluginOptions = {}) {
  const app = await createDualEraApp();
  // After a subscription closes, undici keeps a spare keep-alive socket that never carries a
  // request; Node's server.close() waits out its 4 s idle timeout unless connections are forced.
  const fastify = Fastify({ logger: false, forceCloseConnections: true });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fastify.server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    async close() {
      await fastify.close();
      await app.close();
    },
  };
}

async function serveAndConnect(
  negotiation: Negotiation,
  options: PluginOptions = {},
  harness = v2Client(negotiation),
): Promise<Connected & { transport: StreamableHTTPClientTransport }> {
  const server = await serve(options);
  const transport = new StreamableHTTPClientTransport(server.url);
  try {
    await harness.client.connect(transport);
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    harness,
    transport,
    async close() {
      await harness.client.close();
      await server.close();
    },
  };
}

const PLUGIN_MODES: [string, PluginOptions][] = [
  ['stateful endpoint, auto responses', {}],
  ['stateful endpoint, SSE responses', { responseMode: 'sse' }],
  ['stateless endpoint', { mode: 'stateless' }],
];

describe.each(PLUGIN_MODES)('the v2 client pinned to 2026-07-28, over HTTP (%s)', (_name, options) => {
  statelessSuite(() => serveAndConnect('pin', options));
});

describe.each(PLUGIN_MODES.slice(0, 2))(
  'the v2 client in legacy mode (initialize, 2025-11-25), over HTTP (%s)',
  (_name, options) => {
    legacySuite(async () => {
      const c = await serveAndConnect('legacy', options);
      expect(c.transport.sessionId).toMatch(/^[A-Za-z0-9_-]{24}$/);
      return c;
    });
  },
);

describe('the v2 client over HTTP, beyond the shared suites', () => {
  it('picks 2026-07-28 when it probes with server/discover (mode auto), without a session', async () => {
    const c = await serveAndConnect('auto');
    try {
      expect(c.harness.client.getProtocolEra()).toBe('modern');
      expect(c.harness.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(c.transport.sessionId).toBeUndefined();
      const result = await c.harness.client.callTool({ name: 'plan_trip', arguments: { city: 'Kyoto' } });
      expect(text(result)).toMatch(/^Booked Kyoto for Ada \(stateless\): /);
    } finally {
      await c.close();
    }
  });

  it('gets -32021 naming elicitation.form when a 2026-07-28 request declares no capabilities', async () => {
    const c = await serveAndConnect('pin', {}, v2Client('pin', {}));
    try {
      const failure = await c.harness.client
        .callTool({ name: 'plan_trip', arguments: { city: 'Rome' } })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
      // A tool that checks the per-request capabilities falls back instead.
      expect(text(await c.harness.client.callTool({ name: 'polite_name', arguments: {} }))).toBe('anonymous');
    } finally {
      await c.close();
    }
  });

  it('cannot elicit in the session era on a stateless endpoint (the stateless era can, above)', async () => {
    const legacy = await serveAndConnect('legacy', { mode: 'stateless' });
    try {
      const result = await legacy.harness.client.callTool({ name: 'plan_trip', arguments: { city: 'Rome' } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^ctx\.elicit\(\): this server runs stateless HTTP/);
      expect(legacy.harness.asked.elicitations).toEqual([]);
    } finally {
      await legacy.close();
    }
  });

  it('sees its subscriptions end gracefully when the server shuts down', async () => {
    const server = await serve();
    const harness = v2Client('pin');
    await harness.client.connect(new StreamableHTTPClientTransport(server.url));
    try {
      const subscription = await harness.client.listen({ toolsListChanged: true });
      await server.close();
      await expect(subscription.closed).resolves.toBe('graceful');
    } finally {
      await harness.client.close();
    }
  });
});
