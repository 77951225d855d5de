import { JSONRPC_VERSION, type JSONRPCNotification, Method } from '@gantry/protocol';
import type { Logger } from '../logger';
import { type ClusterLink, sessionStreamId } from './cluster';

/**
 * The cluster's half of the notifications that go to many sessions. The node where a change
 * happens tells the other nodes (for their WebSocket, legacy SSE and listen streams) and writes
 * the notification into the stream of every clustered session it concerns, wherever that
 * session's GET stream is held: a node that dies holding one loses nothing, since the client
 * resumes the stream on another node with `Last-Event-ID`.
 */
export class ClusterFanOut {
  constructor(
    private readonly link: ClusterLink,
    private readonly logger: Logger,
  ) {}

  /** `methods` are `notifications/…/list_changed` methods. */
  async listChanged(methods: readonly string[]): Promise<void> {
    await this.settle('list_changed', [
      this.link.publish({ kind: 'list-changed', methods }),
      this.link.sessions
        .ids()
        .then((ids) => Promise.all(ids.flatMap((id) => methods.map((method) => this.write(id, { method }))))),
    ]);
  }

  async resourceUpdated(uri: string): Promise<void> {
    await this.settle('resources/updated', [
      this.link.publish({ kind: 'resource-updated', uri }),
      this.link.sessions
        .subscribers(uri)
        .then((ids) =>
          Promise.all(ids.map((id) => this.write(id, { method: Method.ResourcesUpdated, params: { uri } }))),
        ),
    ]);
  }

  private write(sessionId: string, notification: Omit<JSONRPCNotification, 'jsonrpc'>): Promise<string> {
    const message = { jsonrpc: JSONRPC_VERSION, ...notification } as JSONRPCNotification;
    return this.link.events.storeEvent(sessionStreamId(sessionId), message);
  }

  /** A notification is best effort: a backend that is down is logged, never thrown at the caller. */
  private async settle(what: string, work: Promise<unknown>[]): Promise<void> {
    for (const outcome of await Promise.allSettled(work)) {
      if (outcome.status === 'rejected') {
        this.logger.warn(`A cluster-wide ${what} was not delivered to every node:`, outcome.reason);
      }
    }
  }
}
