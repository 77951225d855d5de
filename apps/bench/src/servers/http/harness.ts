// What every HTTP server under test shares with the benchmark, over the IPC channel its
// parent opens (never over HTTP, so no server grows a route the others lack): the port it
// listens on, memory readings after a forced GC, and a clean exit (so `--cpu-prof` can write
// its profile). Run with `node --expose-gc`.

/** Messages from the benchmark to a server. */
export type ToServer = { type: 'stats' } | { type: 'exit' } | { type: 'notify'; uri: string };

/** Messages from a server to the benchmark. */
export type FromServer =
  | { type: 'listening'; port: number }
  | { type: 'stats'; rss: number; heapUsed: number; external: number; sessions?: number };

/** What a server may add to the shared messages (the cluster section's nodes do). */
export interface BenchmarkHooks {
  /** Sessions this process holds in memory right now (for a cluster node: its replicas). */
  sessions?(): number;
  /** Publishes a change to `uri` (`notifications/resources/updated` for its subscribers). */
  notify?(uri: string): Promise<void>;
}

function send(message: FromServer): void {
  process.send?.(message);
}

/** Collects twice: the second pass reclaims what finalizers of the first released. */
function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the server must run with node --expose-gc');
  gc();
  gc();
}

/** Starts the server with `listen` (which resolves to the port it listens on) and serves the benchmark's messages. */
export function serveBenchmark(listen: () => Promise<number>, hooks: BenchmarkHooks = {}): void {
  if (process.send === undefined) {
    process.stderr.write('this server is started by the benchmark (apps/bench), with an IPC channel\n');
    process.exit(2);
  }
  process.on('message', (message: ToServer) => {
    if (message.type === 'exit') process.exit(0);
    if (message.type === 'stats') {
      collect();
      const { rss, heapUsed, external } = process.memoryUsage();
      send({ type: 'stats', rss, heapUsed, external, sessions: hooks.sessions?.() });
    }
    if (message.type === 'notify') {
      if (hooks.notify === undefined) throw new Error('this server cannot publish changes');
      hooks.notify(message.uri).catch((error: unknown) => {
        process.stderr.write(`notify failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      });
    }
  });
  // The benchmark went away without saying so: do not linger.
  process.on('disconnect', () => process.exit(0));
  listen().then(
    (port) => send({ type: 'listening', port }),
    (error: unknown) => {
      process.stderr.write(`listen failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}

/** The port a listening Node server is bound to. */
export function portOf(address: string | { port: number } | null): number {
  if (address === null || typeof address === 'string') throw new Error(`not a TCP address: ${address}`);
  return address.port;
}
