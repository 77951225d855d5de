import {
  type InputRequest,
  InternalError,
  InvalidParamsError,
  isObject,
  Method,
  MissingRequiredClientCapabilityError,
  type RequestParams,
  type Result,
  UrlElicitationRequiredError,
} from '@gantry/protocol';
import type { MethodHandler } from '../server/method-table';
import { activeSpanReference, linkActiveSpanTo } from '../telemetry/propagation';
import { methodOfGeneratedKey, URL_KEY } from './input-key';
import type { InputRound } from './input-round';
import { principalDigest, RequestStateCodec } from './request-state';
import { type ResultHints, withHint } from './result-hints';
import type { StatelessCall } from './stateless-call';

type Salient = (params: RequestParams | undefined) => unknown;

/**
 * The methods that may return `input_required` (MCP 2026-07-28, multi round-trip requests),
 * with the salient params a `requestState` is bound to.
 */
const SALIENT: Record<string, Salient> = {
  [Method.ToolsCall]: (p) => ({ name: p?.name, arguments: p?.arguments ?? {} }),
  [Method.PromptsGet]: (p) => ({ name: p?.name, arguments: p?.arguments ?? {} }),
  [Method.ResourcesRead]: (p) => ({ uri: p?.uri }),
};

const NO_ANSWERS: readonly unknown[] = Object.freeze([]);

/** One try of a round-trip method: the request, and the round its handler asked through. */
interface Attempt {
  readonly method: string;
  readonly params: RequestParams | undefined;
  readonly call: StatelessCall;
  readonly round: InputRound;
  /** Rounds taken before this try. */
  readonly rounds: number;
}

/** How the handler of one try settled. */
type Settled =
  | { readonly failed: false; readonly result: Result }
  | { readonly failed: true; readonly failure: unknown };

/** What the round trips need of the dispatcher. */
export interface RoundTripOptions {
  readonly codec: RequestStateCodec;
  /** `stateless.maxInputRounds`. */
  readonly maxRounds: number;
  readonly hints: ResultHints;
}

/**
 * Multi round-trip requests (MCP 2026-07-28): a handler that asks the client for input ends
 * its try with `input_required`, and runs again when the client retries with the answers and
 * the signed `requestState`.
 */
export class RoundTrips {
  constructor(private readonly options: RoundTripOptions) {}

  /**
   * Wraps `tools/call`, `prompts/get` or `resources/read`: replays the answers in
   * `requestState` + `inputResponses`, runs the handler, and answers `input_required` when the
   * handler asked for input it does not have yet.
   */
  wrap(method: string, base: MethodHandler): MethodHandler<StatelessCall> {
    const salient = SALIENT[method];
    return (params, inbound, call) => {
      const replay =
        params?.requestState !== undefined || params?.inputResponses !== undefined
          ? this.replay(method, salient, params, call)
          : undefined;
      call.beginTry(replay?.answers ?? NO_ANSWERS);
      const rounds = replay?.rounds ?? 0;
      let outcome: Result | Promise<Result>;
      try {
        outcome = base(params, inbound, call);
      } catch (failure) {
        return this.afterTry(method, params, call, rounds, { failed: true, failure });
      }
      // A synchronous handler is answered synchronously: no promise on the hot path.
      if (!(outcome instanceof Promise)) return this.afterSuccess(method, params, call, rounds, outcome);
      return outcome.then(
        (result) => this.afterSuccess(method, params, call, rounds, result),
        (failure) => this.afterTry(method, params, call, rounds, { failed: true, failure }),
      );
    };
  }

  /** A try that returned: most never asked for input, and are answered as they are. */
  private afterSuccess(
    method: string,
    params: RequestParams | undefined,
    call: StatelessCall,
    rounds: number,
    result: Result,
  ): Result {
    if (call.asked !== undefined)
      return this.afterTry(method, params, call, rounds, { failed: false, result });
    if (method === Method.ResourcesRead && result) {
      return withHint(result, this.options.hints.forRead(String(params?.uri), call.auth));
    }
    return result;
  }

