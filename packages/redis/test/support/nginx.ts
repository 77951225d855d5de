// A real nginx for the cluster tests: a child process of its own (`daemon off`, one worker) on a
// free loopback port, configured by nginxConfig() from @gantry/redis, the configuration
// docs/deploy.md recommends. Everything nginx writes (pid file, logs, temp files) stays in a
// temporary directory, so it never touches /var or the system service. `npm test` installs the
// Debian package when it is missing (scripts/ensure-system-packages.js).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nginxConfig } from '@gantry/redis';
import { freePort } from './redis-server';

const DEFAULT_BINARY = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const START_DEADLINE_MS = 10_000;
/** Between two looks at a condition that has a deadline (a connection, a log line). */
const POLL_MS = 10;

/** Options of {@link startNginx}. */
export interface NginxOptions {
  /** The nodes, `http://127.0.0.1:PORT`. */
  readonly upstreams: readonly string[];
  /** Default `NGINX_PATH` or /usr/sbin/nginx. */
  readonly binary?: string;
  /**
   * Adds `X-Upstream-Addr: $upstream_addr` to every response, so a test can tell which node
   * served a request (a long-lived GET included: the access log has it only once it ends).
   */
  readonly exposeUpstream?: boolean;
}

export interface Nginx {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The master process. */
  readonly pid: number;
  /** The worker processes started so far (from the error log), current and exited. */
  workerPids(): number[];
  /**
   * Rewrites the configuration (with new upstreams, or the same) and reloads it (SIGHUP);
   * resolves once the old worker has exited, so every new connection meets the new one.
   */
  reload(upstreams?: readonly string[]): Promise<void>;
  /** Stops nginx (SIGTERM, its fast shutdown: open SSE streams do not hold it) and waits for it to exit. */
  stop(): Promise<void>;
}

/** The whole nginx.conf: the recommended `upstream` and `server` blocks, inside paths of `dir`. */
function fullConfig(dir: string, port: number, upstreams: readonly string[], exposeUpstream = false): string {
  const indented = nginxConfig({ listen: `127.0.0.1:${port}`, upstreams })
    .split('\n')
    .map((line) => (line === '' ? line : `    ${line}`))
    .join('\n');
  return [
    'worker_processes 1;',
    // Each proxied request holds two connections (client and node), and SSE streams stay open.
    'worker_rlimit_nofile 8192;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} notice;`,
    'events {',
    '    worker_connections 4096;',
    '}',
    'http {',
    `    access_log ${join(dir, 'access.log')};`,
    ...(exposeUpstream ? ['    add_header X-Upstream-Addr $upstream_addr always;'] : []),
    `    client_body_temp_path ${join(dir, 'client_body')};`,
    `    proxy_temp_path ${join(dir, 'proxy')};`,
    `    fastcgi_temp_path ${join(dir, 'fastcgi')};`,
    `    uwsgi_temp_path ${join(dir, 'uwsgi')};`,
    `    scgi_temp_path ${join(dir, 'scgi')};`,
    indented,
    '}',
    '',
  ].join('\n');
}

function errorLog(dir: string): string {
  const file = join(dir, 'error.log');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function notInstalled(binary: string): Error {
  return new Error(
    `${binary} is not installed: the cluster tests need a real nginx. Install it (Debian/Ubuntu: ` +
      'apt-get install nginx; `npm test` does this as root) or set NGINX_PATH.',
  );
}

/** `nginx -t` on the configuration: throws with nginx's own message when it is invalid. */
function checkConfig(binary: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(binary, argsFor(dir, '-t'), (error, _stdout, stderr) => {
      if (!error) return resolve();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(notInstalled(binary));
      reject(new Error(`nginx rejects the configuration in ${dir}/nginx.conf:\n${stderr}`));
    });
  });
}

function argsFor(dir: string, ...extra: string[]): string[] {
  // -e: the log nginx writes before it has read error_log (Debian's default is under /var/log).
  return [
    '-p',
    dir,
    '-c',
    join(dir, 'nginx.conf'),
    '-e',
    join(dir, 'error.log'),
    '-g',
    'daemon off;',
    ...extra,
  ];
}

/** Resolves once a TCP connection to the port succeeds; rejects if nginx exits first or the deadline passes. */
async function accepting(child: ChildProcess, port: number, dir: string): Promise<void> {
  const deadline = Date.now() + START_DEADLINE_MS;
  let exited = false;
  const onExit = () => {
    exited = true;
  };
  child.once('exit', onExit);
  try {
    for (;;) {
      if (exited)
        throw new Error(`nginx on port ${port} exited before it accepted connections:\n${errorLog(dir)}`);
      const connected = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (connected) return;
      if (Date.now() > deadline) {
        throw new Error(
          `nginx on port ${port} accepted no connection within ${START_DEADLINE_MS} ms:\n${errorLog(dir)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    child.off('exit', onExit);
  }
}

/** Polls `condition` (cheap, synchronous) until it holds or the deadline passes. */
async function until(condition: () => boolean, what: string, deadlineMs = START_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`nginx: ${what} did not happen within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function workersIn(log: string): number[] {
  return [...log.matchAll(/start worker process (\d+)/g)].map((match) => Number(match[1]));
}

async function startOnce(
  binary: string,
  upstreams: readonly string[],
  exposeUpstream?: boolean,
): Promise<Nginx> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-nginx-'));
  // Run as root, nginx's workers drop to `nobody`, which must reach the temp paths inside.
  chmodSync(dir, 0o755);
  const write = (nodes: readonly string[]) =>
    writeFileSync(join(dir, 'nginx.conf'), fullConfig(dir, port, nodes, exposeUpstream));
  write(upstreams);
  let child: ChildProcess | undefined;
  try {
    await checkConfig(binary, dir);
    child = spawn(binary, argsFor(dir), { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.resume();
    const spawned = child;
    await Promise.race([
      accepting(spawned, port, dir),
      once(spawned, 'error').then(([error]) => {
        throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? notInstalled(binary) : error;
      }),
    ]);
    // The master binds the port before it logs its worker's start: started means both.
    await until(() => workersIn(errorLog(dir)).length > 0, 'the first worker starting');
  } catch (error) {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const master = child;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    pid: master.pid as number,
    workerPids: () => workersIn(errorLog(dir)),
    async reload(next = upstreams) {
      write(next);
      await checkConfig(binary, dir);
      const before = workersIn(errorLog(dir));
      master.kill('SIGHUP');
      // The new worker starts, then the old one finishes what it serves and exits.
      await until(() => workersIn(errorLog(dir)).length > before.length, 'the reload starting a new worker');
      await until(
        () => before.every((pid) => new RegExp(`worker process ${pid} exited`).test(errorLog(dir))),
        'the old worker exiting after the reload',
      );
    },
    async stop() {
      if (master.exitCode === null && master.signalCode === null) {
        const exited = once(master, 'exit');
        master.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts nginx in front of `upstreams` on a free loopback port and resolves once it accepts
 * connections. The port is found by listening on port 0 and closing (nginx needs a concrete
 * one); if another process takes it in between, the start is retried on a new port.
 */
export async function startNginx(options: NginxOptions): Promise<Nginx> {
  const binary = options.binary ?? DEFAULT_BINARY;
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary, options.upstreams, options.exposeUpstream);
    } catch (error) {
      if (!/Address already in use/.test(String(error))) throw error;
      lastError = error;
    }
  }
  throw lastError;
}
