// OpenTelemetry end to end: servers on stdio, streamable HTTP and WebSocket, each a child process
// with its own SDK, export their spans over OTLP/HTTP (JSON) to a receiver in this process, in
// both protocol eras; @gantry/client's spans, made here, are in the same traces. (In-process
// servers further down use an in-memory exporter: the OTLP exporter loads its HTTP code with a
// dynamic import, which Jest's module sandbox refuses.)
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import {
  Client,
  clearEraCache,
  StdioClientTransport,
  StreamableHttpClientTransport,
  WebSocketClientTransport,
} from '@gantry/client';
import type { GantryApplication } from '@gantry/core';
import { eventually } from '@gantry/testing';
import { websocket } from '@gantry/ws';
import { metrics, SpanKind } from '@opentelemetry/api';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import Fastify, { type FastifyInstance } from 'fastify';
import { createOtelApp } from '../../core/test/fixtures/otel-app';
import { registerTracing, remoteParent, type TestTracing } from '../../core/test/support/otel';
import {
  OTLP_SERVER,
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../../core/test/support/otlp-receiver';
import { gantryMcp } from '../src';

const ROOT = resolve(__dirname, '../../..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const SERVER = join(__dirname, 'fixtures', 'otel-server-main.ts');
const ACCEPT = 'application/json, text/event-stream';

class ReadOnDemand extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

let receiver: OtlpReceiver;
let tracing: TestTracing;
const reader = new ReadOnDemand();
let traceNumber = 0;

/** A caller of its own trace, so that each test finds only its spans. */
function newCaller() {
  traceNumber++;
  return remoteParent(`${'ab'.repeat(12)}${String(traceNumber).padStart(8, '0')}`, 'c0ffee00c0ffee00');
}

/** The SERVER spans named `name` in `traceId` (from the receiver) and the CLIENT span (made here). */
async function spansOf(traceId: string, name: string, count = 1) {
  const server = await receiver.until((spans) => {
    const mine = spans.filter((s) => s.traceId === traceId && s.name === name && s.kind === OTLP_SERVER);
    return mine.length >= count ? mine : undefined;
  }, `${count} server span(s) "${name}" in trace ${traceId}`);
  const [client] = tracing
    .spans(name)
    .filter((s) => s.spanContext().traceId === traceId && s.kind === SpanKind.CLIENT);
  return { server, client };
}

async function activeStreams(kind: string): Promise<unknown> {
  const { resourceMetrics } = await reader.collect();
  const points = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === 'gantry.server.streams.active')
    .flatMap((metric) => metric.dataPoints as DataPoint<number>[]);
  return points.find((point) => point.attributes.kind === kind)?.value;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = registerTracing();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
afterAll(async () => {
  await tracing.shutdown();
  await receiver.close();
});

/**
 * Starts the test app in a child process; resolves with its URL (http, ws) once it listens.
 * `stops` gets the function that ends it.
 */
async function child(mode: 'http' | 'ws', stops = cleanups): Promise<string> {
  const server: ChildProcess = spawn(process.execPath, ['-r', REGISTER, SERVER, mode], {
    cwd: ROOT,
    env: { ...process.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(server, 'exit');
  stops.push(async () => {
    server.kill('SIGTERM');
    await exited;
  });
  let out = '';
  for await (const chunk of server.stdout as AsyncIterable<Buffer>) {
    out += chunk.toString('utf8');
    const line = /LISTENING (\S+)\n/.exec(out);
    if (line) return line[1];
  }
  throw new Error(`the ${mode} server exited before listening: ${out}`);
}
beforeEach(() => clearEraCache());

function newClient(): Client {
  const client = new Client({ name: 'otel-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler('elicitation/create', (params) => ({
    action: 'accept',
    content: { name: String((params._meta as Record<string, unknown> | undefined)?.traceparent) },
  }));
  cleanups.push(() => client.close());
  return client;
}

/** Checks the spans of one create_note call made from `caller`; returns the server span. */
async function expectCreateNote(traceId: string, callerSpanId: string): Promise<ReceivedSpan> {
  const { server, client } = await spansOf(traceId, 'tools/call create_note');
  expect(client.parentSpanContext?.spanId).toBe(callerSpanId);
  expect(server[0].parentSpanId).toBe(client.spanContext().spanId);
  const inner = await receiver.until(
    (spans) => spans.find((s) => s.traceId === traceId && s.name === 'store note'),
    'the span inside the handler',
  );
  expect(inner.parentSpanId).toBe(server[0].spanId);
  return server[0];
}

/** The elicitation answered with the traceparent it carried: the server span's. */
function expectGreetedFrom(span: ReceivedSpan, text: string) {
  expect(text).toBe(`hello 00-${span.traceId}-${span.spanId}-01`);
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe.each(['session', 'stateless'] as const)('OpenTelemetry over stdio, %s era', (era) => {
  it('exports the child process server span under the client span, both parented on the caller', async () => {
    const client = newClient();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-r', REGISTER, SERVER, 'stdio'],
      cwd: ROOT,
      env: { ...process.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` },
      stderr: 'pipe',
    });
    await client.connect(transport, { era });
    const caller = newCaller();
    expect(textOf(await caller.run(() => client.callTool('create_note', { title: 'pipe' })))).toBe(
      'created pipe',
    );
    const server = await expectCreateNote(caller.context.traceId, caller.context.spanId);
    expect(server.service).toBe('otel-stdio');
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'create_note',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'pipe',
      'mcp.protocol.version': era === 'session' ? '2025-11-25' : '2026-07-28',
    });
    expect(server.attributes['network.protocol.name']).toBeUndefined();
  });
});

describe('OpenTelemetry over streamable HTTP (a server process exporting over OTLP)', () => {
  let url: string;
  const stops: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    url = await child('http', stops);
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
  });
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  const connect = async (era: 'session' | 'stateless') => {
    const client = new Client(
      { name: 'otel-client', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler('elicitation/create', (params) => ({
      action: 'accept',
      content: { name: String((params._meta as Record<string, unknown> | undefined)?.traceparent) },
    }));
    clients.push(client);
    const transport = new StreamableHttpClientTransport({ url });
    await client.connect(transport, { era });
    return { client, transport };
  };

  it('session era: attributes, the session id, tool errors and a traced elicitation', async () => {
    const { client, transport } = await connect('session');
    const caller = newCaller();
    await caller.run(() => client.callTool('create_note', { title: 'http' }));
    const server = await expectCreateNote(caller.context.traceId, caller.context.spanId);
    expect(server.service).toBe('otel-http');
    expect(server.attributes).toMatchObject({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.session.id': transport.sessionId,
      'mcp.protocol.version': '2025-11-25',
    });

    const greeted = await caller.run(() => client.callTool('greet'));
    const { server: greet } = await spansOf(caller.context.traceId, 'tools/call greet');
    expectGreetedFrom(greet[0], textOf(greeted));

    await caller.run(() => client.callTool('broken'));
    const { server: broken } = await spansOf(caller.context.traceId, 'tools/call broken');
    expect(broken[0].status.code).toBe(2);
    expect(broken[0].attributes['error.type']).toBe('tool_error');
  });

  it('stateless era: each input_required round is a child of the client span; the retry links to the first', async () => {
    const { client } = await connect('stateless');
    const caller = newCaller();
    await caller.run(() => client.callTool('create_note', { title: 'exchange' }));
    const server = await expectCreateNote(caller.context.traceId, caller.context.spanId);
    expect(server.attributes).toMatchObject({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': '2026-07-28',
    });
    expect(server.attributes['mcp.session.id']).toBeUndefined();

    await caller.run(() => client.callTool('greet'));
    const { server: rounds, client: greetClient } = await spansOf(
      caller.context.traceId,
      'tools/call greet',
      2,
    );
    const clientId = greetClient.spanContext().spanId;
    expect(rounds.map((round) => round.parentSpanId)).toEqual([clientId, clientId]);
    const first = rounds.find((round) => round.links.length === 0) as ReceivedSpan;
    const retry = rounds.find((round) => round.links.length === 1) as ReceivedSpan;
    expect(retry.links[0]).toEqual({ traceId: first.traceId, spanId: first.spanId });
  });

  it('takes the parent from the traceparent header when _meta has none, and from _meta when it has one', async () => {
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    await init.text();
    const session = init.headers.get('mcp-session-id') as string;
    const fromHeader = newCaller();
    const fromMeta = newCaller();
    const call = async (id: number, title: string, meta?: Record<string, string>) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
          traceparent: fromHeader.traceparent,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'create_note', arguments: { title }, ...(meta && { _meta: meta }) },
        }),
      });
      expect(response.status).toBe(200);
      await response.text();
    };
    await call(2, 'header');
    await call(3, 'meta', { traceparent: fromMeta.traceparent });
    const serverSpanIn = (traceId: string) =>
      receiver.until(
        (spans) => spans.find((s) => s.traceId === traceId && s.kind === OTLP_SERVER),
        `the server span in trace ${traceId}`,
      );
    const byHeader = await serverSpanIn(fromHeader.context.traceId);
    expect(byHeader.parentSpanId).toBe(fromHeader.context.spanId);
    expect(byHeader.attributes['jsonrpc.request.id']).toBe('2');
    const byMeta = await serverSpanIn(fromMeta.context.traceId);
    expect(byMeta.parentSpanId).toBe(fromMeta.context.spanId);
    expect(byMeta.attributes['jsonrpc.request.id']).toBe('3');
  });
});

describe.each(['session', 'stateless'] as const)(
  'OpenTelemetry over WebSocket, %s era (a server process)',
  (era) => {
    it('exports the server span with network.protocol.name websocket', async () => {
      const url = await child('ws');
      const client = newClient();
      await client.connect(new WebSocketClientTransport({ url }), { era });
      const caller = newCaller();
      await caller.run(() => client.callTool('create_note', { title: 'socket' }));
      const server = await expectCreateNote(caller.context.traceId, caller.context.spanId);
      expect(server.service).toBe('otel-ws');
      expect(server.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'websocket',
        'mcp.protocol.version': era === 'session' ? '2025-11-25' : '2026-07-28',
      });
      if (era === 'session') {
        const greeted = await caller.run(() => client.callTool('greet'));
        const { server: greet } = await spansOf(caller.context.traceId, 'tools/call greet');
        expectGreetedFrom(greet[0], textOf(greeted));
      }
    });
  },
);

describe('gantry.server.streams.active', () => {
  let app: GantryApplication;
  beforeEach(async () => {
    app = await createOtelApp();
    cleanups.push(() => app.close());
  });

  it('counts SSE responses held open by HTTP, until they close', async () => {
    const fastify: FastifyInstance = Fastify({ logger: false });
    await fastify.register(gantryMcp, { app });
    const url = `${await fastify.listen({ port: 0, host: '127.0.0.1' })}/mcp`;
    cleanups.push(() => fastify.close());
    const before = ((await activeStreams('sse')) as number | undefined) ?? 0;
    const client = new Client({ name: 'otel-client', version: '1.0.0' });
    // A session-era client opens the GET stream for server-initiated messages.
    await client.connect(new StreamableHttpClientTransport({ url }), { era: 'session' });
    await eventually(async () => (await activeStreams('sse')) === before + 1, {
      what: 'the GET stream counted',
    });
    await client.close();
    await eventually(async () => (await activeStreams('sse')) === before, {
      what: 'the GET stream uncounted',
    });
  });

  it('counts WebSocket connections, until they close', async () => {
    const listener = websocket({ port: 0 });
    await app.listen(listener);
    const client = new Client({ name: 'otel-client', version: '1.0.0' });
    await client.connect(new WebSocketClientTransport({ url: listener.url as string }), { era: 'session' });
    expect(await activeStreams('websocket')).toBe(1);
    const [session] = app.server.sessions;
    const ended = new Promise<void>((resolve) => session.onClose(resolve));
    await client.close();
    await ended;
    await eventually(async () => (await activeStreams('websocket')) === 0, {
      what: 'the WebSocket connection uncounted',
    });
  });
});
