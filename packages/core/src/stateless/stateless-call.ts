import type {
  AuthInfo,
  ClientCapabilities,
  Implementation,
  InboundRequest,
  LoggingLevel,
} from '@gantry/protocol';
import type { ContextSession } from '../context/context-session';
import { LOG_LEVELS } from '../context/log-levels';
import { InputRound } from './input-round';
import type { RequestMeta } from './request-meta';

/** What a stateless-era call needs of the server: its fan-out notifications. */
export interface StatelessServices {
  resourceUpdated(uri: string): Promise<void>;
  resourceListChanged(): void;
  completeElicitation(elicitationId: string): Promise<boolean>;
}

const NO_ANSWERS: readonly unknown[] = Object.freeze([]);

const UNKNOWN_CLIENT: Implementation = Object.freeze({ name: 'unknown-client', version: '' });

/**
 * One stateless-era request (MCP 2026-07-28) as its handlers see it: version, capabilities,
 * client and log level come from the request's own `_meta`, nothing from earlier requests.
 * Its channel back to the client is the current input round.
 */
export class StatelessCall implements ContextSession {
  readonly era = 'stateless' as const;
  readonly protocolVersion: string;
  readonly behaviourVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation;
  /** `_meta["io.modelcontextprotocol/logLevel"]`: without it the request gets no log messages. */
  readonly logLevel: LoggingLevel | undefined;
  /** The input side of the current try, made when the handler first asks for input. */
  private current?: InputRound;
  /** The first input round's span, once a retry's `requestState` named it (see `RoundTrips`). */
  firstRoundSpan?: string;
  /** Set by the round trips for each try of `tools/call`, `prompts/get` and `resources/read`. */
  private answers?: readonly unknown[];

  constructor(
    readonly method: string,
    meta: RequestMeta,
    /** The connection the request arrived on. */
    readonly connection: { readonly auth?: AuthInfo; readonly remoteAddress?: string },
    private readonly services: StatelessServices,
  ) {
    this.protocolVersion = meta.protocolVersion;
    this.behaviourVersion = meta.protocolVersion;
    this.clientCapabilities = meta.clientCapabilities;
    this.clientInfo = meta.clientInfo ?? UNKNOWN_CLIENT;
    this.logLevel = meta.logLevel;
  }

  /**
   * The input side of the current try. Outside `tools/call`, `prompts/get` and
   * `resources/read` it refuses to ask: only those may return `input_required`.
   */
  get round(): InputRound {
    this.current ??= new InputRound(this.answers ?? NO_ANSWERS, this.answers !== undefined, this.method);
    return this.current;
  }

  /**
   * Starts a try that may ask for input, with the answers the client gave so far. The round is
   * made only if the handler asks: most tries never do.
   */
  beginTry(answers: readonly unknown[]): void {
    this.answers = answers;
    this.current = undefined;
  }

  /** The current try's round, if the handler asked for input (or for a capability) in it. */
  get asked(): InputRound | undefined {
    return this.current;
  }

  /** Who is calling, when the transport authenticated it (read at request time). */
  get auth(): AuthInfo | undefined {
    return this.connection.auth;
  }

  /** The peer's address, where the transport has one. */
  get remoteAddress(): string | undefined {
    return this.connection.remoteAddress;
  }

  logs(level: LoggingLevel): boolean {
    const threshold = this.logLevel;
    return threshold !== undefined && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
  }

  channel(_inbound: InboundRequest): InputRound {
    return this.round;
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.services.resourceUpdated(uri);
  }

  resourceListChanged(): void {
    this.services.resourceListChanged();
  }

  completeElicitation(elicitationId: string): Promise<boolean> {
    return this.services.completeElicitation(elicitationId);
  }
}
