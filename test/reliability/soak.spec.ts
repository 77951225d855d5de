// A short soak: mixed traffic on Streamable HTTP (sessions, SSE progress, stateless requests,
// bad bodies, session churn) and on stdio at once, with the servers' heap after a full GC
// sampled every second. The least-squares slope of that heap must stay under a bound that a
// per-request leak would pass, and every session opened is gone at the end.
import { type ChildServer, startFixture } from './support/child-server';
import { SOAK_MS } from './support/config';
import { HttpMcp } from './support/http-session';
import { emptyFigures, type LaneFigures, noteExample, recordFigures } from './support/results';
import { StdioRpcClient } from './support/rpc-clients';

/**
 * Heap growth allowed after warm-up, in bytes per second. The soak serves several hundred
 * requests a second per transport, so a leak of even 200 bytes per request exceeds it, while
 * the post-GC heap of a server that leaks nothing wanders by well under 1 MB over the run.
 */
const MAX_SLOPE = 64 * 1024;
const WORKERS = 3;
/** The first part of the run warms up (JIT, caches, the event store filling to its bound). */
const WARM_UP = 0.3;

function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const meanX = points.reduce((s, [x]) => s + x, 0) / n;
  const meanY = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

type Call = (worker: number, n: number) => Promise<boolean>;

/** Runs `call` on WORKERS loops until the deadline; false answers are violations. */
async function traffic(figures: LaneFigures, deadline: number, call: Call): Promise<void> {
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      for (let n = 0; Date.now() < deadline; n++) {
        figures.messages++;
        figures.inputs++;
        try {
          if (!(await call(worker, n))) figures.violations++;
        } catch (error) {
          figures.hangs++;
          noteExample(figures, `worker ${worker} call ${n}: ${(error as Error).message}`);
          return;
        }
      }
    }),
  );
}

