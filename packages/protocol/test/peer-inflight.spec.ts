// PeerOptions.maxInflight: the Peer runs at most that many inbound requests at once, holds
// the rest back and pauses a transport that can pause, or refuses them on one that cannot.
import {
  InMemoryTransport,
  type JSONRPCMessage,
  Peer,
  type PeerOptions,
  type Transport,
  type TransportSink,
  type WireMessage,
} from '@gantry/protocol';

/** A transport driven by the test: it delivers what the test says, and records the rest. */
class ScriptedTransport implements Transport {
  sink?: TransportSink;
  readonly sent: WireMessage[] = [];
  /** `pauseReading` and `resumeReading` calls, in order. */
  readonly reading: string[] = [];
  /** When set, sends stay pending until the test settles them. */
  holdSends = false;
  private readonly pendingSends: Array<() => void> = [];

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  send(message: WireMessage): Promise<void> {
    this.sent.push(message);
    if (!this.holdSends) return Promise.resolve();
    return new Promise((resolve) => this.pendingSends.push(resolve));
  }

  async close(): Promise<void> {
    this.sink?.closed();
  }

  /** Settles the oldest pending send (its message was written). */
  written(): void {
    this.pendingSends.shift()?.();
  }

  deliver(message: object): void {
    this.sink?.message(message);
  }

  responseTo(id: number): JSONRPCMessage | undefined {
    return this.sent.find((m) => !Array.isArray(m) && 'id' in m && m.id === id && !('method' in m)) as
      | JSONRPCMessage
      | undefined;
  }
}

class PausableTransport extends ScriptedTransport {
  pauseReading(): void {
    this.reading.push('pause');
  }

  resumeReading(): void {
    this.reading.push('resume');
  }
}

/** Handlers that run until the test lets them finish. */
class Gates {
  readonly started: number[] = [];
  running = 0;
  peak = 0;
  private readonly open = new Map<number, () => void>();

  readonly onRequest: PeerOptions['onRequest'] = async (request) => {
    const n = request.id as number;
    this.started.push(n);
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    await new Promise<void>((resolve) => this.open.set(n, resolve));
    this.running--;
    return { n };
  };

  finish(n: number): void {
    const release = this.open.get(n);
    if (!release) throw new Error(`request ${n} is not running`);
    this.open.delete(n);
    release();
  }
}

const request = (id: number, method = 'work') => ({ jsonrpc: '2.0', id, method });
const cancel = (requestId: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});

/** Lets every queued microtask and promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const peers: Peer[] = [];

async function connected(transport: Transport, options: PeerOptions) {
  const peer = new Peer(options);
  peers.push(peer);
  await peer.connect(transport);
  return peer;
}

afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

describe('Peer: maxInflight on a transport that can pause', () => {
  it('runs at most maxInflight requests, holds the rest in order, and pauses once as many are held', async () => {
    const transport = new PausableTransport();
    const gates = new Gates();
    await connected(transport, { onRequest: gates.onRequest, maxInflight: 2 });
    for (let id = 1; id <= 3; id++) transport.deliver(request(id));
    await settle();
    expect(gates.started).toEqual([1, 2]);
    // One held: reading goes on (a cancellation may still come).
    expect(transport.reading).toEqual([]);
    transport.deliver(request(4));
    expect(transport.reading).toEqual(['pause']);
    // Messages already read still arrive while paused, and wait too.
    transport.deliver(request(5));
    transport.deliver({ jsonrpc: '2.0', method: 'notifications/note' });

    gates.finish(1);
    await settle();
    expect(transport.responseTo(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { n: 1 } });
    expect(gates.started).toEqual([1, 2, 3]);
    expect(transport.reading).toEqual(['pause']);
    gates.finish(2);
    await settle();
    expect(gates.started).toEqual([1, 2, 3, 4]);
    // Held now: request 5 and the notification behind it, two: still paused.
    expect(transport.reading).toEqual(['pause']);
    gates.finish(3);
    await settle();
    expect(gates.started).toEqual([1, 2, 3, 4, 5]);
    expect(transport.reading).toEqual(['pause', 'resume']);
    gates.finish(4);
    gates.finish(5);
    await settle();
    for (let id = 1; id <= 5; id++) expect(transport.responseTo(id)).toMatchObject({ result: { n: id } });
    expect(gates.peak).toBe(2);
  });

  it('keeps a slot until the response is written, so a reader that does not read stops intake', async () => {
    const transport = new PausableTransport();
    const started: number[] = [];
    await connected(transport, {
      onRequest: (r) => {
        started.push(r.id as number);
        return {};
      },
      maxInflight: 1,
    });
    transport.holdSends = true;
    transport.deliver(request(1));
    transport.deliver(request(2));
    await settle();
    // Request 1 is answered, but its response is not written yet: 2 waits.
    expect(started).toEqual([1]);
    expect(transport.sent).toHaveLength(1);
    transport.written();
    await settle();
    expect(started).toEqual([1, 2]);
  });

  it('drops a held request that is cancelled, and frees the slot of a running one when it is cancelled', async () => {
    const transport = new PausableTransport();
    const gates = new Gates();
    await connected(transport, { onRequest: gates.onRequest, maxInflight: 1 });
    transport.deliver(request(1));
    transport.deliver(request(2));
    transport.deliver(request(3));
    await settle();
    expect(gates.started).toEqual([1]);
    transport.deliver(cancel(2));
    // The cancellation overtakes what is held; cancelling 1 frees its slot though its handler
    // ignores the abort and keeps running.
    transport.deliver(cancel(1));
    await settle();
    expect(gates.started).toEqual([1, 3]);
    gates.finish(1);
    gates.finish(3);
    await settle();
    expect(transport.responseTo(3)).toMatchObject({ result: { n: 3 } });
    expect(transport.responseTo(1)).toBeUndefined();
    expect(transport.responseTo(2)).toBeUndefined();
  });

  it('never holds back answers to its own requests, and reads on while it awaits them', async () => {
    const transport = new PausableTransport();
    let peer: Peer | undefined;
    const answers: unknown[] = [];
    peer = await connected(transport, {
      // Every handler asks the other side first; the answers arrive behind held requests.
      onRequest: async () => {
        answers.push(await (peer as Peer).request({ method: 'ask' }));
        return {};
      },
      maxInflight: 1,
    });
    transport.deliver(request(1));
    await settle();
    const asked = transport.sent[0] as { id: number; method: string };
    expect(asked.method).toBe('ask');
    // Held requests beyond maxInflight: no pause while an answer is awaited.
    for (let id = 2; id <= 5; id++) transport.deliver(request(id));
    expect(transport.reading).toEqual([]);
    transport.deliver({ jsonrpc: '2.0', id: asked.id, result: { word: 'w' } });
    await settle();
    expect(answers).toEqual([{ word: 'w' }]);
    expect(transport.responseTo(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers a batch as before and frees its slots once the batch response is written', async () => {
    const transport = new PausableTransport();
    const started: number[] = [];
    await connected(transport, {
      onRequest: (r) => {
        started.push(r.id as number);
        return {};
      },
      acceptBatch: () => true,
      maxInflight: 1,
    });
    transport.holdSends = true;
    // A batch goes in whole, even past the limit; what follows waits for its slots.
    transport.deliver([request(1), request(2)]);
    transport.deliver(request(3));
    await settle();
    expect(started).toEqual([1, 2]);
    expect(transport.sent).toEqual([
      [expect.objectContaining({ id: 1 }), expect.objectContaining({ id: 2 })],
    ]);
    transport.written();
    await settle();
    expect(started).toEqual([1, 2, 3]);
  });
});

/** Like stdio: what is sent in one tick goes out in one write, and every send returns its promise. */
class BatchingTransport extends PausableTransport {
  private write?: { promise: Promise<void>; settle: (error?: Error) => void };
  sends = 0;

