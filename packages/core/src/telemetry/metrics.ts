import {
  type Attributes,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  type ObservableResult,
} from '@opentelemetry/api';

/** What kind of stream a transport holds open (`gantry.server.streams.active`, attribute `kind`). */
export type StreamKind = 'sse' | 'websocket' | 'listen';

const STREAM_KINDS: readonly StreamKind[] = ['sse', 'websocket', 'listen'];

/**
 * Bucket boundaries the conventions advise for `mcp.server.operation.duration` and
 * `mcp.server.session.duration` (semantic-conventions-genai, docs/gen-ai/mcp.md §Metrics).
 */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

const SCOPE = '@gantry/core';

/**
 * The server's instruments, through the OpenTelemetry metrics API. The API has no proxy
 * provider: a meter taken from it before an SDK registers stays a no-op for good. So the
 * provider is resolved again on every use — the `meterProvider` option when given, else the
 * global one, compared by identity (one property read) — and the instruments are rebuilt when
 * it changed, e.g. once a `/metrics` endpoint registered its provider after the app started.
 * Gauges are observable: they read counts kept here, so a rebuilt instrument starts right.
 */
export class ServerMetrics {
  private provider?: MeterProvider;
  private operation?: Histogram;
  private session?: Histogram;
  /** Session-era connections open on this node (replicas of cluster sessions included). */
  private sessions = 0;
  private readonly streams: Record<StreamKind, number> = { sse: 0, websocket: 0, listen: 0 };
  private readonly streamAttributes: Record<StreamKind, Attributes> = {
    sse: Object.freeze({ kind: 'sse' }),
    websocket: Object.freeze({ kind: 'websocket' }),
    listen: Object.freeze({ kind: 'listen' }),
  };

  /** How many tasks run on this node (`gantry.server.tasks.active`), when tasks are on. */
  runningTasks?: () => number;

  constructor(private readonly explicit?: MeterProvider) {}

  /** True when measurements go somewhere (an SDK's provider, not the API's no-op). */
  refresh(): boolean {
    const provider = this.explicit ?? metrics.getMeterProvider();
    if (provider !== this.provider) this.rebuild(provider);
    return this.operation !== undefined;
  }

  /** `mcp.server.operation.duration`, in seconds. */
  operationEnded(seconds: number, attributes: Attributes): void {
    if (this.refresh()) this.operation?.record(seconds, attributes);
  }

  /** A session-era connection opened. */
  sessionOpened(): void {
    this.sessions++;
    this.refresh();
  }

  /** A session-era connection closed after `seconds`: `mcp.server.session.duration`. */
  sessionClosed(seconds: number, attributes: Attributes): void {
    this.sessions--;
    if (this.refresh()) this.session?.record(seconds, attributes);
  }

  streamOpened(kind: StreamKind): void {
    this.streams[kind]++;
    this.refresh();
  }

  streamClosed(kind: StreamKind): void {
    this.streams[kind]--;
  }

  private rebuild(provider: MeterProvider): void {
    this.provider = provider;
    const meter = provider.getMeter(SCOPE);
    if (meter === createNoopMeter()) {
      this.operation = this.session = undefined;
      return;
    }
    this.operation = meter.createHistogram('mcp.server.operation.duration', {
      description:
        'MCP request duration as observed on the receiver from the time it was received until the result is sent',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.session = meter.createHistogram('mcp.server.session.duration', {
      description: 'The duration of the MCP session as observed on the MCP server',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    meter
      .createObservableUpDownCounter('gantry.server.sessions.active', {
        description: 'Session-era MCP connections open on this node',
        unit: '{session}',
      })
      .addCallback((result: ObservableResult) => result.observe(this.sessions));
    meter
      .createObservableUpDownCounter('gantry.server.streams.active', {
        description: 'Streams open on this node: SSE responses, WebSocket connections, listen streams',
        unit: '{stream}',
      })
      .addCallback((result: ObservableResult) => {
        for (const kind of STREAM_KINDS) result.observe(this.streams[kind], this.streamAttributes[kind]);
      });
    meter
      .createObservableUpDownCounter('gantry.server.tasks.active', {
        description: 'Tasks whose handler runs on this node (working or input_required)',
        unit: '{task}',
      })
      .addCallback((result: ObservableResult) => result.observe(this.runningTasks?.() ?? 0));
  }
}
