import {
  ConnectionClosedError,
  type InboundRequest,
  InMemoryTransport,
  type JSONRPCNotification,
  McpError,
  Peer,
  type PeerOptions,
  RequestCancelledError,
  RequestTimeoutError,
} from '@gantry/protocol';

async function pair(server: PeerOptions, client: PeerOptions = {}) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const serverPeer = new Peer(server);
  const clientPeer = new Peer(client);
  await serverPeer.connect(a);
  await clientPeer.connect(b);
  return { server: serverPeer, client: clientPeer };
}

const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Peer: requests and responses', () => {
  it('correlates concurrent responses by id, whatever their order', async () => {
    const { client } = await pair({
      onRequest: async (request) => {
        await tick(request.params?.delay as number);
        return { echo: request.params?.value };
      },
    });
    const results = await Promise.all([
      client.request({ method: 'a', params: { delay: 30, value: 1 } }),
      client.request({ method: 'b', params: { delay: 1, value: 2 } }),
      client.request({ method: 'c', params: { delay: 15, value: 3 } }),
    ]);
    expect(results).toEqual([{ echo: 1 }, { echo: 2 }, { echo: 3 }]);
  });

  it('rejects with the McpError subclass the peer answered', async () => {
    const { client } = await pair({
      onRequest: () => {
        throw new McpError(-32602, 'bad', { field: 'x' });
      },
    });
    const error = await client.request({ method: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error.name).toBe('InvalidParamsError');
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ field: 'x' });
  });

  it('turns an unknown handler error into −32603 with the message only', async () => {
    const reported: Error[] = [];
    const { client } = await pair({
      onRequest: () => {
        throw new Error('boom');
      },
      onError: (e) => reported.push(e),
    });
    await expect(client.request({ method: 'x' })).rejects.toMatchObject({
      code: -32603,
      message: 'Internal error: boom',
    });
    expect(reported.map((e) => e.message)).toEqual(['boom']);
  });

  it('answers −32601 when there is no request handler', async () => {
    const { client } = await pair({});
    await expect(client.request({ method: 'nothing/here' })).rejects.toMatchObject({
      code: -32601,
      message: 'Method not found: nothing/here',
    });
  });
});

