import {
  CapabilityMissingError,
  type ClientCapabilities,
  type InboundChannel,
  InboundRequest,
  type InputRequest,
  isTerminalStatus,
  type JSONRPCRequest,
  type ListRootsResult,
  type LoggingLevel,
  Method,
  type OutboundMessage,
  RELATED_TASK_META,
  type RequestId,
  type RequestOptions,
  type Result,
  type Root,
} from '@gantry/protocol';
import type { ClientChannel, ClientRequestMethod, ContextSession } from '../context/context-session';
import { generatedInputKey } from '../stateless/input-key';
import type { StoredTask, TaskChange } from './task-store';

/** The request a task's handler runs as: the original `tools/call`, with the task's own signal. */
export class TaskInbound extends InboundRequest {
  constructor(
    channel: InboundChannel,
    request: JSONRPCRequest,
    /** The task the handler runs in (`ctx.taskId`). */
    readonly taskId: string,
    /** Progress becomes the status message even without a progressToken (2026-07-28 tasks). */
    readonly progressAsStatus: boolean,
  ) {
    super(channel, request);
  }
}

/** What a running task needs of the service that started it. */
export interface TaskRunHost {
  change(taskId: string, change: TaskChange): Promise<StoredTask | undefined>;
  takeAnswer(taskId: string, key: string): Promise<unknown>;
  watch(taskId: string, listener: (task: StoredTask | undefined) => void): () => void;
  /** A task of the session era changed status: tell its session (`notifications/tasks/status`). */
  statusChanged(task: StoredTask): void;
}

/** How a session-era task reaches its client. */
export interface SessionPeer {
  /** The session's connection. */
  readonly channel: InboundChannel;
  /**
   * True on Streamable HTTP, where a message goes on the stream of the request it relates to:
   * the task's requests to the client wait in the store for a `tasks/result` to carry them.
   */
  readonly viaStore: boolean;
  /** The `tasks/result` waiting on this connection, if any: notifications relate to it. */
  side(): RequestId | undefined;
}

/** `message` with the related-task `_meta` of MCP 2025-11-25 (Tasks § Related task metadata). */
function related(message: OutboundMessage, taskId: string): OutboundMessage {
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  return { ...message, params: { ...params, _meta: { ...meta, [RELATED_TASK_META]: { taskId } } } };
}

/** Longest `statusMessage` a progress or log message becomes (the rest is cut). */
const MAX_STATUS_MESSAGE = 500;

/**
 * One task while its handler runs on this node: the signal `tasks/cancel` aborts, the watch
 * on its stored state (a cancel or an answer may come through any node), and the channel its
 * handler talks to the client through, which differs by era.
 */
export class TaskRun {
  readonly inbound: TaskInbound;
  private readonly stopWatch: () => void;
  private lastStatus: StoredTask['status'];
  /** Input requests the handler waits for, by key: answered through the store. */
  private readonly waiting = new Map<
    string,
    { resolve: (answer: unknown) => void; reject: (e: Error) => void }
  >();
  /** Session era: requests sent to the client and not answered yet. */
  private asking = 0;
  private inputCount = 0;
  /** The input requests this node asked and that are not answered yet. */
  private readonly outstanding: Record<string, InputRequest> = {};

  constructor(
    private readonly host: TaskRunHost,
    readonly task: StoredTask,
    request: JSONRPCRequest,
    /**
     * Session era: how messages reach the client (its connection's Peer) and which waiting
     * `tasks/result` request carries them, if any. Undefined in the stateless era.
     */
    peer: SessionPeer | undefined,
  ) {
    this.lastStatus = task.status;
    this.inbound = new TaskInbound(
      peer ? this.sessionChannel(peer) : this.extensionChannel(),
      request,
      task.taskId,
      peer === undefined,
    );
    this.stopWatch = host.watch(task.taskId, (stored) => this.changed(stored));
  }

  get taskId(): string {
    return this.task.taskId;
  }

  /** The handler settled (or the node gives up on it): stop watching and drop what waits. */
  finish(): void {
    this.stopWatch();
    for (const waiter of this.waiting.values()) waiter.reject(new Error('The task ended'));
    this.waiting.clear();
  }

  /** Aborts the handler's signal (`tasks/cancel`, shutdown). */
  abort(reason: string): void {
    this.inbound.cancel(new Error(reason));
  }

  /**
   * The stateless era's channel: ctx.elicit()/sample()/roots() become `inputRequests` of the
   * task, answered with `tasks/update` on any node (MCP 2026-07-28 tasks extension, input_required).
   */
  channel(): ClientChannel {
    return {
      unavailable: undefined,
      request: <T extends Result>(method: ClientRequestMethod, params: Record<string, unknown>) => {
        if (method === Method.ElicitationCreate && params.mode === 'url') {
          const { elicitationId: _, ...wire } = params;
          return this.ask<T>({ method, params: wire });
        }
        return this.ask<T>({ method, params } as InputRequest);
      },
      missing: (_capabilities: ClientCapabilities, message: string) => new CapabilityMissingError(message),
      roots: (): Promise<Root[]> =>
        this.ask<ListRootsResult>({ method: Method.RootsList }).then((result) =>
          Array.isArray(result?.roots) ? result.roots : [],
        ),
    };
  }

