// The fuzz driver for message streams (stdio lines, WebSocket text frames): sends one input,
// waits for what the oracle says must come back, then a liveness probe that must succeed,
// and counts messages, crashes, hangs and violations. Inputs go one at a time, so every
// answer is attributed to the input that caused it. A timeout is used only to detect a hang.
import { type Era, type FuzzCase, FuzzCaseGenerator, statelessMeta } from './fuzz-cases';
import {
  answerProblem,
  batchProblems,
  type Expectation,
  expectationFor,
  type OracleContext,
  type RequestId,
} from './oracle';
import { fuzzSeed, Prng } from './prng';
import { emptyFigures, type LaneFigures, noteExample } from './results';

/** One open connection to the server: frames out, text messages in, and how it ended. */
export interface FrameChannel {
  send(frame: Buffer, options?: { binary?: boolean }): void;
  /** Resolves when the connection ends, with the WebSocket close code if there is one. */
  readonly closed: Promise<{ code?: number; detail: string }>;
  close(): Promise<void>;
}

export interface StreamLaneOptions {
  name: string;
  transport: 'stdio' | 'ws';
  era: Era;
  /** Session era: the version `initialize` asks for (2025-03-26 enables batches). */
  protocolVersion?: string;
  inputs: number;
  /** Wall-clock budget; the lane stops early (and says so) when it runs out. */
  budgetMs: number;
  maxFrameBytes: number;
  /** Opens a connection whose incoming text messages go to `onText`. */
  open(onText: (text: string) => void): Promise<FrameChannel>;
  /** The server process's RSS in bytes (sampled every second). */
  rss(): number;
  seedOffset: number;
  /** Transport-specific inputs (WebSocket binary frames), tried before the generator's. */
  extraCase?: (random: Prng, n: number) => FuzzCase | undefined;
}

export const HANG_MS = Number(process.env.REL_HANG_MS ?? 10_000);
const MAX_HANGS = 3;
const MAX_REOPENS = 3;

type Waiter = { expect: Extract<Expectation, { kind: 'answer' }>; resolve: () => void };

export class StreamFuzzLane {
  readonly figures: LaneFigures;
  private channel?: FrameChannel;
  private readonly byId = new Map<string, Waiter>();
  private readonly nullWaiters: Waiter[] = [];
  /** Optional answers (`maybe`): null-id errors by count, others by id, for the current input only. */
  private maybeCredit = 0;
  private readonly maybeIds = new Set<string>();
  private batchWaiter?: { entries: Expectation[]; required: boolean; resolve: () => void };
  private initialized = false;
  private probeCount = 0;
  private closing = false;
  private current = '';

  constructor(private readonly options: StreamLaneOptions) {
    this.figures = emptyFigures(options.name, options.transport);
    this.figures.seed = fuzzSeed();
  }

  private violation(line: string): void {
    this.figures.violations++;
    noteExample(this.figures, `violation after ${this.current}: ${line}`);
  }

  private get context(): OracleContext {
    return {
      transport: this.options.transport,
      batches: this.initialized && this.options.protocolVersion === '2025-03-26',
      initialized: this.initialized,
      maxFrameBytes: this.options.maxFrameBytes,
    };
  }

