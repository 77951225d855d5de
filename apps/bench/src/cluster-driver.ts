// The cluster section's measurements: Gantry nodes of servers/cluster/node.ts in child
// processes, a real redis-server and a real nginx (cluster-infra.ts), driven by the HTTP
// section's client. Session era (MCP 2025-11-25, Basic › Transports › Streamable HTTP):
// tools/call through one node with its sessions in Redis against the same node with the
// in-memory store, and through nginx to three nodes; notifications/resources/updated published
// on one node and read from a GET stream held on another; memory per idle session in a node
// and in Redis.
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { type Infra, monitorRedis, redisInfo, startNginx, startRedis } from './cluster-infra';
import { rotate } from './driver';
import { type ConcurrencyResult, measureSlices } from './http-driver';
import {
  HttpMcpClient,
  HttpServerProcess,
  type HttpServerSpec,
  type HttpSlice,
  type HttpTarget,
  openSession,
  openSessions,
  post,
} from './http-server-process';
import { PROTOCOL_VERSION } from './server-process';
import { WATCHED_URI } from './servers/cluster/watched-uri';
import { median, percentileOfSorted } from './stats';

/** How the cluster section is timed and sized. */
export interface ClusterSchedule {
  readonly warmupMs: number;
  /** Rounds of the throughput measurement; each target's median is reported. */
  readonly rounds: number;
  /** Measured traffic per target and round, in slices of `sliceMs` taken in turn. */
  readonly durationMs: number;
  readonly sliceMs: number;
  /** Requests in flight during the throughput slices. */
  readonly concurrency: number;
  /** Traffic through the Redis node whose Redis commands are counted. */
  readonly countMs: number;
  readonly notifications: number;
  readonly warmupNotifications: number;
  readonly sessions: number;
  readonly warmupSessions: number;
  /** `sessions.replicaIdleMs` of the memory measurement's node. */
  readonly replicaIdleMs: number;
}

export interface ClusterResults {
  /** Per target (`memory`, `redis`, `nginx-3`): throughput and latency at `concurrency`. */
  readonly throughput: Record<string, ConcurrencyResult>;
  /** Per target: req/s of each round (the round's ratios divide these). */
  readonly throughputRounds: Record<string, number[]>;
  /** Per Redis target (`redis`, `nginx-3`): Redis commands per tools/call. */
  readonly redisPerRequest: Record<string, RedisPerRequest>;
  /** Publish on node 2 → notifications/resources/updated read on node 1's GET stream, in µs. */
  readonly fanOut: { readonly p50Us: number; readonly p99Us: number; readonly count: number };
  /** Growth per idle session (replica dropped) in the node, and in Redis per 1,000 sessions, in bytes. */
  readonly memory: {
    readonly heapPerSession: number;
    readonly rssPerSession: number;
    readonly redisPer1000: number;
    readonly sessions: number;
  };
}

/** Redis commands per request, by command. */
export interface RedisPerRequest {
  /** Sent by the nodes: each one a round trip (pipelining aside). */
  readonly roundTrips: Record<string, number>;
  /** Run inside Lua scripts, in the round trip of the script's EVALSHA. */
  readonly scripted: Record<string, number>;
}

/** The sum over commands. */
export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

function show(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((x, y) => y[1] - x[1])
    .map(([name, count]) => `${name} ${count.toFixed(3)}`)
    .join(', ');
}

/** Runs `traffic` with Redis's MONITOR on and divides what Redis ran by the requests answered. */
async function countRedisCommands(
  redisPort: number,
  traffic: () => Promise<HttpSlice>,
): Promise<RedisPerRequest> {
  const monitor = await monitorRedis(redisPort);
  const slice = await traffic();
  const commands = await monitor.stop();
  const perRequest = (counts: Map<string, number>) =>
    Object.fromEntries([...counts].map(([name, count]) => [name, count / slice.answered]));
  return { roundTrips: perRequest(commands.fromClients), scripted: perRequest(commands.fromScripts) };
}

const STALL_MS = 10_000;
const ACCEPT = 'application/json, text/event-stream';

function nodeSpec(name: string, args: readonly string[] = []): HttpServerSpec {
  return { name, script: join(__dirname, 'servers', 'cluster', 'node.js'), args };
}

function redisNode(name: string, redisUrl: string, extra: readonly string[] = []): HttpServerSpec {
  return nodeSpec(name, ['--redis', redisUrl, '--node-id', name, ...extra]);
}