// Fake timers (Date included): the timeouts are judged on a clock the machine's load cannot move.
describe('Peer: timeouts', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('rejects with RequestTimeoutError and tells the peer it gave up', async () => {
    const cancelled: unknown[] = [];
    const { client } = await pair({
      onRequest: (_r, inbound) =>
        new Promise((resolve) =>
          inbound.signal.addEventListener('abort', () => {
            cancelled.push(inbound.signal.reason);
            resolve({});
          }),
        ),
    });
    const pending = client.request({ method: 'slow' }, { timeoutMs: 50 }).catch((e) => e);
    await jest.advanceTimersByTimeAsync(49);
    expect(cancelled).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    const error = await pending;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.code).toBe('GANTRY_ERR_REQUEST_TIMEOUT');
    expect(error.message).toBe('Request "slow" timed out after 50 ms');
    await jest.advanceTimersByTimeAsync(0);
    expect(cancelled).toEqual(['Request timed out after 50 ms']);
  });

  it('restarts the timeout on progress when asked, up to maxTotalTimeoutMs', async () => {
    const { client } = await pair({
      onRequest: async (_r, inbound) => {
        for (let i = 1; i <= 100; i++) {
          if (inbound.signal.aborted) return {};
          await inbound.notify({
            method: 'notifications/progress',
            params: { progressToken: inbound.meta!.progressToken!, progress: i },
          });
          await tick(20);
        }
        return {};
      },
    });
    const seen: number[] = [];
    const started = Date.now();
    let settledAt: number | undefined;
    const pending = client
      .request(
        { method: 'long' },
        {
          timeoutMs: 80,
          resetTimeoutOnProgress: true,
          maxTotalTimeoutMs: 300,
          onProgress: (p) => seen.push(p.progress),
        },
      )
      .catch((e) => e)
      .finally(() => {
        settledAt = Date.now();
      });
    await jest.advanceTimersByTimeAsync(400);
    const error = await pending;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    // Progress kept it alive well past one timeout period, and the total bound ended it.
    expect(seen.length).toBeGreaterThan(4);
    expect(settledAt! - started).toBe(300);
  });

  it('resetTimeoutOnProgress without onProgress still asks for progress, and progress keeps the request alive', async () => {
    const timeoutMs = 100;
    const steps = 6;
    const tokens: unknown[] = [];
    const { client } = await pair({
      onRequest: async (_r, inbound) => {
        const token = inbound.meta?.progressToken;
        tokens.push(token);
        if (token === undefined) return new Promise(() => {});
        // Half a timeout between notifications, for three timeouts in all.
        for (let i = 1; i <= steps; i++) {
          await tick(timeoutMs / 2);
          if (inbound.signal.aborted) return {};
          await inbound.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i },
          });
        }
        return { finished: steps };
      },
    });
    const pending = client.request({ method: 'long' }, { timeoutMs, resetTimeoutOnProgress: true });
    await jest.advanceTimersByTimeAsync(steps * (timeoutMs / 2));
    expect(tokens).toEqual([0]);
    expect(await pending).toEqual({ finished: steps });
  });

  it('without resetTimeoutOnProgress, progress does not extend the wait', async () => {
    const { client } = await pair({
      onRequest: async (_r, inbound) => {
        for (let i = 1; i <= 20; i++) {
          if (inbound.signal.aborted) return {};
          await inbound.notify({
            method: 'notifications/progress',
            params: { progressToken: inbound.meta!.progressToken!, progress: i },
          });
          await tick(10);
        }
        return {};
      },
    });
    const seen: number[] = [];
    const pending = client
      .request({ method: 'long' }, { timeoutMs: 60, onProgress: (p) => seen.push(p.progress) })
      .catch((e) => e);
    await jest.advanceTimersByTimeAsync(60);
    expect(await pending).toBeInstanceOf(RequestTimeoutError);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(20);
  });
});

describe('Peer: cancellation', () => {
  it('an aborted signal sends notifications/cancelled, aborts the handler and drops the late result', async () => {
    let inboundSeen: InboundRequest | undefined;
    let finish: (() => void) | undefined;
    const { client } = await pair({
      onRequest: (_r, inbound) => {
        inboundSeen = inbound;
        return new Promise((resolve) => {
          finish = () => resolve({ late: true });
        });
      },
    });
    const controller = new AbortController();
    const pending = client.request({ method: 'work' }, { signal: controller.signal });
    await tick();
    controller.abort('user pressed stop');
    const error = await pending.catch((e) => e);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toBe('Request "work" was cancelled: user pressed stop');
    await tick();
    expect(inboundSeen!.cancelled).toBe(true);
    expect(inboundSeen!.signal.aborted).toBe(true);
    expect(inboundSeen!.signal.reason).toBe('user pressed stop');
    finish!();
    await tick();
    expect(client.isConnected).toBe(true);
  });

  it('rejects at once for a signal that is already aborted', async () => {
    const { client } = await pair({ onRequest: () => ({}) });
    await expect(client.request({ method: 'x' }, { signal: AbortSignal.abort('no') })).rejects.toBeInstanceOf(
      RequestCancelledError,
    );
  });

  it('cancels outbound requests a handler made when its own request is cancelled', async () => {
    let nestedError: unknown;
    const { client } = await pair(
      {
        onRequest: async (_r, inbound) => {
          nestedError = await inbound.sendRequest({ method: 'nested' }).catch((e) => e);
          return {};
        },
      },
      { onRequest: () => new Promise(() => {}) },
    );
    const controller = new AbortController();
    const outer = client.request({ method: 'outer' }, { signal: controller.signal });
    await tick();
    controller.abort();
    await outer.catch(() => {});
    await tick();
    expect(nestedError).toBeInstanceOf(RequestCancelledError);
  });
});

