// The `metrics` option: `GET /metrics` in the Prometheus text exposition format (0.0.4), read from
// the OpenTelemetry metrics of the process, scraped over a real socket and parsed.
import 'reflect-metadata';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHttpClientTransport } from '@gantry/client';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import { createDualEraApp } from '../../core/test/fixtures/dual-era-app';
import { gantryMcp, http } from '../src';
import { headersFor, rpc, textResult } from './stateless-support';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A small parser of the text exposition format
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format): `# TYPE`
 * lines and samples `name{label="value",...} number`. Any other line fails the test.
 */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[]; text: string } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1], type[2]);
      continue;
    }
    if (/^# (HELP|UNIT) [a-zA-Z_:][a-zA-Z0-9_:]* ?/.test(line)) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g,
    )) {
      labels[key] = value;
    }
    const value = Number(sample[3].replace(/^\+Inf$/, 'Infinity'));
    if (Number.isNaN(value)) throw new Error(`not a sample value: ${JSON.stringify(line)}`);
    samples.push({ name: sample[1], labels, value });
  }
  return { types, samples, text };
}

async function scrape(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

afterEach(() => metrics.disable());

describe('metrics: true on the http() listener', () => {
  it('serves the process metrics at /metrics in the Prometheus text format', async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {}, metrics: true });
    await app.listen(listener);
    const base = (listener.url as string).replace(/\/mcp$/, '');
    try {
      // Registered as the global meter provider: any instrument of the process reaches /metrics.
      const counter = metrics.getMeter('metrics-test').createCounter('test.widgets', { unit: '1' });
      counter.add(2, { color: 'blue' });
      counter.add(1, { color: 'blue' });
      counter.add(5, { color: 'red' });

      const body = rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'scraped' } });
      const call = await fetch(listener.url as string, {
        method: 'POST',
        headers: headersFor(body),
        body: JSON.stringify(body),
      });
      expect(await call.json()).toEqual(textResult(1, 'scraped'));

      const scraped = await scrape(`${base}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.type).toBe('text/plain; version=0.0.4; charset=utf-8');
      const { types, samples } = parseExposition(scraped.text);
      expect(types.get('test_widgets_total')).toBe('counter');
      const widgets = samples.filter((s) => s.name === 'test_widgets_total');
      expect(widgets.map((s) => [s.labels.color, s.value]).sort()).toEqual([
        ['blue', 3],
        ['red', 5],
      ]);
      expect(widgets[0].labels.otel_scope_name).toBe('metrics-test');
    } finally {
      await app.close();
    }
    // The provider Gantry registered is released with the app: another can be registered now.
    expect(metrics.setGlobalMeterProvider(new MeterProvider())).toBe(true);
  });

  it("scrapes Gantry's own series: operations by method and outcome, sessions and streams", async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {}, metrics: true });
    await app.listen(listener);
    const url = (listener.url as string).replace(/\/mcp$/, '/metrics');
    const client = new Client({ name: 'scraped', version: '1' });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: listener.url as string }), {
        era: 'session',
      });
      await client.callTool('echo', { text: 'one' });
      await client.callTool('echo', { text: 'two' });
      // Arguments the schema refuses: a tool error result.
      expect((await client.callTool('echo', { text: 3 })).isError).toBe(true);
      // A tool nobody registered: a JSON-RPC error.
      await expect(client.callTool('no_such_tool')).rejects.toThrow();
      // A method the server does not have.
      await expect(client.request('no/such_method', {})).rejects.toThrow();
      const open = parseExposition((await scrape(url)).text);
      expect(open.types.get('mcp_server_operation_duration')).toBe('histogram');
      const count = (labels: Record<string, string>) =>
        open.samples
          .filter((s) => s.name === 'mcp_server_operation_duration_count')
          .filter((s) => Object.entries(labels).every(([key, value]) => s.labels[key] === value))
          .map((s) => s.value)
          .reduce((sum, value) => sum + value, 0);
      const echo = { mcp_method_name: 'tools/call', gen_ai_tool_name: 'echo' };
      expect(count({ mcp_method_name: 'initialize', mcp_protocol_version: '2025-11-25' })).toBe(1);
      expect(count(echo)).toBe(3);
      expect(count({ ...echo, error_type: 'tool_error' })).toBe(1);
      expect(
        count({ mcp_method_name: 'tools/call', error_type: '-32602', rpc_response_status_code: '-32602' }),
      ).toBe(1);
      // Names a client made up get no series of their own.
      expect(open.text.includes('no_such_tool')).toBe(false);
      expect(open.text.includes('no/such_method')).toBe(false);
      expect(count({ mcp_method_name: '_OTHER', error_type: '-32601' })).toBe(1);
      const gauge = (name: string, labels: Record<string, string> = {}) =>
        open.samples.find(
          (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
        )?.value;
      expect(open.types.get('gantry_server_sessions_active')).toBe('gauge');
      expect(gauge('gantry_server_sessions_active')).toBe(1);
      // The session's GET stream.
      expect(gauge('gantry_server_streams_active', { kind: 'sse' })).toBe(1);
      expect(gauge('gantry_server_tasks_active')).toBe(0);

      await client.close();
      const closed = parseExposition((await scrape(url)).text);
      const ended = closed.samples.find((s) => s.name === 'mcp_server_session_duration_count');
      expect(ended?.value).toBe(1);
      expect(ended?.labels.mcp_protocol_version).toBe('2025-11-25');
      expect(closed.samples.find((s) => s.name === 'gantry_server_sessions_active')?.value).toBe(0);
    } finally {
      await client.close();
      await app.close();
    }
  });

  it('is off by default', async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {} });
    await app.listen(listener);
    try {
      expect((await scrape((listener.url as string).replace(/\/mcp$/, '/metrics'))).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('applies the Host check, as the MCP endpoint does on a loopback bind', async () => {
    const app = await createDualEraApp();
    const listener = http({ port: 0, onListening: () => {}, metrics: true });
    await app.listen(listener);
    try {
      const url = (listener.url as string).replace(/\/mcp$/, '/metrics');
      const { port } = new URL(url);
      // fetch() may not set Host: a raw request through node:http does.
      const status = await new Promise<number>((done, fail) => {
        const request = get(
          { host: '127.0.0.1', port, path: '/metrics', headers: { host: 'attacker.example' } },
          (response: IncomingMessage) => {
            response.resume();
            done(response.statusCode ?? 0);
          },
        );
        request.on('error', fail);
      });
      expect(status).toBe(403);
      expect((await scrape(url)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('metrics on the gantryMcp plugin', () => {
  it('serves metrics.path under the plugin prefix, with an exporter the user registered', async () => {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const provider = new MeterProvider({ readers: [exporter] });
    // The user's provider is not global: only the exporter's own provider feeds the endpoint.
    provider.getMeter('own').createUpDownCounter('queue.depth').add(7);
    const app = await createDualEraApp();
    const fastify = Fastify();
    await fastify.register(gantryMcp, { app, prefix: '/api', metrics: { path: '/prom', exporter } });
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fastify.server.address() as AddressInfo;
    try {
      const scraped = await scrape(`http://127.0.0.1:${port}/api/prom`);
      expect(scraped.status).toBe(200);
      const { types, samples } = parseExposition(scraped.text);
      expect(types.get('queue_depth')).toBe('gauge');
      expect(samples.find((s) => s.name === 'queue_depth')?.value).toBe(7);
      expect((await scrape(`http://127.0.0.1:${port}/api/metrics`)).status).toBe(404);
      // Gantry did not register a global provider of its own.
      expect(metrics.setGlobalMeterProvider(new MeterProvider())).toBe(true);
    } finally {
      await fastify.close();
      await app.close();
      await provider.shutdown();
    }
  });

  it('refuses metrics: true when a global meter provider is registered already', async () => {
    expect(metrics.setGlobalMeterProvider(new MeterProvider())).toBe(true);
    const app = await createDualEraApp();
    const fastify = Fastify();
    await expect(fastify.register(gantryMcp, { app, metrics: true })).rejects.toThrow(
      /a global OpenTelemetry meter provider is registered already .*pass `metrics: \{ exporter \}`/s,
    );
    await fastify.close();
    await app.close();
  });

  it('shares its own provider between two servers of one process', async () => {
    const apps = [await createDualEraApp(), await createDualEraApp()];
    const listeners = apps.map(() => http({ port: 0, onListening: () => {}, metrics: true }));
    for (const [i, app] of apps.entries()) await app.listen(listeners[i]);
    metrics.getMeter('shared').createCounter('test.shared').add(4);
    const urls = listeners.map((l) => (l.url as string).replace(/\/mcp$/, '/metrics'));
    for (const url of urls) {
      const { samples } = parseExposition((await scrape(url)).text);
      expect(samples.find((s) => s.name === 'test_shared_total')?.value).toBe(4);
    }
    await apps[0].close();
    // The second server still serves the provider the first one created.
    const { samples } = parseExposition((await scrape(urls[1])).text);
    expect(samples.find((s) => s.name === 'test_shared_total')?.value).toBe(4);
    await apps[1].close();
    expect(metrics.setGlobalMeterProvider(new MeterProvider())).toBe(true);
  });

  it.each([
    [{ path: 'metrics' }, /metrics\.path must be a path starting with '\/', got "metrics"/],
    [{ exporter: {} }, /metrics\.exporter must be a metric reader with collect\(\)/],
    [{ route: '/m' }, /metrics: unknown option 'route'; known options are path, exporter/],
    ['yes', /metrics must be true, false or \{ path\?, exporter\? \}, got "yes"/],
  ])('refuses metrics: %j', async (value, message) => {
    const app = await createDualEraApp();
    const fastify = Fastify();
    await expect(fastify.register(gantryMcp, { app, metrics: value as never })).rejects.toThrow(message);
    await fastify.close();
    await app.close();
  });
});
