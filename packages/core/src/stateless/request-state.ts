import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type AuthInfo, InvalidParamsError, principalOf } from '@gantry/protocol';

/** Sorted-key JSON: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value as object)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** Who a state is bound to: a digest of {@link principalOf} (subject, else client, else token, namespaced). */
export function principalDigest(auth: AuthInfo | undefined): string | null {
  const principal = principalOf(auth);
  return principal === undefined ? null : sha256(`principal\0${principal}`);
}

/** What a round trip carries from one try of a request to the next. */
export interface RoundState {
  /** Answers gathered so far, in the order the handler asked. */
  readonly answers: readonly unknown[];
  /** Keys of the input requests the client must answer in this retry, in order. */
  readonly expected: readonly string[];
  /**
   * The method of each of those input requests, in the same order: a key the handler chose
   * does not say what it asks for. Absent in states issued before keys could be chosen, whose
   * keys all start with their kind (`elicitation-1`).
   */
  readonly methods?: readonly string[];
  /** Rounds so far. */
  readonly rounds: number;
  /** The span of the first round (`traceId-spanId-flags`), which the retries' spans link to. */
  readonly firstRoundSpan?: string;
}

interface Payload {
  v: 1;
  /** Method. */
  m: string;
  /** Digest of the request's salient params. */
  d: string;
  /** Principal digest, or null. */
  p: string | null;
  /** Expiry, ms since the epoch. */
  x: number;
  a: unknown[];
  k: string[];
  /** Methods of the input requests `k`, when issued with them. */
  q?: string[];
  r: number;
  /** The first round's span, when it was traced. */
  t?: string;
}

export interface RequestStateOptions {
  /** HMAC key; shared by every node that may receive a retry. */
  key: Buffer;
  /** Lifetime of a state, from the round that issued it. */
  ttlMs: number;
  now?: () => number;
}

const DOMAIN = 'gantry.requestState.v1';

/**
 * Issues and checks `requestState`: the answers gathered so far, signed with HMAC-SHA256 and
 * bound to the method, a digest of the salient params, the caller and an expiry. The client
 * echoes it without reading it; any node with the same key can continue the call.
 */
export class RequestStateCodec {
  private readonly now: () => number;

  constructor(private readonly options: RequestStateOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A random per-process key (a single node only). */
  static randomKey(): Buffer {
    return randomBytes(32);
  }

  /** The digest that binds a state to one request's salient params. */
  static digest(method: string, salient: unknown): string {
    return sha256(`${method}\0${canonicalJson(salient)}`);
  }

  issue(method: string, digest: string, principal: string | null, state: RoundState): string {
    const payload: Payload = {
      v: 1,
      m: method,
      d: digest,
      p: principal,
      x: this.now() + this.options.ttlMs,
      a: [...state.answers],
      k: [...state.expected],
      r: state.rounds,
    };
    if (state.methods !== undefined) payload.q = [...state.methods];
    if (state.firstRoundSpan !== undefined) payload.t = state.firstRoundSpan;
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** Checks a state echoed by the client; throws −32602 with the reason when it is not acceptable. */
  open(token: unknown, method: string, digest: string, principal: string | null): RoundState {
    if (typeof token !== 'string') {
      throw new InvalidParamsError('Invalid params: "requestState" must be the string the server sent');
    }
    const dot = token.indexOf('.');
    const body = dot > 0 ? token.slice(0, dot) : '';
    const mac = dot > 0 ? token.slice(dot + 1) : '';
    // The signature's text is compared, not its decoded bytes: base64url decoding ignores the
    // spare bits of the last character, and an altered state must never pass.
    const expected = Buffer.from(this.sign(body), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (body === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new InvalidParamsError(
        'Invalid params: requestState failed its integrity check; it was altered or issued by a server with another key. Send the request again without requestState and inputResponses',
      );
    }
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw new InvalidParamsError('Invalid params: requestState is malformed');
    }
    if (
      payload.v !== 1 ||
      !Array.isArray(payload.a) ||
      !Array.isArray(payload.k) ||
      (payload.q !== undefined && (!Array.isArray(payload.q) || payload.q.length !== payload.k.length))
    ) {
      throw new InvalidParamsError('Invalid params: requestState is malformed');
    }
    if (this.now() > payload.x) {
      throw new InvalidParamsError(
        'Invalid params: requestState expired; send the request again without requestState and inputResponses',
      );
    }
    if (payload.m !== method || payload.d !== digest) {
      throw new InvalidParamsError(
        `Invalid params: requestState belongs to another request (it was issued for a ${payload.m} with other parameters); echo it only in the retry of the request that returned it`,
      );
    }
    if (payload.p !== principal) {
      throw new InvalidParamsError('Invalid params: requestState was issued to another caller');
    }
    return {
      answers: payload.a,
      expected: payload.k,
      rounds: payload.r,
      ...(payload.q === undefined ? {} : { methods: payload.q }),
      ...(typeof payload.t === 'string' ? { firstRoundSpan: payload.t } : {}),
    };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.options.key).update(`${DOMAIN}.${body}`).digest('base64url');
  }
}
