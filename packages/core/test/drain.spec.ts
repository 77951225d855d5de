// The drain as the application sees it, in memory: readiness by check, the refusal of new work
// after `drainDelayMs`, an in-flight call answered after `close()` began, and the options checked.
import 'reflect-metadata';
import { connectionHostOf, GantryFactory } from '@gantry/core';
import { Test } from '@gantry/testing';
import { createDrainApp, DrainModule, Latch } from './fixtures/drain-app';

const REFUSAL = 'the server is shutting down; retry, another instance will answer';

describe('readiness', () => {
  it('names every check, and fails draining from the moment close() begins', async () => {
    const app = await createDrainApp();
    const host = connectionHostOf(app);
    expect(host.readiness()).toEqual({
      ready: true,
      checks: { bootstrapped: { ok: true }, draining: { ok: true } },
    });
    expect(host.refusal).toBeUndefined();
    expect(app.draining).toBe(false);
    const closing = app.close();
    expect(app.draining).toBe(true);
    expect(host.readiness()).toEqual({
      ready: false,
      checks: {
        bootstrapped: { ok: true },
        draining: { ok: false, error: 'the application is shutting down' },
      },
    });
    expect(host.refusal).toBe(REFUSAL);
    await closing;
  });
});

describe('a new listen stream while draining', () => {
  it('is refused, naming the cause, while the grace runs', async () => {
    const module = await Test.createTestingModule({ imports: [DrainModule] }).compile();
    const client = await module.createClient();
    const latch = module.get(Latch);
    const call = client.callTool('hold');
    await latch.started;
    const closing = module.app.close();
    const listen = {
      jsonrpc: '2.0' as const,
      id: 'l1',
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    expect(await connectionHostOf(module.app).exchange(listen, { notify: () => undefined })).toEqual({
      jsonrpc: '2.0',
      id: 'l1',
      error: { code: -32603, message: `Service Unavailable: ${REFUSAL}`, data: { retryAfterMs: 2000 } },
    });
    latch.release();
    await call;
    await closing;
    await module.close();
  });
});

describe('drainDelayMs', () => {
  afterEach(() => jest.useRealTimers());

  it('reports not ready while still accepting new work, then refuses it', async () => {
    const app = await createDrainApp({ drainDelayMs: 5_000 });
    const host = connectionHostOf(app);
    jest.useFakeTimers();
    const closing = app.close();
    expect(host.readiness().ready).toBe(false);
    expect(host.refusal).toBeUndefined();
    await jest.advanceTimersByTimeAsync(4_999);
    expect(host.refusal).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(host.refusal).toBe(REFUSAL);
    jest.useRealTimers();
    await closing;
  });
});

describe('shutdownGraceMs', () => {
  it('lets an in-flight call finish after close() began, and delivers its result', async () => {
    const module = await Test.createTestingModule({ imports: [DrainModule] }).compile();
    const client = await module.createClient();
    const latch = module.get(Latch);
    const call = client.callTool('hold');
    await latch.started;
    const closing = module.app.close();
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    // The open session is still served, and close() waits for the held call.
    expect(await client.callTool('quick')).toEqual({ content: [{ type: 'text', text: 'quick' }] });
    expect(closed).toBe(false);
    latch.release();
    expect(await call).toEqual({ content: [{ type: 'text', text: 'held and released' }] });
    await closing;
    await module.close();
  });

  it('must be a number of milliseconds, as must drainDelayMs', async () => {
    const create = (options: object) =>
      GantryFactory.create(DrainModule, { name: 'd', version: '1', logger: false, ...options });
    await expect(create({ shutdownGraceMs: -1 })).rejects.toThrow(
      'shutdownGraceMs must be a number of milliseconds from 0 to 2147483647, got -1',
    );
    await expect(create({ drainDelayMs: '5s' })).rejects.toThrow(
      'drainDelayMs must be a number of milliseconds from 0 to 2147483647, got "5s"',
    );
  });
});