/** Samples `heap()` every second until the deadline; returns [seconds, bytes] points. */
async function sampleHeap(
  started: number,
  deadline: number,
  heap: () => Promise<number>,
): Promise<Array<[number, number]>> {
  const points: Array<[number, number]> = [];
  while (Date.now() < deadline) {
    points.push([(Date.now() - started) / 1000, await heap()]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return points;
}

function finish(figures: LaneFigures, points: Array<[number, number]>, rss: number[], started: number): void {
  const steady = points.slice(Math.floor(points.length * WARM_UP));
  figures.heapSlopeKbPerSec = slope(steady) / 1024;
  figures.rssPeakMb = Math.max(...rss) / 2 ** 20;
  figures.rssGrowthMb = (rss[rss.length - 1] - rss[0]) / 2 ** 20;
  figures.durationMs = Date.now() - started;
  if (figures.heapSlopeKbPerSec * 1024 > MAX_SLOPE)
    noteExample(
      figures,
      `heap slope ${figures.heapSlopeKbPerSec.toFixed(1)} KB/s over ${MAX_SLOPE / 1024} KB/s`,
    );
  recordFigures(figures);
}

let http: ChildServer;
let stdio: ChildServer;

afterAll(async () => {
  await Promise.all([http?.stop(), stdio?.stop()]);
});

it(
  `holds a flat heap over ${SOAK_MS / 1000} s of mixed traffic on HTTP and stdio, and leaves no session behind`,
  async () => {
    const httpStarted = await startFixture({ transport: 'http', env: { REL_EVENT_STREAMS: '64' } });
    http = httpStarted.server;
    stdio = (await startFixture({ transport: 'stdio' })).server;
    const url = new URL(httpStarted.url);
    const started = Date.now();
    const deadline = started + SOAK_MS;

    const httpFigures = emptyFigures('soak http', 'http');
    const sampler = new HttpMcp(url);
    await sampler.initialize();
    const sessions = await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        const session = new HttpMcp(url);
        await session.initialize();
        return session;
      }),
    );
    const httpCall: Call = async (worker, n) => {
      const session = sessions[worker];
      const ok = (answer: { result?: { isError?: boolean } }) =>
        answer.result !== undefined && answer.result.isError !== true;
      switch (n % 8) {
        case 0:
          return ok(await session.request('tools/call', { name: 'echo', arguments: { text: `soak ${n}` } }));
        case 1:
          return ok(
            await session.request('tools/call', {
              name: 'wait',
              arguments: { ms: 0, progressSteps: 2 },
              _meta: { progressToken: `t${n}` },
            }),
          );
        case 2:
          return ok(await session.request('tools/call', { name: 'add', arguments: { a: n, b: 1 } }, true));
        case 3:
          return ok(await session.request('resources/read', { uri: `rel://item/${n}` }));
        case 4:
          return (
            (
              await session.post({
                jsonrpc: '2.0',
                id: 'x',
                method: 'tools/call',
                params: { name: 'echo', arguments: { text: 5 } },
              })
            ).status === 200
          );
        case 5: {
          const bad = await session.post({ jsonrpc: '1.0', id: `bad${n}`, method: 'ping' });
          return bad.status === 400;
        }
        case 6:
          return ok(await session.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }));
        default: {
          // Session churn: a new session replaces this worker's, and the old one is deleted.
          const fresh = new HttpMcp(url);
          await fresh.initialize();
          const status = await session.delete();
          session.close();
          sessions[worker] = fresh;
          return status === 200;
        }
      }
    };

    const stdioFigures = emptyFigures('soak stdio', 'stdio');
    const client = new StdioRpcClient(stdio);
    await client.initialize();
    const stdioCall: Call = async (_worker, n) => {
      const ok = (answer: { result?: { isError?: boolean } }) =>
        answer.result !== undefined && answer.result.isError !== true;
      switch (n % 5) {
        case 0:
          return ok(await client.request('tools/call', { name: 'echo', arguments: { text: `soak ${n}` } }));
        case 1:
          return ok(
            await client.request('tools/call', {
              name: 'wait',
              arguments: { ms: 0, progressSteps: 2 },
              _meta: { progressToken: `t${n}` },
            }),
          );
        case 2:
          return ok(
            await client.request('tools/call', {
              name: 'count',
              arguments: { items: ['a', 'b', String(n)] },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            }),
          );
        case 3:
          return (
            (await client.request('tools/call', { name: 'add', arguments: { a: 'x' } })).result?.isError ===
            true
          );
        default:
          return ok(await client.request('resources/read', { uri: 'rel://static' }));
      }
    };

    const rss = { http: [http.rss()], stdio: [stdio.rss()] };
    const rssSampler = setInterval(() => {
      rss.http.push(http.rss());
      rss.stdio.push(stdio.rss());
    }, 1000);
    const [httpPoints, stdioPoints] = await Promise.all([
      sampleHeap(started, deadline, async () => (await sampler.stats()).heapUsed),
      sampleHeap(started, deadline, async () => (await client.stats()).heapUsed),
      traffic(httpFigures, deadline, httpCall),
      traffic(stdioFigures, deadline, stdioCall),
    ]);
    clearInterval(rssSampler);
    finish(httpFigures, httpPoints, rss.http, started);
    finish(stdioFigures, stdioPoints, rss.stdio, started);

    for (const session of sessions) {
      expect(await session.delete()).toBe(200);
      session.close();
    }
    const after = await sampler.stats();
    sampler.close();
    expect(after.gc).toBe(true);
    expect(after.sessions).toBe(1);
    for (const figures of [httpFigures, stdioFigures]) {
      expect({
        name: figures.name,
        hangs: figures.hangs,
        violations: figures.violations,
        examples: figures.examples,
      }).toEqual({ name: figures.name, hangs: 0, violations: 0, examples: [] });
      expect(figures.inputs).toBeGreaterThan(1000);
      expect((figures.heapSlopeKbPerSec ?? 0) * 1024).toBeLessThanOrEqual(MAX_SLOPE);
    }
  },
  SOAK_MS + 60_000,
);
