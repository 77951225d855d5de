// A real redis-server for the integration tests: a child process of its own on a free loopback
// port, with no persistence, in a temporary directory. `npm test` installs the Debian package
// when it is missing (scripts/ensure-system-packages.js).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEFAULT_BINARY = process.env.REDIS_SERVER_PATH ?? 'redis-server';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Stops the process (SIGTERM), keeping the port and directory for `restart()`. */
  kill(): Promise<void>;
  /** A new, empty server on the same port (the old one stopped first if it still runs). */
  restart(): Promise<void>;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Resolves once the server logs that it accepts connections; rejects if it exits first. */
function ready(child: ChildProcess, binary: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Ready to accept connections')) {
        cleanup();
        resolve();
      }
    };
    const onError = (error: NodeJS.ErrnoException) => {
      cleanup();
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${binary} is not installed: the @gantry/redis tests need a real Redis. Install it ` +
                '(Debian/Ubuntu: apt-get install redis-server; `npm test` does this as root) or set REDIS_SERVER_PATH.',
            )
          : error,
      );
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`redis-server on port ${port} exited with ${code} before it was ready:\n${log}`));
    };
    const cleanup = () => {
      child.stdout?.off('data', onData);
      child.off('error', onError);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.on('error', onError);
    child.on('exit', onExit);
  });
}

/** Spawns redis-server on `port` and resolves once it is ready. */
async function spawnServer(binary: string, port: number, dir: string): Promise<ChildProcess> {
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
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await ready(child, binary, port);
  // Keep draining its log so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

async function startOnce(binary: string): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-redis-'));
  let child: ChildProcess;
  try {
    child = await spawnServer(binary, port, dir);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await kill(child);
    },
    async restart() {
      await kill(child);
      child = await spawnServer(binary, port, dir);
    },
    async stop() {
      await kill(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts redis-server on a free loopback port and resolves once it is ready. The port is found
 * by listening on port 0 and closing (redis-server needs a concrete one); if another process
 * takes it in between, the start is retried on a new port.
 */
export async function startRedisServer(binary = DEFAULT_BINARY): Promise<RedisServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary);
    } catch (error) {
      if (!/Address already in use/.test(String(error))) throw error;
      lastError = error;
    }
  }
  throw lastError;
}