/** Polls `condition` until it holds; throws naming `what` after `ms`. */
async function until(condition: () => Promise<boolean>, what: string, ms = STALL_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs everything of the section against one redis-server: throughput, command count and
 * fan-out with three Redis nodes (and nginx) and one in-memory node, then memory on a fresh node.
 * `progress` receives a line per finished measurement.
 */
export async function measureCluster(
  schedule: ClusterSchedule,
  progress: (line: string) => void,
): Promise<ClusterResults> {
  const redis = await startRedis();
  const url = `redis://127.0.0.1:${redis.port}`;
  const servers: HttpServerProcess[] = [];
  const clients: HttpMcpClient[] = [];
  let nginx: Infra | undefined;
  try {
    const memory = await HttpServerProcess.start(nodeSpec('memory'));
    servers.push(memory);
    const nodes: HttpServerProcess[] = [];
    for (let i = 1; i <= 3; i++) nodes.push(await HttpServerProcess.start(redisNode(`node-${i}`, url)));
    servers.push(...nodes);
    nginx = await startNginx(nodes.map((node) => `http://127.0.0.1:${node.port}`));
    const balancer: HttpTarget = { name: 'nginx-3', port: nginx.port, explain: (error) => error };
    const targets: [HttpTarget, { cpuTimeNs(): number | null }][] = [
      [memory, memory],
      [{ name: 'redis', port: nodes[0].port, explain: (error) => nodes[0].explain(error) }, nodes[0]],
      [balancer, { cpuTimeNs: () => sumCpu(nodes) }],
    ];
    for (const [target] of targets) {
      const client = new HttpMcpClient(target);
      clients.push(client);
      await client.initialize();
      await client.slice(schedule.warmupMs, schedule.concurrency);
    }

    // Redis per request, through one node and through nginx: the commands the nodes sent (round
    // trips; their heartbeats, one SET a second each, are among them) and those Lua scripts ran.
    const redisPerRequest: Record<string, RedisPerRequest> = {};
    for (const client of clients.slice(1)) {
      const counts = await countRedisCommands(redis.port, () =>
        client.slice(schedule.countMs, schedule.concurrency),
      );
      redisPerRequest[client.name] = counts;
      progress(
        `  ${client.name.padEnd(8)} Redis per tools/call: ${total(counts.roundTrips).toFixed(3)} commands sent ` +
          `(${show(counts.roundTrips)}), ${total(counts.scripted).toFixed(3)} run by scripts (${show(counts.scripted)})`,
      );
    }

    // Rounds of interleaved slices (the target order rotating), each target's median kept.
    const rounds = new Map<string, ConcurrencyResult[]>(clients.map((client) => [client.name, []]));
    for (let round = 0; round < schedule.rounds; round++) {
      for (const client of clients) client.resetConnections();
      const order = rotate(clients, round);
      const measured = await measureSlices(
        order,
        order.map((client) => targets[clients.indexOf(client)][1]),
        schedule,
        (client) => client.slice(schedule.sliceMs, schedule.concurrency, true),
      );
      for (const [name, result] of measured) {
        rounds.get(name)!.push(result);
        progress(
          `  round ${round + 1}/${schedule.rounds} ${name.padEnd(8)} c=${schedule.concurrency} ` +
            `${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Us.toFixed(0)} µs, ` +
            `p99 ${result.p99Us.toFixed(0)} µs, server CPU/req ${result.serverCpuUs?.toFixed(1) ?? '?'} µs`,
        );
      }
    }
    const throughput: Record<string, ConcurrencyResult> = {};
    const throughputRounds: Record<string, number[]> = {};
    for (const [name, results] of rounds) {
      const cpu = results.map((result) => result.serverCpuUs);
      throughput[name] = {
        requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
        p50Us: median(results.map((result) => result.p50Us)),
        p99Us: median(results.map((result) => result.p99Us)),
        serverCpuUs: cpu.includes(null) ? null : median(cpu as number[]),
      };
      throughputRounds[name] = results.map((result) => result.requestsPerSecond);
    }
    for (const client of clients) client.close();

    const fanOut = await measureFanOut(nodes[0], nodes[1], schedule);
    progress(
      `  fan-out node-2 → node-1 GET stream: p50 ${fanOut.p50Us.toFixed(0)} µs, p99 ${fanOut.p99Us.toFixed(0)} µs (${fanOut.count})`,
    );

    await nginx.stop();
    nginx = undefined;
    await Promise.all(servers.map((server) => server.close()));
    servers.length = 0;

    const memoryResult = await measureIdleSessionMemory(url, redis.port, schedule);
    progress(
      `  per idle session: node heap ${(memoryResult.heapPerSession / 1024).toFixed(2)} KiB, ` +
        `RSS ${(memoryResult.rssPerSession / 1024).toFixed(2)} KiB; ` +
        `Redis ${(memoryResult.redisPer1000 / 1024 / 1024).toFixed(2)} MiB per 1,000 sessions`,
    );
    return {
      throughput,
      throughputRounds,
      redisPerRequest,
      fanOut,
      memory: memoryResult,
    };
  } finally {
    for (const client of clients) client.close();
    await nginx?.stop();
    await Promise.all(servers.map((server) => server.close()));
    await redis.stop();
  }
}

function sumCpu(servers: readonly HttpServerProcess[]): number | null {
  let total = 0;
  for (const server of servers) {
    const ns = server.cpuTimeNs();
    if (ns === null) return null;
    total += ns;
  }
  return total;
}

/**
 * A session opened on node `a` with its GET stream there and a resources/subscribe; then, one
 * at a time, node `b` is told to publish a change of the resource, timed until the
 * notification arrives on the stream.
 */
async function measureFanOut(
  a: HttpServerProcess,
  b: HttpServerProcess,
  schedule: ClusterSchedule,
): Promise<ClusterResults['fanOut']> {
  const agent = new Agent({ keepAlive: true });
  const sessionId = await openSession(a, agent);
  if (sessionId === undefined) throw new Error(`${a.name}: initialize answered without an Mcp-Session-Id`);
  const headers = { accept: ACCEPT, 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-session-id': sessionId };
  let buffer = '';
  let arrived: (() => void) | undefined;
  let updates = 0;
  const stream = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: a.port,
        path: '/mcp',
        method: 'GET',
        headers: { ...headers, accept: 'text/event-stream' },
      },
      (res) =>
        res.statusCode === 200
          ? resolve(res)
          : reject(new Error(`${a.name}: GET /mcp answered ${res.statusCode}`)),
    );
    req.on('error', reject);
    req.end();
  });
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (event.includes('"notifications/resources/updated"')) {
        updates++;
        arrived?.();
      }
      end = buffer.indexOf('\n\n');
    }
  });
  try {
    const subscribe = await post(
      a.port,
      agent,
      { ...headers, 'content-type': 'application/json' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: WATCHED_URI } }),
    );
    if (subscribe.status !== 200 || !subscribe.body.includes('"result"')) {
      throw new Error(`${a.name}: resources/subscribe answered ${subscribe.status}: ${subscribe.body}`);
    }
    const latenciesUs: number[] = [];
    const total = schedule.warmupNotifications + schedule.notifications;
    for (let i = 0; i < total; i++) {
      const seen = updates;
      const received = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              b.explain(
                new Error(`notification ${i} published on ${b.name} never reached ${a.name}'s GET stream`),
              ),
            ),
          STALL_MS,
        );
        arrived = () => {
          if (updates > seen) {
            clearTimeout(timer);
            resolve();
          }
        };
      });
      const sentAt = process.hrtime.bigint();
      b.notify(WATCHED_URI);
      await received;
      if (i >= schedule.warmupNotifications)
        latenciesUs.push(Number(process.hrtime.bigint() - sentAt) / 1000);
    }
    const sorted = Float64Array.from(latenciesUs).sort();
    return {
      p50Us: percentileOfSorted(sorted, 50),
      p99Us: percentileOfSorted(sorted, 99),
      count: sorted.length,
    };
  } finally {
    stream.destroy();
    agent.destroy();
  }
}

