// The fuzzer's oracle: from the bytes sent, what must come back (JSON-RPC 2.0 §4–§6 and
// MCP 2025-11-25 Basic §Messages: ids are strings or integers, never null; notifications are
// never answered; an invalid message is answered -32600, a parse error -32700, with id null
// unless the message has a usable id), and a check of every answer against it.

/** Error codes a fuzzed input may legitimately get. −32603 is not among them: it means the server failed. */
export const ALLOWED_CODES: ReadonlySet<number> = new Set([
  -32700, // parse error
  -32600, // invalid request
  -32601, // method not found
  -32602, // invalid params
  -32002, // resource not found (session era)
  -32020, // 2026-07-28: header mismatch (HTTP)
  -32021, // 2026-07-28: missing client capability
  -32022, // 2026-07-28: unsupported protocol version
]);

export type RequestId = string | number;

/** What must come back for one message (or one batch entry). */
export type Expectation =
  /** Exactly one response with this id (null: a parse or invalid-request error), a result only if `result`. */
  | { kind: 'answer'; id: RequestId | null; codes: ReadonlySet<number>; result: boolean }
  /** Nothing (a valid notification, or a response to nothing the server asked). */
  | { kind: 'silent' }
  /**
   * Either nothing or one −32600 error with this id (null: an invalid message without a usable
   * id; an id: a malformed response, which JSON-RPC calls an invalid Request but a server may drop).
   */
  | { kind: 'maybe'; id: RequestId | null }
  /** One array holding an answer per entry that expects one; nothing when none does. */
  | { kind: 'batch'; entries: Expectation[] }
  /** WebSocket: the server closes the socket with one of these codes. */
  | { kind: 'close'; codes: readonly number[] };

export interface OracleContext {
  transport: 'stdio' | 'http' | 'ws';
  /** Batches are accepted (a session that negotiated 2025-03-26). */
  batches: boolean;
  /** The connection is in a session (initialize done): unknown methods get −32601 exactly. */
  initialized: boolean;
  /** Largest frame; past it stdio answers an error, WebSocket closes 1009 (HTTP answers 413, checked by the HTTP lane). */
  maxFrameBytes: number;
  /**
   * 2026-07-28 over HTTP: the server sends no requests, so a response from the client is a
   * client error (400 −32600) rather than something to drop.
   */
  refusesResponses?: boolean;
}

/** Requests the fixture server knows in either era. */
const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
]);

const ONLY = (...codes: number[]): ReadonlySet<number> => new Set(codes);
// A byte order mark is kept, so the text does not parse: RFC 8259 §8.1 lets a parser refuse it
// (as Gantry's does, like JSON.parse) or ignore it; the oracle follows the stricter choice.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function isUsableId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What must come back for `bytes` sent as one frame. */
export function expectationFor(bytes: Buffer, context: OracleContext): Expectation {
  if (context.transport === 'stdio' && bytes.length === 0) return { kind: 'silent' }; // an empty line
  if (bytes.length > context.maxFrameBytes) {
    if (context.transport === 'ws') return { kind: 'close', codes: [1009] };
    return { kind: 'answer', id: null, codes: ONLY(-32700, -32600), result: false };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    if (context.transport === 'ws') return { kind: 'close', codes: [1007] };
    return { kind: 'answer', id: null, codes: ONLY(-32700), result: false };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'answer', id: null, codes: ONLY(-32700), result: false };
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || !context.batches)
      return { kind: 'answer', id: null, codes: ONLY(-32600), result: false };
    const entries = value.map((entry) => expectationForMessage(entry, context));
    return { kind: 'batch', entries };
  }
  return expectationForMessage(value, context);
}

