// The tasks section (`--only-tasks`): what running a tool as a task costs. One stdio server
// (servers/gantry-tasks.ts) per task store, in memory and in a real redis-server, measured with
// the same tool called as an ordinary call beside it:
// - round trip, one at a time: 2025-11-25 `tools/call` with `task` then `tasks/result`, and
//   2026-07-28 `tools/call` (resultType task) then `tasks/get` until completed, against the
//   ordinary `tools/call`;
// - `tasks/get` throughput with 16 in flight on a completed task, against the ordinary call's.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { formatNumber, table } from './report-tables';
import { median } from './stats';

export interface TasksSchedule {
  readonly rounds: number;
  /** Round trips per round and measure. */
  readonly trips: number;
  /** How long each throughput slice lasts. */
  readonly sliceMs: number;
}

type Store = 'memory' | 'redis';
type Measure = 'plainUs' | 'sessionTaskUs' | 'statelessTaskUs' | 'plainPerSec' | 'getPerSec';

export interface TasksResults {
  date: string;
  settings: TasksSchedule;
  stores: Partial<Record<Store, Record<Measure, number>>>;
  /** Why a store was not measured (e.g. no redis-server). */
  skipped: Partial<Record<Store, string>>;
}

const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXT]: {} } },
};
const IN_FLIGHT = 16;

/** A newline-delimited JSON-RPC pipe to one child process. */
class Pipe {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, (message: any) => void>();
  private buffered = '';
  private nextId = 1;
  private stderr = '';