/**
 * A fresh Redis node with a short `replicaIdleMs`: `warmupSessions` opened and left to go idle
 * (their replicas dropped), a reading of the node (after a forced GC) and of Redis's
 * used_memory, `sessions` more opened and left idle, another reading.
 */
async function measureIdleSessionMemory(
  redisUrl: string,
  redisPort: number,
  schedule: ClusterSchedule,
): Promise<ClusterResults['memory']> {
  const node = await HttpServerProcess.start(
    redisNode('memory-node', redisUrl, ['--replica-idle-ms', String(schedule.replicaIdleMs)]),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const idle = () =>
    until(
      async () => (await node.stats()).sessions === 0,
      `${node.name}: every replica dropped`,
      STALL_MS + 5 * schedule.replicaIdleMs,
    );
  const usedMemory = async () => Number((await redisInfo(redisPort, 'memory')).get('used_memory'));
  try {
    await openSessions(node, agent, schedule.warmupSessions, 8);
    await idle();
    const before = await node.stats();
    const redisBefore = await usedMemory();
    await openSessions(node, agent, schedule.sessions, 8);
    await idle();
    const after = await node.stats();
    const redisAfter = await usedMemory();
    return {
      heapPerSession: (after.heapUsed - before.heapUsed) / schedule.sessions,
      rssPerSession: (after.rss - before.rss) / schedule.sessions,
      redisPer1000: ((redisAfter - redisBefore) / schedule.sessions) * 1000,
      sessions: schedule.sessions,
    };
  } finally {
    agent.destroy();
    await node.close();
  }
}
