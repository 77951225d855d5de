// Cluster links on the test Redis, and what their receivers got.
import type { ClusterMessage, ClusterReceiver, SessionRecord } from '@gantry/core';
import { type RedisCluster, type RedisClusterOptions, redisCluster } from '@gantry/redis';

/** A receiver that keeps what it was told. */
export interface RecordingReceiver extends ClusterReceiver {
  readonly messages: ClusterMessage[];
  readonly availability: ((available: boolean) => void) & { readonly calls: boolean[] };
}

export function recordingReceiver(): RecordingReceiver {
  const messages: ClusterMessage[] = [];
  const calls: boolean[] = [];
  const availability = Object.assign((available: boolean) => void calls.push(available), { calls });
  return { messages, receive: (message) => void messages.push(message), availability };
}

/** Links of one test file, closed by `closeLinks()`. */
const open: RedisCluster[] = [];
let prefixes = 0;

/** A fresh key prefix, so tests sharing one Redis never see each other's keys. */
export function freshPrefix(): string {
  return `c${++prefixes}:`;
}

/** A started link on `url` (what its receiver got on `.got`). */
export async function startedLink(
  url: string,
  options: Partial<RedisClusterOptions> = {},
): Promise<RedisCluster & { got: RecordingReceiver }> {
  const link = redisCluster({ url, prefix: 'c:', heartbeatMs: 100, ...options });
  open.push(link);
  const receiver = recordingReceiver();
  await link.start(receiver);
  return Object.assign(link, { got: receiver });
}

export async function closeLinks(): Promise<void> {
  await Promise.all(open.splice(0).map((link) => link.close()));
}

/** Resolves once `check` holds, asking again on each turn (no fixed sleep). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function sessionRecord(id: string, subscriptions: string[] = []): SessionRecord {
  return {
    id,
    protocolVersion: '2025-11-25',
    behaviourVersion: '2025-11-25',
    clientInfo: { name: 'test', version: '1.0.0' },
    clientCapabilities: {},
    subscriptions,
    clientReady: true,
    createdAt: 1_700_000_000_000,
  };
}
