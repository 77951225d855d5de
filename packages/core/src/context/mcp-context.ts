import {
  type ClientCapabilities,
  type Implementation,
  type InboundRequest,
  type Meta,
  Method,
  type ProgressToken,
  type RequestId,
  versionAtLeast,
} from '@gantry/protocol';

/** What is known of the client on this connection. */
export interface SessionInfo {
  /** The protocol version answered in `initialize`. */
  readonly protocolVersion: string;
  /** The spec revision whose rules apply (differs for aliases such as 2024-10-07). */
  readonly behaviourVersion: string;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: ClientCapabilities;
}

/**
 * The context of one request, injected with `@Ctx()`. It is created only for handlers that
 * ask for it.
 */
export class McpContext {
  private lastProgress = -Infinity;

  constructor(
    private readonly inbound: InboundRequest,
    /** The session the request arrived on. */
    readonly session: SessionInfo,
  ) {}

  /** The JSON-RPC id of the request being handled. */
  get requestId(): RequestId {
    return this.inbound.id;
  }

  /** The method being handled, e.g. `tools/call`. */
  get method(): string {
    return this.inbound.method;
  }

  /** Aborts when the client cancels the request, the connection closes, or the app shuts down. */
  get signal(): AbortSignal {
    return this.inbound.signal;
  }

  /** The request's `params._meta`. */
  get meta(): Meta | undefined {
    return this.inbound.meta;
  }

  /** The caller's progress token, when it asked for progress. */
  get progressToken(): ProgressToken | undefined {
    return this.inbound.meta?.progressToken;
  }

  /**
   * Reports progress with `notifications/progress`. Sent only when the caller gave a
   * `progressToken` (otherwise nothing happens). `progress` must increase with every call.
   */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    if (typeof progress !== 'number' || Number.isNaN(progress)) {
      throw new TypeError(`ctx.progress(): progress must be a number, got ${String(progress)}`);
    }
    if (progress <= this.lastProgress) {
      throw new RangeError(
        `ctx.progress(): progress must increase with every call (MCP progress rule); got ${progress} after ${this.lastProgress}`,
      );
    }
    this.lastProgress = progress;
    const token = this.progressToken;
    if (token === undefined) return Promise.resolve();
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` exists since 2025-03-26.
    if (message !== undefined && versionAtLeast(this.session.behaviourVersion, '2025-03-26'))
      params.message = message;
    return this.inbound.notify({ method: Method.Progress, params });
  }
}
