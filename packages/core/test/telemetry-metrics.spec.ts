import { Injectable, Module, Tool } from '@gantry/core';
import { McpError } from '@gantry/protocol';
import { Test, type TestingModule } from '@gantry/testing';
import { metrics } from '@opentelemetry/api';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createTaskApp, Gates } from './fixtures/task-app';
import { openWire } from './support/wire';

/** Reads on demand (`collect()`), as a Prometheus scrape would. */
class ReadOnDemand extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

@Injectable()
class Tools {
  @Tool({ description: 'Works' })
  fine() {
    return 'ok';
  }

  @Tool({ description: 'Fails inside the tool' })
  broken(): string {
    throw new Error('no');
  }

  @Tool({ description: 'Refuses with a JSON-RPC error' })
  refuse(): string {
    throw new McpError(-32001, 'not today');
  }
}

@Module({ providers: [Tools] })
class ToolsModule {}

async function points(reader: MetricReader, name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics.filter((metric) => metric.descriptor.name === name),
  );
  return found.flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
}

describe('OpenTelemetry metrics', () => {
  let module: TestingModule;
  afterEach(async () => {
    await module?.close();
    metrics.disable();
  });

  it('picks up a global meter provider registered after the app was created', async () => {
    module = await Test.createTestingModule({ imports: [ToolsModule] }).compile();
    const early = await module.createClient();
    await early.callTool('fine');
    // As a /metrics endpoint does: the provider comes once the app exists.
    const reader = new ReadOnDemand();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    // Gantry skips all work while this global is absent: it must be where the API registers.
    expect(Object.getOwnPropertySymbols(globalThis).map(String)).toContain('Symbol(opentelemetry.js.api.1)');

    const late = await module.createClient();
    await late.callTool('fine');
    // The second call records into the same series (its attributes are built once, then reused).
    await late.callTool('fine');
    await late.callTool('broken');
    await expect(late.callTool('refuse')).rejects.toThrow('not today');

    const durations = (await points(reader, 'mcp.server.operation.duration')).filter(
      (point) => point.attributes['mcp.method.name'] === 'tools/call',
    );
    const byTool = Object.fromEntries(
      durations.map((point) => [
        point.attributes['gen_ai.tool.name'],
        { error: point.attributes['error.type'], count: (point.value as Histogram).count },
      ]),
    );
    expect(byTool).toEqual({
      fine: { error: undefined, count: 2 },
      broken: { error: 'tool_error', count: 1 },
      refuse: { error: '-32001', count: 1 },
    });
    const [refused] = durations.filter((point) => point.attributes['gen_ai.tool.name'] === 'refuse');
    expect(refused.attributes).toMatchObject({
      'rpc.response.status_code': '-32001',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
    });

    // Both sessions count, the one opened before the provider came too.
    expect((await points(reader, 'gantry.server.sessions.active')).map((p) => p.value)).toEqual([2]);
    const [first] = module.app.server.sessions;
    const ended = new Promise<void>((resolve) => first.onClose(resolve));
    await early.close();
    await ended;
    expect((await points(reader, 'gantry.server.sessions.active')).map((p) => p.value)).toEqual([1]);
    const sessions = await points(reader, 'mcp.server.session.duration');
    expect(sessions.map((p) => (p.value as Histogram).count)).toEqual([1]);
    expect(sessions[0].attributes['mcp.protocol.version']).toBe('2025-11-25');
  });

  it('uses the meterProvider option instead of the global one', async () => {
    const reader = new ReadOnDemand();
    const global = new ReadOnDemand();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [global] }));
    module = await Test.createTestingModule({ imports: [ToolsModule] }).compile({
      telemetry: { meterProvider: new MeterProvider({ readers: [reader] }) },
    });
    await (await module.createClient()).callTool('fine');
    const own = await points(reader, 'mcp.server.operation.duration');
    expect(own.map((p) => p.attributes['mcp.method.name']).sort()).toEqual(['initialize', 'tools/call']);
    expect(await points(global, 'mcp.server.operation.duration')).toEqual([]);
  });

  it('records nothing with telemetry.enabled false', async () => {
    const reader = new ReadOnDemand();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    module = await Test.createTestingModule({ imports: [ToolsModule] }).compile({
      telemetry: { enabled: false },
    });
    const client = await module.createClient();
    await client.callTool('fine');
    await client.close();
    expect(await points(reader, 'mcp.server.operation.duration')).toEqual([]);
    expect(await points(reader, 'mcp.server.session.duration')).toEqual([]);
    expect(await points(reader, 'gantry.server.sessions.active')).toEqual([]);
  });
});

describe('gantry.server.tasks.active', () => {
  it('counts the tasks whose handler runs on this node', async () => {
    const reader = new ReadOnDemand();
    const gates = new Gates();
    const app = await createTaskApp(
      { telemetry: { meterProvider: new MeterProvider({ readers: [reader] }) }, shutdownGraceMs: 0 },
      gates,
    );
    const wire = await openWire(app);
    try {
      await wire.initialize({ protocolVersion: '2025-11-25' });
      wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait_forever', task: {} } });
      const { taskId } = (await wire.nextMatching((m) => m.id === 1)).result.task;
      expect((await points(reader, 'gantry.server.tasks.active')).map((p) => p.value)).toEqual([1]);
      wire.send({ jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { taskId } });
      await wire.nextMatching((m) => m.id === 2);
      // The handler ends once its signal aborted; tasks/result waits for the stored outcome.
      wire.send({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId } });
      await wire.nextMatching((m) => m.id === 3);
      await app.server.inflight.settled();
      expect((await points(reader, 'gantry.server.tasks.active')).map((p) => p.value)).toEqual([0]);
    } finally {
      await wire.close();
      await app.close();
    }
  });
});