  private onText = (text: string): void => {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.violation(`the server sent a frame that is not JSON: ${text.slice(0, 120)}`);
      return;
    }
    if (Array.isArray(message)) return this.onBatch(message);
    const object = message as Record<string, unknown>;
    if (object && typeof object === 'object' && 'method' in object) {
      if ('id' in object) this.violation(`unexpected server request ${String(object.method)}`);
      return; // notifications (logs, list changes) are allowed at any time
    }
    this.onResponse(object);
  };

  private onResponse(message: Record<string, unknown>): void {
    const id = message?.id;
    const waiter =
      id === null || id === undefined ? this.nullWaiters.shift() : this.byId.get(JSON.stringify(id));
    if (waiter) {
      if (id !== null && id !== undefined) this.byId.delete(JSON.stringify(id));
      const problem = answerProblem(waiter.expect, message);
      if (problem) this.violation(problem);
      waiter.resolve();
      return;
    }
    const optional =
      id === null || id === undefined ? this.maybeCredit > 0 : this.maybeIds.delete(JSON.stringify(id));
    if (optional) {
      if (id === null || id === undefined) this.maybeCredit--;
      const expected = {
        kind: 'answer' as const,
        id: (id ?? null) as RequestId | null,
        codes: new Set([-32600]),
        result: false,
      };
      const problem = answerProblem(expected, message);
      if (problem) this.violation(problem);
      return;
    }
    this.violation(`unsolicited response ${JSON.stringify(message).slice(0, 200)}`);
  }

  private onBatch(responses: unknown[]): void {
    const waiter = this.batchWaiter;
    this.batchWaiter = undefined;
    if (!waiter) return this.violation(`unexpected batch answer ${JSON.stringify(responses).slice(0, 200)}`);
    for (const problem of batchProblems(waiter.entries, responses)) this.violation(problem);
    waiter.resolve();
  }

  private async openChannel(): Promise<void> {
    this.channel = await this.options.open(this.onText);
    this.initialized = false;
    const channel = this.channel;
    channel.closed.then(({ detail }) => {
      if (this.channel === channel && !this.closing) this.lost = detail;
    });
    if (this.options.era === 'session') {
      const ok = await this.request('initialize', {
        protocolVersion: this.options.protocolVersion ?? '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'reliability-fuzzer', version: '1.0.0' },
      });
      if (!ok) throw new Error(`${this.options.name}: initialize was not answered`);
      this.sendJson({ jsonrpc: '2.0', method: 'notifications/initialized' });
      this.initialized = true;
    }
  }

  private lost?: string;

  private sendJson(message: unknown): void {
    this.figures.messages++;
    this.channel?.send(Buffer.from(JSON.stringify(message)));
  }

  /** Awaits `done`, or the hang bound, or the connection ending; says which. */
  private async settle(done: Promise<void>): Promise<'ok' | 'hang' | 'lost'> {
    let timer: NodeJS.Timeout | undefined;
    const closed = this.channel?.closed.then(() => 'lost' as const) ?? Promise.resolve('lost' as const);
    const outcome = await Promise.race([
      done.then(() => 'ok' as const),
      closed,
      new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), HANG_MS))),
    ]);
    clearTimeout(timer);
    return outcome;
  }

  /** Sends a request that must succeed (handshake, probe); false when it did not. */
  private async request(method: string, params: Record<string, unknown>): Promise<boolean> {
    const id = `p${++this.probeCount}`;
    let succeeded = false;
    const done = new Promise<void>((resolve) =>
      this.byId.set(JSON.stringify(id), {
        expect: { kind: 'answer', id, codes: new Set(), result: true },
        resolve: () => {
          succeeded = true;
          resolve();
        },
      }),
    );
    this.sendJson({ jsonrpc: '2.0', id, method, params });
    const outcome = await this.settle(done);
    this.byId.delete(JSON.stringify(id));
    if (outcome === 'hang') this.hang(`${method} ${id} not answered within ${HANG_MS} ms`);
    return outcome === 'ok' && succeeded;
  }

  private hang(line: string): void {
    this.figures.hangs++;
    noteExample(this.figures, `hang after ${this.current}: ${line}`);
  }

  /** The liveness probe: `ping` in the session era, `server/discover` (its stand-in, as clients use it) in 2026-07-28. */
  private probe(): Promise<boolean> {
    return this.options.era === 'session'
      ? this.request('ping', {})
      : this.request('server/discover', { _meta: statelessMeta() });
  }

  private async step(input: FuzzCase): Promise<void> {
    this.maybeIds.clear();
    const expect: Expectation = input.binary
      ? { kind: 'close', codes: [1003] }
      : expectationFor(input.bytes, this.context);
    const waits: Promise<void>[] = [];
    const register = (answer: Extract<Expectation, { kind: 'answer' }>) =>
      waits.push(
        new Promise<void>((resolve) => {
          const waiter = { expect: answer, resolve };
          if (answer.id === null) this.nullWaiters.push(waiter);
          else this.byId.set(JSON.stringify(answer.id), waiter);
        }),
      );
    if (expect.kind === 'answer') register(expect);
    else if (expect.kind === 'maybe') {
      if (expect.id === null) this.maybeCredit++;
      else this.maybeIds.add(JSON.stringify(expect.id));
    } else if (expect.kind === 'batch') {
      const required = expect.entries.some((e) => e.kind === 'answer');
      waits.push(
        new Promise<void>((resolve) => (this.batchWaiter = { entries: expect.entries, required, resolve })),
      );
      if (!required) waits.pop();
    }
    this.figures.messages++;
    this.figures.inputs++;
    this.channel?.send(input.bytes, { binary: input.binary === true });
    if (expect.kind === 'close') {
      const closed = await this.settle(new Promise<void>(() => {}));
      if (closed === 'hang') this.hang(`the socket was not closed (${expect.codes.join('/')})`);
      else {
        const { code } = await (this.channel as FrameChannel).closed;
        if (code === undefined || !expect.codes.includes(code))
          this.violation(`closed with ${code}, expected ${expect.codes.join('/')}`);
      }
      this.lost = undefined;
      await this.channel?.close();
      await this.openChannel();
    } else {
      const outcome = await this.settle(Promise.all(waits).then(() => undefined));
      if (outcome === 'hang') {
        this.hang(`no answer for ${JSON.stringify(expect).slice(0, 160)} within ${HANG_MS} ms`);
        this.byId.clear();
        this.nullWaiters.length = 0;
      }
    }
    if (this.lost === undefined && !(await this.probe()) && this.lost === undefined)
      this.violation('the liveness probe failed');
  }

  async run(): Promise<LaneFigures> {
    const started = Date.now();
    const random = new Prng(fuzzSeed() + this.options.seedOffset);
    const generator = new FuzzCaseGenerator(random, {
      era: this.options.era,
      maxFrameBytes: this.options.maxFrameBytes,
      maxOversized: 2,
    });
    let rssFirst: number | undefined;
    let rssLast = 0;
    const sample = () => {
      try {
        const rss = this.options.rss();
        if (rss === 0) return; // no process yet
        rssLast = rss;
        rssFirst ??= rssLast;
        this.figures.rssPeakMb = Math.max(this.figures.rssPeakMb ?? 0, rssLast / 2 ** 20);
      } catch {
        // the process is gone; the crash is counted where it is seen
      }
    };
    const sampler = setInterval(sample, 1000);
    let reopens = 0;
    try {
      await this.openChannel();
      sample();
      for (let n = 0; n < this.options.inputs; n++) {
        if (Date.now() - started > this.options.budgetMs) {
          this.figures.note = `stopped by its time budget after ${n} of ${this.options.inputs} inputs`;
          break;
        }
        if (this.figures.hangs >= MAX_HANGS) {
          this.figures.note = `stopped after ${MAX_HANGS} hangs`;
          break;
        }
        const input = this.options.extraCase?.(random, n) ?? generator.next(`c${n}`);
        this.current = `input #${n} (${input.kind}: ${input.bytes.subarray(0, 160).toString('latin1')})`;
        await this.step(input);
        if (this.lost !== undefined) {
          this.figures.crashes++;
          noteExample(this.figures, `crash after ${this.current}: ${this.lost}`);
          this.lost = undefined;
          if (++reopens > MAX_REOPENS) {
            this.figures.note = 'stopped: too many crashes';
            break;
          }
          this.byId.clear();
          this.nullWaiters.length = 0;
          await this.openChannel();
        }
      }
    } finally {
      clearInterval(sampler);
      sample();
      this.closing = true;
      await this.channel?.close();
      this.figures.rssGrowthMb = rssFirst === undefined ? undefined : (rssLast - rssFirst) / 2 ** 20;
      this.figures.durationMs = Date.now() - started;
    }
    return this.figures;
  }
}