  private async ask<T>(request: InputRequest): Promise<T> {
    const signal = this.inbound.signal;
    if (signal.aborted) throw signal.reason;
    this.inputCount++;
    // Unique over the task's life, as the extension requires of input request keys.
    const key = generatedInputKey(request.method, this.inputCount);
    const answered = new Promise<unknown>((resolve, reject) => {
      this.waiting.set(key, { resolve, reject });
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    this.outstanding[key] = request;
    try {
      const stored = await this.host.change(this.taskId, {
        status: 'input_required',
        inputRequests: { ...this.outstanding },
      });
      // The answer may be there already (given on another node before this node's watch fired).
      if (stored?.inputResponses && Object.hasOwn(stored.inputResponses, key)) this.take(key);
      return (await answered) as T;
    } finally {
      this.waiting.delete(key);
      delete this.outstanding[key];
    }
  }

  private take(key: string): void {
    const waiter = this.waiting.get(key);
    if (!waiter) return;
    this.host.takeAnswer(this.taskId, key).then(
      (answer) => {
        if (answer !== undefined) waiter.resolve(answer);
      },
      (error: Error) => waiter.reject(error),
    );
  }

  private changed(stored: StoredTask | undefined): void {
    if (!stored) {
      this.abort('The task expired');
      return;
    }
    if (stored.status === 'cancelled' && !this.inbound.cancelled) this.abort('The task was cancelled');
    if (stored.inputResponses) {
      for (const key of Object.keys(stored.inputResponses)) if (this.waiting.has(key)) this.take(key);
    }
    if (stored.status !== this.lastStatus) {
      this.lastStatus = stored.status;
      if (stored.era === 'session') this.host.statusChanged(stored);
    }
    if (isTerminalStatus(stored.status)) this.stopWatch();
  }

  /** The session era's channel: messages go over the session's connection, tagged with the task. */
  private sessionChannel(peer: SessionPeer): InboundChannel {
    const taskId = this.task.taskId;
    return {
      notify: (message) => peer.channel.notify(related(message, taskId), { relatedRequestId: peer.side() }),
      request: async <T extends Result>(message: OutboundMessage, options: RequestOptions) => {
        this.asking++;
        let key: string | undefined;
        try {
          if (peer.viaStore) {
            // Streamable HTTP: the request waits in the task until a `tasks/result`, on whichever
            // node, carries it (MCP 2025-11-25 Tasks § Input required); its answer comes back here.
            return await peer.channel.request<T>(related(message, taskId), {
              ...options,
              signal: options.signal ?? this.inbound.signal,
              deliver: (request) => {
                key = JSON.stringify(request.id);
                return this.park(key, request);
              },
            });
          }
          if (this.asking === 1) await this.host.change(taskId, { status: 'input_required' });
          return await peer.channel.request<T>(related(message, taskId), {
            ...options,
            relatedRequestId: peer.side(),
          });
        } finally {
          this.asking--;
          if (key !== undefined) delete this.outstanding[key];
          if (!this.inbound.cancelled) await this.answered(key !== undefined);
        }
      },
    };
  }

  /** Stores a session-era request to the client in the task, for a `tasks/result` to carry. */
  private async park(key: string, request: JSONRPCRequest): Promise<void> {
    this.outstanding[key] = { method: request.method, params: request.params } as InputRequest;
    const stored = await this.host.change(this.taskId, {
      status: 'input_required',
      inputRequests: { ...this.outstanding },
    });
    if (!stored || isTerminalStatus(stored.status)) {
      throw new Error(
        `Task ${this.taskId} ${stored ? `is ${stored.status}` : 'expired'}; nobody will answer`,
      );
    }
  }

  /** A session-era request was answered: the task works again once nothing else waits. */
  private async answered(parked: boolean): Promise<void> {
    const rest = Object.keys(this.outstanding).length > 0 ? { ...this.outstanding } : null;
    if (this.asking === 0) {
      await this.host.change(
        this.taskId,
        parked ? { status: 'working', inputRequests: null } : { status: 'working' },
      );
    } else if (parked) {
      await this.host.change(this.taskId, { inputRequests: rest });
    }
  }

  /**
   * The stateless era's notifications: progress and log messages have no stream to go to in a
   * task (the extension forbids them on listen streams); they become the task's `statusMessage`.
   */
  private extensionChannel(): InboundChannel {
    const taskId = this.task.taskId;
    return {
      notify: async (message) => {
        const text = statusText(message);
        if (text !== undefined) await this.host.change(taskId, { statusMessage: text });
      },
      request: () => Promise.reject(new Error('A stateless-era task asks its client through inputRequests')),
    };
  }
}

/** What a progress or log notification says, as a status message. */
function statusText(message: OutboundMessage): string | undefined {
  const params = (message.params ?? {}) as Record<string, unknown>;
  let text: string | undefined;
  if (message.method === Method.Progress) {
    const { progress, total } = params as { progress?: number; total?: number };
    const counted = total === undefined ? `${progress}` : `${progress}/${total}`;
    text = typeof params.message === 'string' ? `${params.message} (${counted})` : counted;
  } else if (message.method === Method.LoggingMessage) {
    const data = params.data;
    text = typeof data === 'string' ? data : JSON.stringify(data);
  }
  return text === undefined ? undefined : text.slice(0, MAX_STATUS_MESSAGE);
}

/** Wraps a call's session for a stateless-era task: its client channel is the task's input requests. */
export function taskSession(call: ContextSession, run: TaskRun): ContextSession {
  const channel = run.channel();
  return Object.create(call, {
    channel: { value: () => channel },
    // Log messages become the status message whatever the request's log level.
    logs: { value: (_level: LoggingLevel) => true },
  }) as ContextSession;
}
