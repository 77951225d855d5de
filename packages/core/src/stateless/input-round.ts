import {
  CapabilityMissingError,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  GantryError,
  type InputRequest,
  type ListRootsResult,
  LocalErrorCode,
  Method,
  type Result,
  type Root,
} from '@gantry/protocol';
import type { ClientChannel, ClientRequestMethod, ClientRequestOptions } from '../context/context-session';
import { generatedInputKey } from './input-key';

/**
 * Thrown out of `ctx.elicit()`, `ctx.sample()` and `ctx.roots()` on a stateless-era request
 * when the answer is not there yet: the call ends with `resultType: "input_required"` and runs
 * again when the client retries with the answer. Whatever the handler does with it, the
 * request is answered with the input request.
 */
export class InputRequiredSignal extends GantryError {
  override name = 'InputRequiredSignal';

  constructor(readonly key: string) {
    super(
      LocalErrorCode.InputRequired,
      `Input required (${key}): the call ends here and runs again when the client answers`,
    );
  }
}

/**
 * The input side of one try of a multi round-trip request: the answers the client gave so far
 * (replayed to the handler in order) and the requests this try still needs. It is the
 * stateless era's channel back to the client: asking for input records an input request.
 */
export class InputRound implements ClientChannel {
  /** Never: a stateless-era call asks through its result (whether it may is `allowed`). */
  readonly unavailable = undefined;
  private cursor = 0;
  /** Input requests of this try, by key, in the order the handler made them (made on the first). */
  private pending?: Map<string, InputRequest>;
  /** Capabilities the handler needed that the request did not declare. */
  lacking?: ClientCapabilities;
  /** What the handler was told when it asked without them. */
  lackingMessage?: string;
  /** The handler gave two input requests of this try the same key: the request fails with it. */
  misuse?: TypeError;

  constructor(
    private readonly answers: readonly unknown[],
    /** Whether this method may return `input_required` at all. */
    readonly allowed: boolean,
    private readonly method: string,
  ) {}

  get gathered(): readonly unknown[] {
    return this.answers;
  }

  /**
   * The answer to the handler's next input request: replayed when the client already gave it,
   * else recorded for the `input_required` result under `key` (the handler's, else one Gantry
   * makes), and the handler stops. Answers are replayed in the order the handler asks, so a
   * key names a request on the wire only; two pending requests may not share one.
   */
  next<T>(request: InputRequest, key?: string): Promise<T> {
    if (!this.allowed) {
      return Promise.reject(
        new CapabilityMissingError(
          `${request.method} cannot be asked for during ${this.method}: in protocol 2026-07-28 only tools/call, prompts/get and resources/read may return input_required`,
        ),
      );
    }
    const index = this.cursor++;
    if (index < this.answers.length) return Promise.resolve(this.answers[index] as T);
    const chosen = key ?? generatedInputKey(request.method, index + 1);
    this.pending ??= new Map();
    const taken = this.pending.get(chosen);
    if (taken !== undefined) {
      // MCP 2026-07-28: inputRequests keys MUST be unique within the request.
      this.misuse ??= new TypeError(
        `The input request key ${JSON.stringify(chosen)} is used twice in one round (${taken.method}, then ${request.method}); give each input request of a round its own key`,
      );
      return Promise.reject(this.misuse);
    }
    this.pending.set(chosen, request);
    return Promise.reject(new InputRequiredSignal(chosen));
  }

  /** `ClientChannel.request`: an input request of this round (see `next`). */
  request<T extends Result>(
    method: ClientRequestMethod,
    params: Record<string, unknown>,
    options?: ClientRequestOptions,
  ): Promise<T> {
    const key = options?.key;
    if (method === Method.SamplingCreateMessage) {
      return this.next<T>({ method, params: params as unknown as CreateMessageRequestParams }, key);
    }
    if (params.mode === 'url') {
      // URL-mode params are { mode, message, url } (MCP 2026-07-28, Client Features /
      // Elicitation): no elicitationId on the wire; the retry tells the handler the user's choice.
      const { elicitationId: _, ...wire } = params;
      return this.next<T>({ method, params: wire }, key);
    }
    return this.next<T>({ method, params }, key);
  }

  /** `ClientChannel.roots`: `roots/list` as an input request. */
  roots(options?: { key?: string }): Promise<Root[]> {
    return this.next<ListRootsResult>({ method: Method.RootsList }, options?.key).then((result) =>
      Array.isArray(result?.roots) ? result.roots : [],
    );
  }

  /** Records a capability the handler needed; the request then fails with −32021 unless the handler recovers. */
  missing(capabilities: ClientCapabilities, message: string): CapabilityMissingError {
    this.lacking = { ...this.lacking, ...capabilities };
    this.lackingMessage ??= message;
    return new CapabilityMissingError(message);
  }

  /** True when the handler asked for input this try does not have. */
  get hasPending(): boolean {
    return this.pending !== undefined;
  }

  /** The input requests of this try by key, in the order the handler made them. */
  get pendingRequests(): ReadonlyMap<string, InputRequest> {
    return this.pending ?? new Map();
  }
}