  constructor(script: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [script], { stdio: 'pipe', env: { ...process.env, ...env } });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.receive(chunk));
    this.child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    this.child.stdin.on('error', () => undefined);
  }

  request(method: string, params: Record<string, unknown>): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${method} got no answer in 10 s: ${this.stderr}`)),
        10_000,
      );
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('close', resolve));
    this.child.stdin.end();
    this.child.kill('SIGTERM');
    await exited;
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    for (let newline = this.buffered.indexOf('\n'); newline !== -1; newline = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      const message = JSON.parse(line);
      if (message.id === undefined) continue;
      const settle = this.pending.get(message.id);
      this.pending.delete(message.id);
      settle?.(message);
    }
  }
}

function expectText(result: any, text: string): void {
  if (result?.content?.[0]?.text !== text)
    throw new Error(`expected "${text}", got ${JSON.stringify(result)}`);
}

/** µs per round trip of `trip`, one at a time, the median of `trips`. */
async function perTrip(trips: number, trip: (i: number) => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < trips; i++) {
    const start = process.hrtime.bigint();
    await trip(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return median(samples);
}

/** Requests per second with `IN_FLIGHT` outstanding for `ms`. */
async function throughput(ms: number, send: () => Promise<void>): Promise<number> {
  const end = Date.now() + ms;
  let done = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (Date.now() < end) {
        await send();
        done++;
      }
    }),
  );
  return done / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function measureStore(script: string, env: Record<string, string>, schedule: TasksSchedule) {
  const pipe = new Pipe(script, env);
  try {
    await pipe.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'tasks-bench', version: '1' },
    });
    pipe.notify('notifications/initialized');
    const plain = async (i: number) =>
      expectText(await pipe.request('tools/call', { name: 'echo', arguments: { text: `p${i}` } }), `p${i}`);
    const sessionTask = async (i: number) => {
      const created = await pipe.request('tools/call', {
        name: 'echo_task',
        arguments: { text: `s${i}` },
        task: { ttl: 60_000 },
      });
      expectText(await pipe.request('tasks/result', { taskId: created.task.taskId }), `s${i}`);
    };
    const statelessTask = async (i: number) => {
      const created = await pipe.request('tools/call', {
        name: 'echo_task',
        arguments: { text: `x${i}` },
        _meta: STATELESS_META,
      });
      if (created.resultType !== 'task') throw new Error(`no task: ${JSON.stringify(created)}`);
      for (;;) {
        const task = await pipe.request('tasks/get', { taskId: created.taskId, _meta: STATELESS_META });
        if (task.status === 'completed') return expectText(task.result, `x${i}`);
        if (task.status !== 'working') throw new Error(`task ${task.status}`);
      }
    };
    // Warm up each path.
    await perTrip(50, plain);
    await perTrip(50, sessionTask);
    await perTrip(50, statelessTask);
    const done = await pipe.request('tools/call', { name: 'echo_task', arguments: { text: 'g' }, task: {} });
    await pipe.request('tasks/result', { taskId: done.task.taskId });
    const get = async () => {
      const task = await pipe.request('tasks/get', { taskId: done.task.taskId });
      if (task.status !== 'completed') throw new Error(`task ${task.status}`);
    };
    const rounds: Record<Measure, number[]> = {
      plainUs: [],
      sessionTaskUs: [],
      statelessTaskUs: [],
      plainPerSec: [],
      getPerSec: [],
    };
    for (let round = 0; round < schedule.rounds; round++) {
      rounds.plainUs.push(await perTrip(schedule.trips, plain));
      rounds.sessionTaskUs.push(await perTrip(schedule.trips, sessionTask));
      rounds.statelessTaskUs.push(await perTrip(schedule.trips, statelessTask));
      rounds.plainPerSec.push(await throughput(schedule.sliceMs, () => plain(0)));
      rounds.getPerSec.push(await throughput(schedule.sliceMs, get));
    }
    return Object.fromEntries(Object.entries(rounds).map(([k, v]) => [k, median(v)])) as Record<
      Measure,
      number
    >;
  } finally {
    await pipe.close();
  }
}

/**
 * Runs the section. `redisUrl`: a running redis-server for the Redis store (undefined: skipped,
 * with the reason in `skipped`).
 */
export async function runTasks(
  dist: string,
  schedule: TasksSchedule,
  redis: { url?: string; reason?: string },
  progress: (line: string) => void,
): Promise<TasksResults> {
  const script = join(dist, 'servers', 'gantry-tasks.js');
  const results: TasksResults = {
    date: new Date().toISOString(),
    settings: schedule,
    stores: {},
    skipped: {},
  };
  progress('tasks: memory store');
  results.stores.memory = await measureStore(script, { BENCH_TASK_STORE: 'memory' }, schedule);
  if (redis.url) {
    progress('tasks: redis store');
    results.stores.redis = await measureStore(
      script,
      { BENCH_TASK_STORE: 'redis', REDIS_URL: redis.url },
      schedule,
    );
  } else {
    results.skipped.redis = redis.reason ?? 'no redis-server';
  }
  return results;
}

export function renderTasksReport(results: TasksResults): string {
  const rows: string[][] = [];
  for (const store of ['memory', 'redis'] as const) {
    const m = results.stores[store];
    if (!m) {
      rows.push([store, `skipped: ${results.skipped[store] ?? '?'}`, '', '', '', '', '']);
      continue;
    }
    rows.push([
      store,
      formatNumber(m.plainUs, 0),
      formatNumber(m.sessionTaskUs, 0),
      formatNumber(m.statelessTaskUs, 0),
      formatNumber(m.plainPerSec, 0),
      formatNumber(m.getPerSec, 0),
      (m.getPerSec / m.plainPerSec).toFixed(2),
    ]);
  }
  return [
    '## Tasks (stdio, one server per store)',
    '',
    'Round trips one at a time (median µs): an ordinary `tools/call`; a 2025-11-25 task (`tools/call` with `task`, then `tasks/result`); a 2026-07-28 task (`tools/call`, then `tasks/get` until completed). Throughput with 16 in flight: the ordinary call and `tasks/get` of a completed task.',
    '',
    table([
      [
        'store',
        'call µs',
        'task 2025-11-25 µs',
        'task 2026-07-28 µs',
        'call /s',
        'tasks/get /s',
        'get ÷ call',
      ],
      ...rows,
    ]),
  ].join('\n');
}
