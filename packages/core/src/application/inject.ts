import {
  type AuthInfo,
  type ClientCapabilities,
  type Implementation,
  isJSONRPCNotification,
  isJSONRPCRequest,
  JSONRPC_VERSION,
  type JSONRPCErrorObject,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  LATEST_STATELESS_PROTOCOL_VERSION,
  MetaKey,
  MethodNotFoundError,
  ParseError,
  type RequestId,
  type Result,
  type Transport,
  type TransportSink,
  toWireError,
  type WireMessage,
} from '@gantry/protocol';
import type { ConnectionHost } from '../transports/connection-host';

/**
 * One message for `app.inject`: a JSON-RPC object, or the JSON text of one frame as a client
 * would write it (text that is not JSON is answered with a parse error, as on a real wire).
 */
export type InjectMessage = JSONRPCMessage | { readonly [key: string]: unknown } | string;

/**
 * What `app.inject` sends: one message, or several in order. Inside the array, a nested array
 * is one JSON-RPC batch frame (MCP 2025-03-26 is the only revision that has batches).
 */
export type InjectInput = InjectMessage | readonly (InjectMessage | readonly InjectMessage[])[];

/** An answer of the server, typed loosely so that tests can assert on `result` directly. */
export interface InjectResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  /** The request's id; `null` for the error answering a message the server could not read. */
  id: RequestId | null;
  /** The result, when the request succeeded. */
  result?: any;
  /** The error, when it failed. */
  error?: JSONRPCErrorObject;
}

/**
 * What `app.inject` resolves with: the responses, one per request sent (in the order the
 * requests were sent; a frame the server could not read contributes the error it got), plus
 * what else the server sent on the connection meanwhile.
 */
export type InjectResult = InjectResponse[] & {
  /** Notifications the server sent (progress, log messages, list changes), in order. */
  readonly notifications: JSONRPCNotification[];
  /** Requests the server sent to the client (sampling, elicitation, roots), in order. */
  readonly requests: JSONRPCRequest[];
  /**
   * Everything the server sent on the connection, in order: responses (a batch answer's
   * entries one by one, the `initialize` option's response included), notifications and requests.
   */
  readonly messages: JSONRPCMessage[];
};

/** The `initialize` request's params; every field is optional and has a default. */
export interface InjectInitialize {
  /** Default: the latest session-era revision, `2025-11-25`. */
  protocolVersion?: string;
  /** Default `{}`. */
  capabilities?: ClientCapabilities;
  /** Default `{ name: 'gantry-inject', version: '0.0.0' }`. */
  clientInfo?: Implementation;
}

/** What the `stateless` option puts in each request's `_meta` (2026-07-28). */
export interface InjectStateless {
  /** Default: the latest stateless-era revision. */
  protocolVersion?: string;
  /** Default `{}`. */
  clientCapabilities?: ClientCapabilities;
  /** Not sent unless given. */
  clientInfo?: Implementation;
}