  override send(message: WireMessage): Promise<void> {
    this.sent.push(message);
    this.sends++;
    if (!this.write) {
      let settle!: (error?: Error) => void;
      const promise = new Promise<void>((resolve, reject) => {
        settle = (error) => (error ? reject(error) : resolve());
      });
      this.write = { promise, settle };
    }
    return this.write.promise;
  }

  /** The pending write completes, or fails with `error`. */
  finishWrite(error?: Error): void {
    const write = this.write;
    this.write = undefined;
    write?.settle(error);
  }
}

describe('Peer: maxInflight on a transport that joins its writes', () => {
  it('keeps the slots of answers sharing one write until it settles, then frees them all', async () => {
    const transport = new BatchingTransport();
    const started: number[] = [];
    await connected(transport, {
      onRequest: (r) => {
        started.push(r.id as number);
        return {};
      },
      maxInflight: 2,
    });
    for (let id = 1; id <= 4; id++) transport.deliver(request(id));
    await settle();
    // 1 and 2 are answered in one write that has not completed: 3 and 4 wait.
    expect(started).toEqual([1, 2]);
    expect(transport.sent).toHaveLength(2);
    transport.finishWrite();
    await settle();
    expect(started).toEqual([1, 2, 3, 4]);
    transport.finishWrite();
    await settle();
    for (let id = 1; id <= 4; id++) expect(transport.responseTo(id)).toMatchObject({ result: {} });
  });

  it('reports a failed write once, however many answers it carried, and frees their slots', async () => {
    const transport = new BatchingTransport();
    const errors: Error[] = [];
    const started: number[] = [];
    await connected(transport, {
      onRequest: (r) => {
        started.push(r.id as number);
        return {};
      },
      onError: (error) => errors.push(error),
      maxInflight: 2,
    });
    for (let id = 1; id <= 3; id++) transport.deliver(request(id));
    await settle();
    transport.finishWrite(new Error('EPIPE: the reader went away'));
    await settle();
    expect(errors.map((error) => error.message)).toEqual(['EPIPE: the reader went away']);
    expect(started).toEqual([1, 2, 3]);
  });
});

describe('Peer: maxInflight on a transport that cannot pause', () => {
  it('answers a request beyond the limit with −32603 naming maxInflight, and takes requests again once one is answered', async () => {
    const transport = new ScriptedTransport();
    const gates = new Gates();
    await connected(transport, { onRequest: gates.onRequest, maxInflight: 1 });
    transport.deliver(request(1));
    transport.deliver(request(2));
    await settle();
    expect(gates.started).toEqual([1]);
    expect(transport.responseTo(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32603,
        message: expect.stringContaining('at most 1 at once (maxInflight)'),
        data: { maxInflight: 1 },
      },
    });
    gates.finish(1);
    await settle();
    transport.deliver(request(3));
    await settle();
    expect(gates.started).toEqual([1, 3]);
  });
});

describe('Peer: maxInflight defaults and checks', () => {
  it('has no limit by default', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const gates = new Gates();
    await connected(a, { onRequest: gates.onRequest });
    const client = await connected(b, {});
    const calls = Array.from({ length: 100 }, () => client.request({ method: 'work' }));
    await settle();
    expect(gates.running).toBe(100);
    for (const n of [...gates.started]) gates.finish(n);
    await Promise.all(calls);
  });

  it('refuses a maxInflight that is not a whole number ≥ 1', () => {
    expect(() => new Peer({ maxInflight: 0 })).toThrow('maxInflight must be a whole number ≥ 1 (got 0)');
    expect(() => new Peer({ maxInflight: 1.5 })).toThrow(TypeError);
  });
});