function expectationForMessage(message: unknown, context: OracleContext): Expectation {
  if (!isPlainObject(message)) return { kind: 'answer', id: null, codes: ONLY(-32600), result: false };
  const hasId = 'id' in message;
  const id = isUsableId(message.id) ? message.id : null;
  if ('method' in message) {
    const valid =
      message.jsonrpc === '2.0' &&
      typeof message.method === 'string' &&
      (!('params' in message) || isPlainObject(message.params));
    if (!hasId) return valid ? { kind: 'silent' } : { kind: 'maybe', id: null };
    if (id === null) return { kind: 'answer', id: null, codes: ONLY(-32600), result: false };
    if (!valid) return { kind: 'answer', id, codes: ONLY(-32600, -32602), result: false };
    if (!KNOWN_METHODS.has(message.method as string)) {
      // Before initialize (a stateless-era connection) a request without `_meta` is refused
      // −32600, and one with a broken `_meta` −32602, before the method is looked up.
      // Over HTTP a method that cannot be mirrored into Mcp-Method gets −32020.
      const codes = context.initialized ? ONLY(-32601) : ONLY(-32601, -32600, -32602, -32022, -32020);
      return { kind: 'answer', id, codes, result: false };
    }
    return { kind: 'answer', id, codes: ALLOWED_CODES, result: true };
  }
  if ('result' in message || 'error' in message) {
    // A response to nothing the server asked: dropped when well formed.
    if (context.refusesResponses) return { kind: 'maybe', id };
    return responseShapeProblem(message) === undefined ? { kind: 'silent' } : { kind: 'maybe', id };
  }
  return { kind: 'answer', id, codes: ONLY(-32600), result: false };
}

/** Whether `message` is a well-formed JSON-RPC response; returns what is wrong, or undefined. */
export function responseShapeProblem(message: unknown): string | undefined {
  if (!isPlainObject(message)) return 'not an object';
  if (message.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (!('id' in message) || !(message.id === null || isUsableId(message.id))) return 'bad id';
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult === hasError) return 'not exactly one of result and error';
  // JSON-RPC 2.0 §5: id null only on an error answering a request whose id could not be read.
  if (hasResult)
    return message.id === null
      ? 'a result with id null'
      : isPlainObject(message.result)
        ? undefined
        : 'result is not an object';
  const error = message.error;
  if (!isPlainObject(error)) return 'error is not an object';
  if (!Number.isInteger(error.code)) return 'error.code is not an integer';
  if (typeof error.message !== 'string' || error.message.length === 0) return 'error.message is empty';
  return undefined;
}

/** Checks one response against an `answer` expectation; returns the violation, or undefined. */
export function answerProblem(
  expected: Extract<Expectation, { kind: 'answer' }>,
  message: unknown,
): string | undefined {
  const shape = responseShapeProblem(message);
  if (shape) return `malformed response (${shape})`;
  const response = message as {
    id: RequestId | null;
    result?: unknown;
    error?: { code: number; message: string };
  };
  if (response.id !== expected.id)
    return `answered id ${JSON.stringify(response.id)}, expected ${JSON.stringify(expected.id)}`;
  if (response.error) {
    if (!expected.codes.has(response.error.code))
      return `error ${response.error.code} (${response.error.message.slice(0, 160)}), allowed ${[...expected.codes].join(', ')}`;
    return undefined;
  }
  return expected.result ? undefined : 'a result where an error was due';
}

/** The ids (null for id-less errors) an expectation waits for, flattening a batch. */
export function awaitedIds(expectation: Expectation): Array<RequestId | null> {
  if (expectation.kind === 'answer') return [expectation.id];
  if (expectation.kind === 'batch') return expectation.entries.flatMap(awaitedIds);
  return [];
}

/**
 * Checks a batch's answers against its entries: one answer per `answer` entry, at most one per
 * `maybe` entry, nothing else. Returns the violations (none when the batch was answered right).
 */
export function batchProblems(entries: readonly Expectation[], responses: readonly unknown[]): string[] {
  const problems: string[] = [];
  const answers = entries.filter((e): e is Extract<Expectation, { kind: 'answer' }> => e.kind === 'answer');
  const maybes = entries.filter((e): e is Extract<Expectation, { kind: 'maybe' }> => e.kind === 'maybe');
  for (const response of responses) {
    const shape = responseShapeProblem(response);
    if (shape) {
      problems.push(`malformed batch entry (${shape})`);
      continue;
    }
    const id = (response as { id: RequestId | null }).id;
    const index = answers.findIndex((a) => a.id === id);
    if (index >= 0) {
      const problem = answerProblem(answers[index], response);
      if (problem) problems.push(`batch entry: ${problem}`);
      answers.splice(index, 1);
      continue;
    }
    const maybe = maybes.findIndex((m) => m.id === id);
    if (maybe >= 0) maybes.splice(maybe, 1);
    else problems.push(`batch: an answer nobody asked for ${JSON.stringify(response).slice(0, 160)}`);
  }
  if (answers.length > 0)
    problems.push(`batch: no answer for ${answers.map((a) => JSON.stringify(a.id)).join(', ')}`);
  return problems;
}