describe('Peer: close', () => {
  it('rejects every pending request with ConnectionClosedError and aborts every running handler', async () => {
    const aborted: string[] = [];
    let closedWith: unknown = 'not called';
    let serverClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      serverClosed = resolve;
    });
    const { client } = await pair({
      onRequest: (request, inbound) =>
        new Promise(() => inbound.signal.addEventListener('abort', () => aborted.push(request.method))),
      onClose: (error) => {
        closedWith = error;
        serverClosed();
      },
    });
    const first = client.request({ method: 'one' }).catch((e) => e);
    const second = client.request({ method: 'two' }).catch((e) => e);
    await tick();
    await client.close();
    expect(await first).toBeInstanceOf(ConnectionClosedError);
    expect((await second).code).toBe('GANTRY_ERR_CONNECTION_CLOSED');
    await closed;
    expect(closedWith).toBeUndefined();
    expect(aborted.sort()).toEqual(['one', 'two']);
    await expect(client.request({ method: 'after' })).rejects.toMatchObject({
      code: 'GANTRY_ERR_NOT_CONNECTED',
    });
  });
});

describe('Peer: notifications', () => {
  it('delivers notifications to the handler and never answers them, even when the handler throws', async () => {
    const got: JSONRPCNotification[] = [];
    const errors: Error[] = [];
    const { client } = await pair(
      {
        onNotification: (n) => {
          got.push(n);
          throw new Error('handler bug');
        },
        onError: (e) => errors.push(e),
      },
      { onNotification: (n) => got.push(n) },
    );
    await client.notify({ method: 'notifications/hello', params: { a: 1 } });
    await tick();
    expect(got).toEqual([{ jsonrpc: '2.0', method: 'notifications/hello', params: { a: 1 } }]);
    expect(errors.map((e) => e.message)).toEqual(['handler bug']);
  });
});

describe('Peer: timeout bounds and send failures', () => {
  it('applies a maxTotalTimeoutMs shorter than the timeout from the start', async () => {
    // Fake timers: on a loaded machine the 40 ms timer could fire late enough to look like the other.
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    try {
      const { client } = await pair({ onRequest: () => new Promise(() => {}) });
      const pending = client
        .request({ method: 'slow' }, { timeoutMs: 10_000, maxTotalTimeoutMs: 40 })
        .catch((e) => e);
      await jest.advanceTimersByTimeAsync(40);
      const error = await pending;
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(error.message).toBe('Request "slow" timed out after 40 ms');
    } finally {
      jest.useRealTimers();
    }
  });

  it('treats an infinite timeout as no timeout', async () => {
    const { client } = await pair({
      onRequest: async () => {
        await tick(30);
        return { done: true };
      },
    });
    await expect(client.request({ method: 'x' }, { timeoutMs: Number.POSITIVE_INFINITY })).resolves.toEqual({
      done: true,
    });
  });

  it('rejects a request at once when the transport fails to send it', async () => {
    const peer = new Peer();
    await peer.connect({
      start() {},
      send: () => Promise.reject(new Error('pipe broken')),
      close: async () => {},
    });
    await expect(peer.request({ method: 'x' }, { timeoutMs: 10_000 })).rejects.toThrow('pipe broken');
  });

  it('still ends the connection when the transport fails to close', async () => {
    const peer = new Peer();
    await peer.connect({
      start() {},
      send: () => new Promise(() => {}),
      close: () => Promise.reject(new Error('close failed')),
    });
    const pending = peer.request({ method: 'x' }).catch((e) => e);
    await expect(peer.close()).rejects.toThrow('close failed');
    expect(await pending).toBeInstanceOf(ConnectionClosedError);
    expect(peer.isConnected).toBe(false);
  });
});
