import {
  type InboundRequest,
  InvalidParamsError,
  MetaKey,
  Method,
  MissingRequiredClientCapabilityError,
  type RequestId,
  type Result,
  type ServerCapabilities,
  StatelessMethod,
  type SubscriptionFilter,
} from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';

/** The tasks extension's notification on a listen stream (MCP 2026-07-28 tasks extension). */
const TASK_NOTIFICATION = 'notifications/tasks';

/**
 * Where a listen stream's `taskIds` are followed (the tasks extension of MCP 2026-07-28,
 * `notifications/tasks`): resolves the ids `call` may see, and calls `send` with the params of
 * each notification until `stop()`.
 */
export interface TaskFollower {
  follow(
    taskIds: readonly string[],
    call: ContextSession,
    send: (params: Record<string, unknown>) => void,
  ): Promise<{ readonly accepted: string[]; stop(): void }>;
}

/** One open `subscriptions/listen` stream. */
interface Listener {
  readonly id: RequestId;
  /** The connection the stream runs on. */
  readonly connection: object;
  readonly filter: SubscriptionFilter;
  readonly inbound: InboundRequest;
  readonly end: () => void;
}

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** True when `uri` is `subscribed` or below it (2025-11-25: sub-resources notify their parent's subscribers). */
export function coversUri(subscribed: string, uri: string): boolean {
  return uri === subscribed || uri.startsWith(subscribed.endsWith('/') ? subscribed : `${subscribed}/`);
}

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;

const FLAG_OF: Record<string, (typeof FLAGS)[number]> = {
  [Method.ToolsListChanged]: 'toolsListChanged',
  [Method.PromptsListChanged]: 'promptsListChanged',
  [Method.ResourcesListChanged]: 'resourcesListChanged',
};

/**
 * The open `subscriptions/listen` streams of the stateless era. Each gets an acknowledgement
 * first, then only the notifications it opted in to, each tagged with its subscription id.
 */
export class SubscriptionHub {
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly capabilities: ServerCapabilities,
    /** Told when a stream opens and ends (`gantry.server.streams.active`, kind `listen`). */
    private readonly streams?: { streamOpened(kind: 'listen'): void; streamClosed(kind: 'listen'): void },
    /** Follows the tasks a stream names in `notifications.taskIds`; undefined: no task runs here. */
    private readonly tasks?: TaskFollower,
  ) {}

  get size(): number {
    return this.listeners.size;
  }

  /** Serves one `subscriptions/listen` request; resolves when the stream ends. */
  async listen(
    params: Record<string, unknown> | undefined,
    inbound: InboundRequest,
    connection: object,
    call?: ContextSession,
  ): Promise<Result> {
    const requested = params?.notifications;
    if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
      throw new InvalidParamsError(
        'Invalid params: subscriptions/listen needs "notifications", an object such as { "toolsListChanged": true }',
      );
    }
    const wanted = requested as Record<string, unknown>;
    for (const flag of FLAGS) {
      if (wanted[flag] !== undefined && typeof wanted[flag] !== 'boolean') {
        throw new InvalidParamsError(`Invalid params: notifications.${flag} must be a boolean`);
      }
    }
    const uris = wanted.resourceSubscriptions;
    if (uris !== undefined && (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string'))) {
      throw new InvalidParamsError(
        'Invalid params: notifications.resourceSubscriptions must be an array of URI strings',
      );
    }
    // Only what this server can deliver is honoured; the acknowledgement says which.
    const caps = this.capabilities;
    const honoured: SubscriptionFilter = {};
    if (wanted.toolsListChanged === true && caps.tools?.listChanged) honoured.toolsListChanged = true;
    if (wanted.promptsListChanged === true && caps.prompts?.listChanged) honoured.promptsListChanged = true;
    if (wanted.resourcesListChanged === true && caps.resources?.listChanged)
      honoured.resourcesListChanged = true;
    if (Array.isArray(uris) && caps.resources?.subscribe) honoured.resourceSubscriptions = [...uris];
    const taskIds = wanted.taskIds;
    let following: { readonly accepted: string[]; stop(): void } | undefined;
    // A server without tasks honours no task ids (the acknowledgement leaves them out).
    if (taskIds !== undefined && this.tasks) {
      if (!Array.isArray(taskIds) || !taskIds.every((t) => typeof t === 'string')) {
        throw new InvalidParamsError(
          'Invalid params: notifications.taskIds must be an array of task id strings',
        );
      }
      // The tasks extension: asking for task notifications without declaring it is −32021.
      if (call && call.clientCapabilities.extensions?.[TASKS_EXTENSION] === undefined) {
        throw new MissingRequiredClientCapabilityError(
          `Missing required client capability: notifications.taskIds needs the ${TASKS_EXTENSION} extension in this request's client capabilities`,
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        );
      }
      if (call && taskIds.length > 0) {
        const meta = { [MetaKey.SubscriptionId]: inbound.id };
        following = await this.tasks.follow(taskIds as string[], call, (task) => {
          inbound
            .notify({ method: TASK_NOTIFICATION, params: { ...task, _meta: meta } })
            .catch(() => undefined);
        });
        honoured.taskIds = following.accepted;
      } else {
        honoured.taskIds = [];
      }
    }

    const id = inbound.id;
    const meta = { [MetaKey.SubscriptionId]: id };
    return new Promise<Result>((resolve) => {
      let done = false;
      const listener: Listener = {
        id,
        connection,
        filter: honoured,
        inbound,
        end: () => {
          if (done) return;
          done = true;
          following?.stop();
          this.listeners.delete(listener);
          this.streams?.streamClosed('listen');
          resolve({ resultType: 'complete', _meta: meta } as Result);
        },
      };
      // The acknowledgement is the first message of the stream; nothing of it precedes.
      inbound
        .notify({
          method: StatelessMethod.SubscriptionsAcknowledged,
          params: { notifications: honoured, _meta: meta },
        })
        .catch(() => undefined);
      this.listeners.add(listener);
      this.streams?.streamOpened('listen');
      // Closed by the client (notifications/cancelled, a closed HTTP stream) or the connection.
      inbound.signal.addEventListener('abort', () => listener.end(), { once: true });
    });
  }

  /** Delivers a list change to the streams that opted in to it. */
  listChanged(method: string): void {
    const flag = FLAG_OF[method];
    if (!flag) return;
    for (const listener of this.listeners) if (listener.filter[flag] === true) this.send(listener, method);
  }

  /** Delivers `notifications/resources/updated` to the streams subscribed to `uri` (or a parent). */
  resourceUpdated(uri: string): Promise<void>[] {
    const sends: Promise<void>[] = [];
    for (const listener of this.listeners) {
      const uris = listener.filter.resourceSubscriptions;
      if (uris?.some((subscribed) => coversUri(subscribed, uri))) {
        sends.push(this.send(listener, Method.ResourcesUpdated, { uri }));
      }
    }
    return sends;
  }

  /** Ends every stream (of one connection, when given) with its final result: shutdown. */
  endAll(connection?: object): void {
    for (const listener of [...this.listeners]) {
      if (connection === undefined || listener.connection === connection) listener.end();
    }
  }

  /** Number of open streams on `connection`. */
  countOn(connection: object): number {
    let count = 0;
    for (const listener of this.listeners) if (listener.connection === connection) count++;
    return count;
  }

  private send(listener: Listener, method: string, params: Record<string, unknown> = {}): Promise<void> {
    return listener.inbound
      .notify({ method, params: { ...params, _meta: { [MetaKey.SubscriptionId]: listener.id } } })
      .catch(() => undefined);
  }
}
