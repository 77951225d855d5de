// The infrastructure of the cluster section: a real redis-server and a real nginx, each a
// child process on a free loopback port with everything it writes in a temporary directory,
// and INFO read from Redis over a bare RESP connection. The start logic is a trimmed copy of
// packages/redis/test/support/{redis-server,nginx}.ts (test support is not part of any build,
// so the bench cannot import it); nginx runs the configuration nginxConfig() recommends.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nginxConfig } from '@gantry/redis';

const REDIS_BINARY = process.env.REDIS_SERVER_PATH ?? 'redis-server';
const NGINX_BINARY = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const START_DEADLINE_MS = 10_000;

/** A child process on a port, with a directory of its own to remove when it stops. */
export interface Infra {
  readonly port: number;
  stop(): Promise<void>;
}

/** The binaries the section needs that are not installed, with how to get them. */
export function missingInfra(): string[] {
  const missing: string[] = [];
  const onPath = (name: string) =>
    (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, name)));
  if (!(REDIS_BINARY.includes('/') ? existsSync(REDIS_BINARY) : onPath(REDIS_BINARY))) {
    missing.push(`${REDIS_BINARY} (apt-get install redis-server, or set REDIS_SERVER_PATH)`);
  }
  if (!existsSync(NGINX_BINARY)) missing.push(`${NGINX_BINARY} (apt-get install nginx, or set NGINX_PATH)`);
  return missing;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Resolves once `ready()` holds, polling; rejects when the child exits first or the deadline passes. */
async function until(child: ChildProcess, ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (!(await ready())) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited before it was ready`);
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${START_DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** redis-server with no persistence on a free loopback port. */
export async function startRedis(): Promise<Infra> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-bench-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  const child = spawn(REDIS_BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    log = (log + chunk).slice(-4000);
  });
  child.stderr?.resume();
  try {
    await until(child, async () => log.includes('Ready to accept connections'), `redis-server on ${port}`);
  } catch (error) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}:\n${log}`);
  }
  return {
    port,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** nginx (`daemon off`, one worker) in front of `upstreams` with the configuration of nginxConfig(). */
export async function startNginx(upstreams: readonly string[]): Promise<Infra> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-bench-nginx-'));
  // As root, the worker runs as `nobody` and must reach the temp paths inside.
  chmodSync(dir, 0o755);
  const server = nginxConfig({ listen: `127.0.0.1:${port}`, upstreams })
    .split('\n')
    .map((line) => (line === '' ? line : `    ${line}`))
    .join('\n');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
    (name) => `    ${name}_temp_path ${join(dir, name)};`,
  );
  const config = [
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} notice;`,
    'events {',
    '    worker_connections 1024;',
    '}',
    'http {',
    '    access_log off;',
    ...temp,
    server,
    '}',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'nginx.conf'), config);
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'];
  const child = spawn(NGINX_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.resume();
  try {
    await until(child, () => accepts(port), `nginx on ${port}`);
  } catch (error) {
    await stopChild(child);
    const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}:\n${log}`);
  }
  return {
    port,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `INFO <section>` of the Redis on `port`, as field → value (one RESP inline command, then QUIT). */
export function redisInfo(port: number, section: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      reply += chunk;
      // A bulk string: `$<length>\r\n<body>\r\n`.
      const header = reply.indexOf('\r\n');
      if (header === -1) return;
      if (reply[0] !== '$') {
        socket.destroy();
        reject(new Error(`INFO ${section}: unexpected reply ${JSON.stringify(reply.slice(0, 200))}`));
        return;
      }
      const length = Number(reply.slice(1, header));
      const body = Buffer.from(reply.slice(header + 2), 'utf8');
      if (body.length < length) return;
      socket.end('QUIT\r\n');
      const fields = new Map<string, string>();
      for (const line of body.subarray(0, length).toString('utf8').split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
      }
      resolve(fields);
    });
    socket.write(`INFO ${section}\r\n`);
  });
}

/** Commands Redis ran while a {@link monitorRedis} watched: sent by clients (round trips), and run inside Lua scripts. */
export interface MonitoredCommands {
  readonly fromClients: Map<string, number>;
  readonly fromScripts: Map<string, number>;
}

/**
 * Watches every command the Redis on `port` runs (MONITOR: one line per command, its source
 * `lua` for those a script ran) until `stop()` is called. MONITOR slows Redis down: only for
 * counting, never while throughput is measured. Resolves once the watch is on.
 */
export async function monitorRedis(port: number): Promise<{ stop(): Promise<MonitoredCommands> }> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  const counts: MonitoredCommands = { fromClients: new Map(), fromScripts: new Map() };
  let buffer = '';
  let started: (() => void) | undefined;
  const on = new Promise<void>((resolve, reject) => {
    started = resolve;
    socket.once('error', reject);
  });
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\r\n');
    while (end !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (line === '+OK') started?.();
      // +1733150000.123456 [0 127.0.0.1:50000] "evalsha" "…"   or   [0 lua] for a script's command
      const match = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
      if (match) {
        const into = match[1] === 'lua' ? counts.fromScripts : counts.fromClients;
        const name = match[2].toLowerCase();
        into.set(name, (into.get(name) ?? 0) + 1);
      }
      end = buffer.indexOf('\r\n');
    }
  });
  socket.write('MONITOR\r\n');
  await on;
  return {
    async stop() {
      // Lines already on their way are still counted: give the socket a moment to drain them.
      await new Promise((resolve) => setImmediate(resolve));
      socket.destroy();
      return counts;
    },
  };
}
