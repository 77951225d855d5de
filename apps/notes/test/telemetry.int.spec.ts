// apps/notes with OpenTelemetry: OTEL_EXPORTER_OTLP_ENDPOINT starts @opentelemetry/sdk-node, whose
// OTLP/HTTP exporters POST to an in-process receiver; `--metrics` serves GET /metrics.
// The built server runs as a child process (needs `npx tsc -b`).
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const MAIN = resolve(__dirname, '../dist/main.js');

interface Received {
  readonly path: string;
  readonly contentType: string;
  readonly body: any;
}

/** An OTLP/HTTP receiver (OTLP specification, JSON encoding): records every POST it answers. */
class OtlpReceiver extends EventEmitter {
  readonly posts: Received[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const post: Received = {
        path: request.url ?? '',
        contentType: String(request.headers['content-type']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      this.posts.push(post);
      this.emit('post', post);
    });
  });
  url = '';

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The first POST (already received or still to come) to `path` that `accept` takes. */
  next(path: string, accept: (post: Received) => boolean = () => true): Promise<Received> {
    const match = (post: Received) => post.path === path && accept(post);
    const seen = this.posts.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((done, fail) => {
      const timer = setTimeout(() => {
        this.off('post', listener);
        fail(
          new Error(`no matching POST ${path} within 10 s; got ${this.posts.map((p) => p.path).join(', ')}`),
        );
      }, 10_000);
      const listener = (post: Received) => {
        if (!match(post)) return;
        clearTimeout(timer);
        this.off('post', listener);
        done(post);
      };
      this.on('post', listener);
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

/** `service.name` of an OTLP resource. */
function serviceName(resource: { attributes?: { key: string; value: { stringValue?: string } }[] }) {
  return resource.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
}

/** Starts `main.js --http --port 0 ...flags` and resolves with its MCP URL. */
async function startNotes(dir: string, flags: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [MAIN, '--http', '--port', '0', ...flags], {
    env: { ...process.env, NOTES_DIR: dir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`no URL printed: ${stderr}`)), 10_000);
    child.on('exit', (code) => fail(new Error(`notes exited with ${code}: ${stderr}`)));
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (found) {
        clearTimeout(timer);
        done(found);
      }
    });
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  return code;
}

async function createNote(url: string): Promise<void> {
  const client = new Client({ name: 'notes-telemetry', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const created = await client.callTool({ name: 'create_note', arguments: { title: 'Traced', body: 'b' } });
  expect((created.content as { text: string }[])[0].text).toMatch(/^Created note [0-9a-f]{8}: Traced$/);
  await client.close();
}

describe('apps/notes with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let dir: string;
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gantry-notes-otel-'));
    receiver = new OtlpReceiver();
    await receiver.start();
  });

  afterEach(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const otelEnv = () => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'notes-under-test',
    // Short export periods instead of a sleep: the test awaits the POSTs they cause.
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '200',
  });

  it('exports the spans and metrics of MCP requests over OTLP/HTTP', async () => {
    const { child, url } = await startNotes(dir, [], otelEnv());
    try {
      await createNote(url);
      const traces = await receiver.next('/v1/traces');
      expect(traces.contentType).toMatch(/^application\/json/);
      expect(serviceName(traces.body.resourceSpans[0].resource)).toBe('notes-under-test');
      // Gantry's server span of the call, named per the semantic conventions for MCP.
      const spanNames = (post: Received): string[] =>
        post.body.resourceSpans.flatMap((r: { scopeSpans: { spans: { name: string }[] }[] }) =>
          r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)),
        );
      await receiver.next('/v1/traces', (post) => spanNames(post).includes('tools/call create_note'));

      const metricNames = (post: Received): string[] =>
        post.body.resourceMetrics.flatMap((r: { scopeMetrics: { metrics: { name: string }[] }[] }) =>
          r.scopeMetrics.flatMap((s) => s.metrics.map((metric) => metric.name)),
        );
      const exported = await receiver.next('/v1/metrics', (post) =>
        metricNames(post).includes('mcp.server.operation.duration'),
      );
      expect(serviceName(exported.body.resourceMetrics[0].resource)).toBe('notes-under-test');
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('--metrics serves the SDK metrics at /metrics, beside OTLP', async () => {
    const { child, url } = await startNotes(dir, ['--metrics'], otelEnv());
    try {
      await createNote(url);
      const response = await fetch(url.replace(/\/mcp$/, '/metrics'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      // The exporter is a reader of the SDK's provider: the SDK's resource names the target.
      expect(await response.text()).toMatch(/^target_info\{service_name="notes-under-test",/m);
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('refuses an endpoint that is not a URL, naming the variable', async () => {
    const child = spawn(process.execPath, [MAIN, '--http', '--port', '0'], {
      env: { ...process.env, NOTES_DIR: dir, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL such as http:\/\/collector:4318, got "collector:4318"/,
    );
  });
});

describe('apps/notes --metrics without an SDK', () => {
  it('serves /metrics in the Prometheus text format from a provider of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-metrics-'));
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: '' };
    const { child, url } = await startNotes(dir, ['--metrics'], env);
    try {
      await createNote(url);
      const response = await fetch(url.replace(/\/mcp$/, '/metrics'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await response.text();
      expect(text).toMatch(/^# TYPE target_info gauge$/m);
      expect(text).toMatch(/^target_info\{service_name="unknown_service:/m);
    } finally {
      expect(await stop(child)).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --metrics without --http', async () => {
    const child = spawn(process.execPath, [MAIN, '--metrics'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toMatch(/--metrics serves GET \/metrics on the HTTP listener; it needs --http/);
  });
});
