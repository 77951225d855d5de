// stdio({ maxInflight }) through the wire (in-process streams): the server runs at most that
// many requests at once, holds the rest, stops reading stdin once as many are held, and reads
// on as answers go out; the default is 64.
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import { Args, type GantryApplication, GantryFactory, Injectable, Module, stdio, Tool } from '@gantry/core';

class Probe {
  started: number[] = [];
  running = 0;
  peak = 0;
  private gates: Array<() => void> = [];
  private onChange?: () => void;

  releaseAll(): void {
    for (const release of this.gates.splice(0)) release();
  }

  /** Resolves once `test()` holds, checked whenever a call starts or ends. */
  until(test: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      if (test()) return resolve();
      const previous = this.onChange;
      this.onChange = () => {
        previous?.();
        if (test()) {
          this.onChange = previous;
          resolve();
        }
      };
    });
  }

  async hold(n: number): Promise<void> {
    this.started.push(n);
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    this.onChange?.();
    await new Promise<void>((resolve) => this.gates.push(resolve));
    this.running--;
    this.onChange?.();
  }
}

async function createApp() {
  const probe = new Probe();

  @Injectable()
  class HoldTools {
    constructor(private readonly p: Probe) {}

    @Tool({
      description: 'Runs until the test releases it',
      input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    })
    async hold(@Args() { n }: { n: number }) {
      await this.p.hold(n);
      return `held ${n}`;
    }
  }

  @Module({ providers: [{ provide: Probe, useValue: probe }, HoldTools] })
  class HoldModule {}

  const app = await GantryFactory.create(HoldModule, { name: 'hold', version: '1.0.0', logger: false });
  return { app, probe };
}

/** A client on in-process pipes: writes lines, collects the answers by id. */
function client(input: PassThrough, output: PassThrough) {
  const answers = new Map<unknown, any>();
  const waiters = new Map<unknown, (answer: any) => void>();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let i = buffered.indexOf('\n'); i !== -1; i = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
      if (!('id' in message) || 'method' in message) continue;
      answers.set(message.id, message);
      waiters.get(message.id)?.(message);
    }
  });
  return {
    answers,
    send: (message: object) => input.write(`${JSON.stringify(message)}\n`),
    answer: (id: unknown): Promise<any> =>
      answers.has(id) ? Promise.resolve(answers.get(id)) : new Promise((resolve) => waiters.set(id, resolve)),
  };
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'hold', arguments: { n: id } },
});

describe('stdio: maxInflight', () => {
  let app: GantryApplication;
  let probe: Probe;

  async function serve(options: { maxInflight?: number }) {
    ({ app, probe } = await createApp());
    const input = new PassThrough();
    const output = new PassThrough();
    await app.listen(stdio({ input, output, closeOnEnd: false, ...options }));
    const c = client(input, output);
    c.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await c.answer(0);
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return { input, ...c };
  }

  afterEach(async () => {
    probe?.releaseAll();
    await app?.close();
  });

  it('runs at most maxInflight requests, pauses stdin once as many are held, and answers every one', async () => {
    const wire = await serve({ maxInflight: 2 });
    for (let id = 1; id <= 3; id++) wire.send(call(id));
    await probe.until(() => probe.started.length === 2);
    // One request held: stdin is still read, so a cancellation could arrive.
    expect(wire.input.isPaused()).toBe(false);
    wire.send(call(4));
    await new Promise((resolve) => setImmediate(resolve));
    expect(wire.input.isPaused()).toBe(true);
    expect(probe.started).toEqual([1, 2]);

    probe.releaseAll();
    expect((await wire.answer(1)).result.content[0].text).toBe('held 1');
    await probe.until(() => probe.started.length === 4);
    expect(probe.started).toEqual([1, 2, 3, 4]);
    expect(wire.input.isPaused()).toBe(false);
    probe.releaseAll();
    for (let id = 1; id <= 4; id++) expect((await wire.answer(id)).result.content[0].text).toBe(`held ${id}`);
    expect(probe.peak).toBe(2);
  });

  it('drops a held request the client cancels, and frees the slot of a running one it cancels', async () => {
    const wire = await serve({ maxInflight: 2 });
    for (let id = 1; id <= 3; id++) wire.send(call(id));
    await probe.until(() => probe.started.length === 2);
    // 3 is held (fewer than maxInflight are, so stdin is still read): cancelled, it never runs.
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    // 1 runs on (its handler ignores the abort), but no answer follows, so its slot is free.
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    wire.send(call(4));
    await probe.until(() => probe.started.length === 3);
    expect(probe.started).toEqual([1, 2, 4]);
    probe.releaseAll();
    expect((await wire.answer(4)).result.content[0].text).toBe('held 4');
    expect((await wire.answer(2)).result.content[0].text).toBe('held 2');
    wire.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    await wire.answer(5);
    expect(wire.answers.has(1)).toBe(false);
    expect(wire.answers.has(3)).toBe(false);
  });

  it('runs 64 requests at once by default', async () => {
    const wire = await serve({});
    for (let id = 1; id <= 70; id++) wire.send(call(id));
    await probe.until(() => probe.started.length === 64);
    probe.releaseAll();
    await probe.until(() => probe.started.length === 70);
    expect(probe.peak).toBe(64);
    probe.releaseAll();
    for (let id = 1; id <= 70; id++) await wire.answer(id);
  });

  it('refuses a maxInflight that is not a whole number ≥ 1', () => {
    expect(() => stdio({ maxInflight: 0 })).toThrow('stdio: maxInflight must be a whole number ≥ 1 (got 0)');
    expect(() => stdio({ maxInflight: 2.5 })).toThrow(/maxInflight/);
  });
});