  /**
   * Opens the echoed `requestState` and appends the answers of this retry, in order. What the
   * client has not answered is asked again rather than refused (MCP 2026-07-28, multi
   * round-trip requests: the server SHOULD re-request missing information): answers without a
   * `requestState` answer nothing this server asked, so the call runs as a first try; a retry
   * that leaves an expected request unanswered keeps the answers before it, and the handler
   * asks again from there.
   */
  private replay(
    method: string,
    salient: Salient,
    params: RequestParams | undefined,
    call: StatelessCall,
  ): { answers: unknown[]; rounds: number } {
    const responses = params?.inputResponses;
    const state = params?.requestState;
    if (state === undefined) return { answers: [], rounds: 0 };
    const prior = this.options.codec.open(
      state,
      method,
      RequestStateCodec.digest(method, salient(params)),
      principalDigest(call.auth),
    );
    // The retry's span is a child of the client's retry; it links to the first round's span.
    call.firstRoundSpan = prior.firstRoundSpan;
    linkActiveSpanTo(prior.firstRoundSpan);
    if (responses !== undefined && !isObject(responses)) {
      throw new InvalidParamsError(
        'Invalid params: "inputResponses" must be an object keyed by the input requests of the input_required result',
      );
    }
    const given: unknown[] = [];
    for (const [i, key] of prior.expected.entries()) {
      const answer = responses?.[key];
      if (!isObject(answer)) break;
      const problem = answerProblem(
        prior.methods?.[i] ?? methodOfGeneratedKey(key),
        answer as Record<string, unknown>,
      );
      if (problem) {
        throw new InvalidParamsError(
          `Invalid params: the answer to the input request ${JSON.stringify(key)} ${problem}`,
        );
      }
      // Answers to a thrown UrlElicitationRequiredError are consent only: the handler checks its own state.
      if (!key.startsWith(URL_KEY)) given.push(answer);
    }
    return { answers: [...prior.answers, ...given], rounds: prior.rounds };
  }

  /** What one try of a round-trip method answers, once its handler settled. */
  private afterTry(
    method: string,
    params: RequestParams | undefined,
    call: StatelessCall,
    rounds: number,
    settled: Settled,
  ): Result {
    const round = call.asked;
    // A handler bug (two input requests under one key) fails the call, even with others pending.
    if (round?.misuse) throw round.misuse;
    if (round?.hasPending)
      return this.inputRequired({ method, params, call, round, rounds }, round.pendingRequests);
    // The handler needed a capability the request did not declare, and did not recover.
    if (
      round?.lacking &&
      (settled.failed || (settled.result as { isError?: unknown } | undefined)?.isError === true)
    ) {
      throw new MissingRequiredClientCapabilityError(
        `Missing required client capability: ${round.lackingMessage ?? `${method} needs client capabilities this request did not declare`}`,
        { requiredCapabilities: round.lacking },
      );
    }
    if (settled.failed) {
      const failure = settled.failure;
      // 2026-07-28 retired −32042: the URL elicitations become input requests of this result.
      if (failure instanceof UrlElicitationRequiredError && failure.elicitations.length > 0) {
        return this.inputRequired(
          { method, params, call, round: call.round, rounds },
          urlInputRequests(rounds + 1, failure),
        );
      }
      throw failure;
    }
    if (method === Method.ResourcesRead && settled.result) {
      return withHint(settled.result, this.options.hints.forRead(String(params?.uri), call.auth));
    }
    return settled.result;
  }

  /** Ends a try with `input_required`: the requests (in the order asked), and a state for the retry. */
  private inputRequired(attempt: Attempt, pending: ReadonlyMap<string, InputRequest>): Result {
    const { method, params, call, round, rounds } = attempt;
    const salient = SALIENT[method];
    const { codec, maxRounds } = this.options;
    if (rounds + 1 > maxRounds) {
      throw new InternalError(
        `Internal error: ${method} asked the client for input more than ${maxRounds} times (stateless.maxInputRounds)`,
      );
    }
    const requestState = codec.issue(
      method,
      RequestStateCodec.digest(method, salient(params)),
      principalDigest(call.auth),
      {
        answers: round.gathered,
        // From the map, not the wire object: an integer-like key would come first in that.
        expected: [...pending.keys()],
        methods: [...pending.values()].map((request) => request.method),
        rounds: rounds + 1,
        firstRoundSpan: call.firstRoundSpan ?? activeSpanReference(),
      },
    );
    const inputRequests = Object.fromEntries(pending);
    return { resultType: 'input_required', inputRequests, requestState } as Result;
  }
}

/** The input requests for the URL elicitations a handler threw (the session era's −32042). */
function urlInputRequests(round: number, error: UrlElicitationRequiredError): Map<string, InputRequest> {
  const requests = new Map<string, InputRequest>();
  error.elicitations.forEach((elicitation, i) => {
    requests.set(`${URL_KEY}${round}-${i + 1}`, {
      method: Method.ElicitationCreate,
      params: { mode: 'url', message: elicitation.message, url: elicitation.url },
    });
  });
  return requests;
}

/** What is wrong with the shape of an answer, judged by the method of the input request it answers. */
function answerProblem(method: string | undefined, answer: Record<string, unknown>): string | undefined {
  if (method === Method.ElicitationCreate) {
    const action = answer.action;
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
      return `needs "action": "accept", "decline" or "cancel" (an ElicitResult), got ${JSON.stringify(action)}`;
    if (answer.content !== undefined && !isObject(answer.content))
      return 'has a "content" that is not an object';
  } else if (method === Method.SamplingCreateMessage) {
    if (typeof answer.role !== 'string' || typeof answer.content !== 'object' || answer.content === null)
      return 'needs "role" and "content" (a CreateMessageResult)';
  } else if (method === Method.RootsList) {
    if (!Array.isArray(answer.roots)) return 'needs "roots", an array (a ListRootsResult)';
  }
  return undefined;
}
