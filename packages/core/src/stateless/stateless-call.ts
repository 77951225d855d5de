import type {
  AuthInfo,
  ClientCapabilities,
  Implementation,
  InboundRequest,
  LoggingLevel,
  RequestId,
  Root,
} from '@gantry/protocol';
import type { ContextSession } from '../context/mcp-context';
import type { InputRound } from './input-round';

/** What a stateless-era call needs of the server. */
export interface StatelessServices {
  resourceUpdated(uri: string): Promise<void>;
  resourceListChanged(): void;
  completeElicitation(elicitationId: string): Promise<boolean>;
}

const UNKNOWN_CLIENT: Implementation = Object.freeze({ name: 'unknown-client', version: '' });

/**
 * The session view of one stateless-era request (2026-07-28): version, capabilities, client
 * and log level come from the request's own `_meta`, nothing from earlier requests. Handlers
 * see it through `ctx` exactly as they see a session.
 */
export class StatelessCall implements ContextSession {
  readonly era = 'stateless' as const;
  readonly behaviourVersion: string;
  readonly clientInfo: Implementation;
  /** Set for the methods that may return `input_required`. */
  inputRound?: InputRound;

  constructor(
    readonly protocolVersion: string,
    readonly clientCapabilities: ClientCapabilities,
    clientInfo: Implementation | undefined,
    readonly logLevel: LoggingLevel | undefined,
    /** The connection the request arrived on. */
    readonly connection: { readonly auth?: AuthInfo },
    private readonly services: StatelessServices,
  ) {
    this.behaviourVersion = protocolVersion;
    this.clientInfo = clientInfo ?? UNKNOWN_CLIENT;
  }

  /** Who is calling, when the transport authenticated it (read at request time). */
  get auth(): AuthInfo | undefined {
    return this.connection.auth;
  }

  listRoots(_inbound: InboundRequest): Promise<Root[]> {
    // ctx.roots() goes through the input round in this era.
    return Promise.resolve([]);
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.services.resourceUpdated(uri);
  }

  resourceListChanged(): void {
    this.services.resourceListChanged();
  }

  rememberElicitation(_elicitationId: string): void {
    // No notifications/elicitation/complete in this era: the client retries instead.
  }

  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.services.completeElicitation(elicitationId);
  }

  closeStreamOf(_requestId: RequestId): boolean {
    return false;
  }
}
