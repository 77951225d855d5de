import {
  CapabilityMissingError,
  type ClientCapabilities,
  GantryError,
  type InputRequest,
  type InputRequests,
  LocalErrorCode,
} from '@gantry/protocol';

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
 * (replayed to the handler in order) and the requests this try still needs.
 */
export class InputRound {
  private cursor = 0;
  /** Input requests of this try, by key, in the order the handler made them (made on the first). */
  private pending?: Map<string, InputRequest>;
  /** Capabilities the handler needed that the request did not declare. */
  missing?: ClientCapabilities;
  /** What the handler was told when it asked without them. */
  missingMessage?: string;

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
   * else recorded for the `input_required` result (and the handler stops).
   */
  next<T>(request: InputRequest): Promise<T> {
    if (!this.allowed) {
      return Promise.reject(
        new CapabilityMissingError(
          `${request.method} cannot be asked for during ${this.method}: in protocol 2026-07-28 only tools/call, prompts/get and resources/read may return input_required`,
        ),
      );
    }
    const index = this.cursor++;
    if (index < this.answers.length) return Promise.resolve(this.answers[index] as T);
    const key = `${request.method.split('/')[0]}-${index + 1}`;
    this.pending ??= new Map();
    this.pending.set(key, request);
    return Promise.reject(new InputRequiredSignal(key));
  }

  /** Records a capability the handler needed; the request then fails with −32021 unless the handler recovers. */
  require(capabilities: ClientCapabilities, message: string): CapabilityMissingError {
    this.missing = { ...this.missing, ...capabilities };
    this.missingMessage ??= message;
    return new CapabilityMissingError(message);
  }

  /** True when the handler asked for input this try does not have. */
  get hasPending(): boolean {
    return this.pending !== undefined;
  }

  get inputRequests(): InputRequests {
    return Object.fromEntries(this.pending ?? []);
  }
}