/** Options of `app.inject`. */
export interface InjectOptions {
  /**
   * Session era: open the connection with `initialize` (these params, or the defaults for
   * `true`) and `notifications/initialized` before the messages. An `initialize` the server
   * refuses rejects the call. Default: nothing is sent first.
   */
  initialize?: boolean | InjectInitialize;
  /**
   * Stateless era (2026-07-28): add the protocol version and client capabilities to the
   * `_meta` of every request given as an object that does not name a protocol version itself.
   * Default: requests are sent as given (a request that carries them is served statelessly anyway).
   */
  stateless?: boolean | InjectStateless;
  /**
   * Answers the requests the server sends to the client (`sampling/createMessage`,
   * `elicitation/create`, `roots/list`) with a result, or with an error by throwing. Without it
   * `ping` is answered with `{}` and anything else with −32601 (method not found).
   */
  onRequest?: (request: JSONRPCRequest) => Result | Promise<Result>;
  /** The caller, as an authenticating transport would set it (`ctx.auth`, guards). */
  auth?: AuthInfo;
  /** How long to wait for the responses before rejecting, naming the requests left. Default 10 000 ms. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const INITIALIZE_ID = 'gantry-inject:initialize';

/** The responses one frame is waiting for. */
interface Slot {
  /** The frame's requests still unanswered. */
  readonly pending: Pick<JSONRPCRequest, 'id' | 'method'>[];
  readonly answers: InjectResponse[];
  done?: () => void;
}

function awaits(slot: Slot, id: RequestId | null): boolean {
  return slot.pending.some((request) => request.id === id);
}

/**
 * Serves `input` on a fresh in-process connection of `host` and resolves once every request
 * in it was answered (or cancelled by a `notifications/cancelled` in it); the connection is
 * then closed, which aborts whatever still runs (e.g. a listen stream). `app.inject` calls it.
 */
export async function inject(
  host: ConnectionHost,
  input: InjectInput,
  options: InjectOptions = {},
): Promise<InjectResult> {
  if (options.initialize && options.stateless) {
    throw new TypeError('app.inject: `initialize` (session era) and `stateless` exclude each other');
  }
  const frames = (Array.isArray(input) ? input : [input]) as (InjectMessage | InjectMessage[])[];
  const run = new InjectRun(options);
  const connection = await host.connect(run.transport, options.auth ? { auth: options.auth } : undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(run.timeoutError(timeoutMs)), timeoutMs);
    });
    const served = (async () => {
      if (options.initialize) await run.initialize(options.initialize === true ? {} : options.initialize);
      const answers = frames.map((frame) => run.deliver(stamp(frame, options.stateless)));
      return (await Promise.all(answers)).flat();
    })();
    // After a timeout, what is still pending fails once the connection closes: nobody hears it.
    served.catch(() => undefined);
    const responses = await Promise.race([served, timeout]);
    return Object.assign(responses, {
      notifications: run.notifications,
      requests: run.requests,
      messages: run.messages,
    });
  } finally {
    clearTimeout(timer);
    await connection.close();
  }
}

/** Adds the stateless-era `_meta` to requests given as objects, for the `stateless` option. */
function stamp(
  frame: InjectMessage | readonly InjectMessage[],
  stateless: InjectOptions['stateless'],
): InjectMessage | readonly InjectMessage[] {
  if (!stateless) return frame;
  if (Array.isArray(frame)) return frame.map((entry) => stamp(entry, stateless) as InjectMessage);
  if (!isJSONRPCRequest(frame)) return frame;
  const meta = frame.params?._meta;
  if (meta && MetaKey.ProtocolVersion in meta) return frame;
  const given = stateless === true ? {} : stateless;
  return {
    ...frame,
    params: {
      ...frame.params,
      _meta: {
        ...meta,
        [MetaKey.ProtocolVersion]: given.protocolVersion ?? LATEST_STATELESS_PROTOCOL_VERSION,
        [MetaKey.ClientCapabilities]: given.clientCapabilities ?? {},
        ...(given.clientInfo ? { [MetaKey.ClientInfo]: given.clientInfo } : {}),
      },
    },
  };
}

/** The client side of one injected connection: a transport whose other end is this object. */
class InjectRun {
  readonly notifications: JSONRPCNotification[] = [];
  readonly requests: JSONRPCRequest[] = [];
  readonly messages: JSONRPCMessage[] = [];
  private sink?: TransportSink;
  private readonly waiting: Slot[] = [];
  /** The frame being delivered: what the server answers synchronously belongs to it. */
  private current?: Slot;
  private closed = false;

  readonly transport: Transport = {
    start: (sink) => {
      this.sink = sink;
    },
    // Copied through JSON, as a wire would, so that handlers and tests share no objects.
    send: (message: WireMessage) => this.receive(JSON.parse(JSON.stringify(message))),
    close: async () => {
      if (this.closed) return;
      this.closed = true;
      this.sink?.closed();
    },
  };

  constructor(private readonly options: InjectOptions) {}

  async initialize(params: InjectInitialize): Promise<void> {
    const [response] = await this.deliver({
      jsonrpc: JSONRPC_VERSION,
      id: INITIALIZE_ID,
      method: 'initialize',
      params: {
        protocolVersion: params.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        capabilities: params.capabilities ?? {},
        clientInfo: params.clientInfo ?? { name: 'gantry-inject', version: '0.0.0' },
      },
    });
    if (response?.error) throw new Error(`app.inject: initialize failed: ${response.error.message}`);
    await this.deliver({ jsonrpc: JSONRPC_VERSION, method: 'notifications/initialized' });
  }

