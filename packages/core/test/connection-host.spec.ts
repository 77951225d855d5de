// The ConnectionHost that transports are written against: connectionHostOf() and the
// single-use exchange of a stateless-era request (no session, no Peer).
import 'reflect-metadata';
import { connectionHostOf, type GantryApplication } from '@gantry/core';
import { createDualEraApp } from './fixtures/dual-era-app';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function call(
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  meta: Record<string, unknown> = META,
) {
  return {
    jsonrpc: '2.0' as const,
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: meta },
  };
}

let app: GantryApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('connectionHostOf', () => {
  it('refuses what is not a Gantry application, naming what it got', () => {
    expect(() => connectionHostOf({})).toThrow('Expected a Gantry application (from GantryFactory.create)');
    expect(() => connectionHostOf(null)).toThrow('got null');
    expect(() => connectionHostOf('app')).toThrow('got string');
  });
});

describe('ConnectionHost.exchange', () => {
  it('answers a stateless-era request with its result', async () => {
    app = await createDualEraApp();
    const response = await connectionHostOf(app).exchange(call(1, 'echo', { text: 'hi' }), { notify() {} });
    expect(response).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete' },
    });
  });

  it('checks the _meta itself and answers −32602 naming the missing capabilities key', async () => {
    app = await createDualEraApp();
    const response = await connectionHostOf(app).exchange(
      call(2, 'echo', { text: 'hi' }, { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }),
      { notify() {} },
    );
    expect(response).toMatchObject({ id: 2, error: { code: -32602 } });
    expect((response as { error: { message: string } }).error.message).toContain(
      'io.modelcontextprotocol/clientCapabilities',
    );
  });

  it('carries the notifications of the request to the exchange', async () => {
    app = await createDualEraApp();
    const notes: unknown[] = [];
    const meta = { ...META, 'io.modelcontextprotocol/logLevel': 'debug' };
    const response = await connectionHostOf(app).exchange(call(3, 'log_levels', {}, meta), {
      notify: (n) => {
        notes.push(n);
      },
    });
    expect(response).toMatchObject({ id: 3, result: { resultType: 'complete' } });
    expect(notes).toEqual([
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ level: 'debug' }),
      }),
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ level: 'error' }),
      }),
    ]);
  });

  it('produces no response once its signal aborts, and the handler sees the abort', async () => {
    app = await createDualEraApp();
    const controller = new AbortController();
    const pending = connectionHostOf(app).exchange(call(4, 'wait_for_cancel'), {
      signal: controller.signal,
      notify() {},
    });
    controller.abort(new Error('client went away'));
    expect(await pending).toBeUndefined();
  });

  it('hands bindCancel the canceller before the handler runs; cancelling produces no response', async () => {
    app = await createDualEraApp();
    let cancel: ((reason?: unknown) => void) | undefined;
    const pending = connectionHostOf(app).exchange(call(5, 'wait_for_cancel'), {
      bindCancel(cancelExchange) {
        cancel = cancelExchange;
      },
      notify() {},
    });
    expect(cancel).toBeInstanceOf(Function);
    cancel?.(new Error('client went away'));
    expect(await pending).toBeUndefined();
  });

  it('answers as usual when bindCancel is given but never used', async () => {
    app = await createDualEraApp();
    const response = await connectionHostOf(app).exchange(call(6, 'echo', { text: 'kept' }), {
      bindCancel() {},
      notify() {},
    });
    expect(response).toMatchObject({ id: 6, result: { resultType: 'complete' } });
  });
});
