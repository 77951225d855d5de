import type {
  Implementation,
  InitializeResult,
  JSONRPCNotification,
  ServerCapabilities,
  Transport,
} from '@gantry/protocol';
import type { Logger } from '../logger';
import { DEFAULT_PAGE_SIZE } from '../registry/pagination';
import type { Registry } from '../registry/registry';
import type { MethodHandler, MethodTable } from './method-table';
import type { GantryServerOptions } from './server-options';
import { ServerSession } from './server-session';
import { toolHandlers } from './tool-handlers';

export type NotificationHandler = (notification: JSONRPCNotification, session: ServerSession) => void;

/**
 * The protocol engine: one per application. It owns the method table (built once) and the
 * live sessions, and answers `initialize` from the registry's contents.
 */
export class GantryServer {
  readonly methods: MethodTable;
  readonly notificationHandlers: ReadonlyMap<string, NotificationHandler> = new Map();
  readonly sessions = new Set<ServerSession>();
  readonly requestTimeoutMs: number | undefined;
  private readonly serverInfo: Implementation;
  private readonly capabilities: ServerCapabilities;

  constructor(
    readonly registry: Registry,
    private readonly options: GantryServerOptions,
    readonly logger: Logger,
  ) {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${String(options.pageSize)}`);
    }
    this.requestTimeoutMs = options.requestTimeoutMs;
    const methods = new Map<string, MethodHandler>();
    const capabilities: ServerCapabilities = {};
    if (registry.tools.size > 0) {
      capabilities.tools = { listChanged: true };
      for (const [method, handler] of toolHandlers(registry.tools, pageSize)) methods.set(method, handler);
    }
    methods.set('ping', () => ({}));
    this.methods = methods;
    this.capabilities = capabilities;
    const info: Implementation = { name: options.name, version: options.version };
    if (options.title !== undefined) info.title = options.title;
    if (options.description !== undefined) info.description = options.description;
    if (options.websiteUrl !== undefined) info.websiteUrl = options.websiteUrl;
    if (options.icons !== undefined) info.icons = options.icons;
    this.serverInfo = info;
  }

  /** Serves one connection on `transport`. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = new ServerSession(this);
    this.sessions.add(session);
    session.onClose(() => this.sessions.delete(session));
    await session.connect(transport);
    return session;
  }

  /** The `initialize` result for the answered version. */
  initializeResult(protocolVersion: string): InitializeResult {
    const result: InitializeResult = {
      protocolVersion,
      capabilities: this.capabilities,
      serverInfo: this.serverInfo,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  /** Closes every session. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}