  /** Hands one frame to the server; resolves with the responses it gets. */
  deliver(frame: InjectMessage | readonly InjectMessage[]): Promise<InjectResponse[]> {
    const sink = this.sink;
    if (!sink || this.closed) return Promise.reject(new Error('app.inject: the connection closed'));
    let value: unknown = frame;
    let unreadable: ParseError | undefined;
    if (typeof frame === 'string') {
      try {
        value = JSON.parse(frame);
      } catch (error) {
        unreadable = new ParseError(`Parse error: ${(error as Error).message}`);
      }
    }
    const requests = (Array.isArray(value) ? value : [value]).filter(isJSONRPCRequest);
    const slot: Slot = { pending: requests.map(({ id, method }) => ({ id, method })), answers: [] };
    this.current = slot;
    try {
      if (unreadable) sink.invalid(unreadable);
      else sink.message(value);
    } finally {
      this.current = undefined;
    }
    if (!Array.isArray(value)) this.cancelled(value);
    if (slot.pending.length === 0) return Promise.resolve(slot.answers);
    this.waiting.push(slot);
    return new Promise((resolve) => {
      slot.done = () => resolve(slot.answers);
    });
  }

  timeoutError(timeoutMs: number): Error {
    const left = this.waiting.flatMap((slot) =>
      slot.pending.map(({ id, method }) => `${method} (id ${JSON.stringify(id)})`),
    );
    return new Error(`app.inject: no response within ${timeoutMs} ms to ${left.join(', ') || 'a request'}`);
  }

  /** A `notifications/cancelled` sent by the test: its request gets no response (MCP 2025-11-25, Basic / Utilities §Cancellation). */
  private cancelled(value: unknown): void {
    if (!isJSONRPCNotification(value) || value.method !== 'notifications/cancelled') return;
    const message = value;
    const requestId = message.params?.requestId as RequestId | undefined;
    if (requestId === undefined) return;
    const slot = this.waiting.find((s) => awaits(s, requestId));
    if (slot) this.settle(slot, requestId);
  }

  /** Everything the server sends arrives here. */
  private receive(sent: unknown): void {
    const batch = Array.isArray(sent);
    const entries = (batch ? sent : [sent]) as Record<string, unknown>[];
    // A batch answer belongs to the frame waiting for any of its ids.
    const batchSlot = batch
      ? this.waiting.find((slot) => entries.some((entry) => awaits(slot, entry.id as RequestId)))
      : undefined;
    for (const entry of entries) {
      this.messages.push(entry as unknown as JSONRPCMessage);
      if (typeof entry.method === 'string') {
        if ('id' in entry) this.answer(entry as unknown as JSONRPCRequest);
        else this.notifications.push(entry as unknown as JSONRPCNotification);
        continue;
      }
      const id = entry.id as RequestId | null;
      const response = entry as unknown as InjectResponse;
      const current = this.current;
      if (current && (id === null || awaits(current, id))) {
        current.answers.push(response);
        forget(current, id);
        continue;
      }
      const slot = batchSlot ?? (id === null ? undefined : this.waiting.find((s) => awaits(s, id)));
      if (!slot) continue;
      slot.answers.push(response);
      if (id !== null) this.settle(slot, id);
    }
  }

  /** Marks `id` answered (or cancelled) in `slot`; resolves the slot when nothing is left. */
  private settle(slot: Slot, id: RequestId): void {
    forget(slot, id);
    if (slot.pending.length > 0) return;
    this.waiting.splice(this.waiting.indexOf(slot), 1);
    slot.done?.();
  }

  /** A request of the server to the client: answered by `onRequest`, asynchronously as a client would. */
  private answer(request: JSONRPCRequest): void {
    this.requests.push(request);
    const handler =
      this.options.onRequest ??
      ((r: JSONRPCRequest): Result => {
        if (r.method === 'ping') return {};
        throw new MethodNotFoundError(`Method not found: app.inject was given no onRequest for ${r.method}`);
      });
    Promise.resolve()
      .then(() => handler(request))
      .then(
        (result) => ({ jsonrpc: JSONRPC_VERSION, id: request.id, result }),
        (error) => ({ jsonrpc: JSONRPC_VERSION, id: request.id, error: toWireError(error).toJSON() }),
      )
      .then((response) => {
        if (!this.closed) this.sink?.message(response);
      });
  }
}

/** Removes the first request `id` from the requests `slot` still awaits. */
function forget(slot: Slot, id: RequestId | null): void {
  const index = slot.pending.findIndex((request) => request.id === id);
  if (index !== -1) slot.pending.splice(index, 1);
}
