// The fuzzer's input generator: valid messages of both eras, and bad inputs made from them
// (structural mutations with values of every wrong type, byte-level damage, truncation,
// malformed JSON, unknown methods, deep and huge values within a bound, invalid UTF-8,
// batches). It only produces bytes; `oracle.ts` decides from those bytes what must come back.
import type { Prng } from './prng';

export type Era = 'session' | 'stateless';

/** One input: the bytes of one frame (a stdio line without `\n`, a WebSocket text message, an HTTP body). */
export interface FuzzCase {
  kind: string;
  bytes: Buffer;
  /** The method and name of the message it was made from (HTTP mirrors them into headers). */
  origin?: { method: string; name?: string };
  /** A WebSocket binary frame (MCP over WebSocket accepts text frames only). */
  binary?: boolean;
}

export const STATELESS_VERSION = '2026-07-28';

/** The `_meta` every 2026-07-28 request carries. */
export function statelessMeta(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'reliability-fuzzer', version: '1.0.0' },
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const TOOL_CALLS: ReadonlyArray<() => JsonObject> = [
  () => ({ name: 'echo', arguments: { text: 'hello' } }),
  () => ({ name: 'add', arguments: { a: 2, b: 3 } }),
  () => ({ name: 'count', arguments: { items: ['a', 'b'], label: 'x' } }),
  () => ({ name: 'fail', arguments: {} }),
  () => ({ name: 'no_such_tool', arguments: {} }),
];

/** Requests that every server answers at once (none opens a stream or waits for the client). */
function requestTemplate(random: Prng): { method: string; params?: JsonObject } {
  switch (random.int(0, 10)) {
    case 0:
      return { method: 'ping' };
    case 1:
      return { method: 'tools/list', params: random.chance(0.3) ? { cursor: random.string(4) } : {} };
    case 2:
    case 3:
      return { method: 'tools/call', params: random.pick(TOOL_CALLS)() };
    case 4:
      return { method: 'prompts/list', params: {} };
    case 5:
      return { method: 'prompts/get', params: { name: 'greet', arguments: { name: 'Ada' } } };
    case 6:
      return { method: 'resources/list', params: {} };
    case 7:
      return { method: 'resources/templates/list', params: {} };
    case 8:
      return {
        method: 'resources/read',
        params: { uri: random.pick(['rel://static', 'rel://item/7', 'rel://missing']) },
      };
    case 9:
      return {
        method: 'completion/complete',
        params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } },
      };
    default:
      return { method: 'logging/setLevel', params: { level: random.pick(['debug', 'info', 'error']) } };
  }
}

function notificationTemplate(random: Prng): { method: string; params?: JsonObject } {
  switch (random.int(0, 4)) {
    case 0:
      return { method: 'notifications/cancelled', params: { requestId: random.int(1, 1e6), reason: 'fuzz' } };
    case 1:
      return { method: 'notifications/progress', params: { progressToken: 'nobody', progress: 1 } };
    case 2:
      return { method: 'notifications/roots/list_changed' };
    case 3:
      return { method: 'notifications/initialized' };
    default:
      return { method: `notifications/${random.string(6, 'abcdefgh')}` };
  }
}

function withMeta(era: Era, template: { method: string; params?: JsonObject }): JsonObject {
  const message: JsonObject = { jsonrpc: '2.0', method: template.method };
  if (era === 'stateless' && !template.method.startsWith('notifications/')) {
    message.params = { ...(template.params ?? {}), _meta: statelessMeta() as JsonObject };
  } else if (template.params) message.params = template.params;
  return message;
}

/** A random JSON value of any type, small, with the awkward ones over-represented. */
function randomValue(random: Prng, depth = 0): Json {
  switch (random.int(0, 15)) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.int(-5, 5);
    case 3:
      return random.pick([1.5, -0, 1e308, -1e308, 2 ** 53 + 2, 0.1, -2147483649]);
    case 4:
      return '';
    case 5:
      return random.string(random.int(1, 12));
    case 6:
      return random.pick([
        '\u0000',
        '\ud800',
        '\udfff',
        '😀',
        '\u2028',
        'é',
        '\uffff',
        '%00',
        '../../etc/passwd',
      ]);
    case 7:
      return [];
    case 8:
      return {};
    case 9:
      return depth > 2 ? 1 : [randomValue(random, depth + 1), randomValue(random, depth + 1)];
    case 10:
      return depth > 2 ? 'x' : { [random.string(3)]: randomValue(random, depth + 1) };
    case 11:
      return JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    case 12:
      return random.pick(['2.0', '1.0', 'ping', 'tools/call', 'server/discover', 'rel://static', 'echo']);
    case 13:
      return random.pick(['toString', 'hasOwnProperty', '__proto__', 'constructor', 'valueOf']);
    case 14:
      return random.int(-(2 ** 31), 2 ** 31);
    default:
      return random.string(random.int(50, 400));
  }
}

/** Every [parent, key] position in a JSON tree, the root excluded. */
function positions(value: Json, out: Array<[JsonObject | Json[], string | number]> = []) {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push([value, index]);
      positions(item, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      out.push([value, key]);
      positions(value[key], out);
    }
  }
  return out;
}

/** One to three structural mutations: a field replaced by another type, deleted, or added. */
function mutate(random: Prng, message: JsonObject): void {
  const rounds = random.int(1, 3);
  for (let round = 0; round < rounds; round++) {
    const all = positions(message);
    if (all.length === 0) return;
    const [parent, key] = random.pick(all);
    const action = random.int(0, 5);
    if (action <= 2) (parent as Record<string | number, Json>)[key] = randomValue(random);
    else if (action === 3 && !Array.isArray(parent)) delete parent[key as string];
    else if (action === 4 && !Array.isArray(parent))
      parent[random.pick(['extra', 'id', 'method', 'params', 'result', 'error', 'jsonrpc', '_meta'])] =
        randomValue(random);
    else if (Array.isArray(parent)) parent.push(randomValue(random));
    else parent[random.string(4)] = randomValue(random);
  }
}

/** Damages serialized bytes: flips, deletes, inserts (possibly invalid UTF-8) or duplicates a range. */
function damageBytes(random: Prng, bytes: Buffer): Buffer {
  const at = random.int(0, Math.max(0, bytes.length - 1));
  switch (random.int(0, 3)) {
    case 0: {
      const copy = Buffer.from(bytes);
      copy[at] = random.int(0x20, 0x7e);
      return copy;
    }
    case 1:
      return Buffer.concat([
        bytes.subarray(0, at),
        bytes.subarray(Math.min(bytes.length, at + random.int(1, 8))),
      ]);
    case 2:
      return Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from(random.string(random.int(1, 4), '{}[]",:\\0ae')),
        bytes.subarray(at),
      ]);
    default:
      return Buffer.concat([
        bytes.subarray(0, at),
        bytes.subarray(at, at + random.int(1, 20)),
        bytes.subarray(at),
      ]);
  }
}

const MALFORMED = [
  '{',
  '}',
  '[',
  '{"jsonrpc":"2.0"',
  "{'jsonrpc':'2.0','id':1,'method':'ping'}",
  'NaN',
  'undefined',
  '{"jsonrpc":"2.0","id":1,"method":"ping",}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}}',
  '"unterminated',
  '\u0000',
  '   ',
  '{"a":1}{"b":2}',
  '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":01,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"\\u12"}',
  'true false',
];

const INVALID_UTF8: ReadonlyArray<readonly number[]> = [
  [0xff],
  [0xc3, 0x28],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
];

/**
 * `FUZZ_EXCLUDE=batch,deep`: leaves those input kinds out. For diagnosis only (to see what else
 * a run finds while a known defect is open); CI never sets it.
 */
const EXCLUDED = new Set((process.env.FUZZ_EXCLUDE ?? '').split(',').filter(Boolean));

function withoutExcluded<K extends string>(weights: Record<K, number>): Record<K, number> {
  const out = { ...weights };
  for (const key of Object.keys(out) as K[]) if (EXCLUDED.has(key)) out[key] = 0;
  return out;
}

export interface GeneratorOptions {
  era: Era;
  /** Largest frame the transport accepts; one case in ~5000 goes past it (WebSocket and HTTP refuse it). */
  maxFrameBytes: number;
  /** Over-limit cases to make at most in this run (each is several MiB). */
  maxOversized: number;
}

/** Makes fuzz cases for one lane; `next(id)` gives the case whose request id (if any) is `id`. */
export class FuzzCaseGenerator {
  private oversized = 0;

  constructor(
    private readonly random: Prng,
    private readonly options: GeneratorOptions,
  ) {}

  /** A valid request of this lane's era, with `id`. */
  validRequest(id: string | number): { message: JsonObject; origin: { method: string; name?: string } } {
    const template = requestTemplate(this.random);
    const message = withMeta(this.options.era, template);
    message.id = id;
    const name = template.params?.name ?? template.params?.uri;
    return {
      message,
      origin: { method: template.method, name: typeof name === 'string' ? name : undefined },
    };
  }

  next(id: string | number): FuzzCase {
    const random = this.random;
    const kind = random.weighted(
      withoutExcluded({
        valid: 10,
        mutated: 34,
        notification: 6,
        response: 3,
        damaged: 12,
        truncated: 5,
        malformed: 6,
        unknownMethod: 5,
        nonObject: 3,
        deep: 3,
        huge: 1,
        invalidUtf8: 4,
        batch: 8,
      }),
    );
    const { message, origin } = this.validRequest(id);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value));
    switch (kind) {
      case 'valid':
        return { kind, bytes: encode(message), origin };
      case 'mutated':
        mutate(random, message);
        return { kind, bytes: encode(message), origin };
      case 'notification': {
        const notification = withMeta(this.options.era, notificationTemplate(random));
        if (random.chance(0.4)) mutate(random, notification);
        return { kind, bytes: encode(notification) };
      }
      case 'response':
        return {
          kind,
          bytes: encode({
            jsonrpc: '2.0',
            id: random.int(1, 1e6),
            result: random.chance(0.5) ? {} : randomValue(random),
          }),
        };
      case 'damaged':
        return { kind, bytes: damageBytes(random, encode(message)), origin };
      case 'truncated': {
        const bytes = encode(message);
        return { kind, bytes: bytes.subarray(0, random.int(0, bytes.length - 1)), origin };
      }
      case 'malformed':
        return {
          kind,
          bytes: Buffer.from(random.chance(0.8) ? random.pick(MALFORMED) : random.string(random.int(1, 40))),
        };
      case 'unknownMethod':
        message.method = random.pick([
          `x/${random.string(6, 'abcdef')}`,
          'tools/cal',
          'Ping',
          'rpc.discover',
          '',
          'notifications/cancelled',
        ]);
        return { kind, bytes: encode(message), origin: { method: String(message.method) } };
      case 'nonObject':
        return { kind, bytes: encode(random.pick([42, 'ping', null, true, -1.5, [[]]])) };
      case 'deep':
        return { kind, bytes: this.deep(message), origin };
      case 'huge':
        return { kind, bytes: this.huge(message), origin };
      case 'invalidUtf8': {
        // Inside a string value of an otherwise valid request, so that only the encoding is wrong.
        message.params = { ...((message.params as JsonObject | undefined) ?? {}), note: 'ab__BAD__cd' };
        const [before, after] = JSON.stringify(message).split('__BAD__');
        return {
          kind,
          bytes: Buffer.concat([
            Buffer.from(before),
            Buffer.from(random.pick(INVALID_UTF8)),
            Buffer.from(after),
          ]),
          origin,
        };
      }
      default:
        return { kind, bytes: this.batch(id) };
    }
  }

  /** 64 to 50 000 levels of arrays or objects in a place a handler or validator reads. */
  private deep(message: JsonObject): Buffer {
    const depth = this.random.pick([64, 1000, 10_000, 50_000]);
    const arrays = this.random.chance(0.7);
    const nested = arrays
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const marker = '"__DEEP__"';
    const params = (message.params ?? {}) as JsonObject;
    const where = this.random.int(0, 2);
    if (where === 0 && params.arguments && typeof params.arguments === 'object') {
      (params.arguments as JsonObject)[this.random.pick(['text', 'items', 'a', 'name', 'deep'])] = '__DEEP__';
    } else if (where === 1) {
      params.level = '__DEEP__';
    } else {
      params._meta = { ...((params._meta as JsonObject | undefined) ?? {}), progressToken: '__DEEP__' };
    }
    message.params = params;
    return Buffer.from(JSON.stringify(message).replace(marker, nested));
  }

  /** A large string argument, usually under the frame limit; rarely (and a bounded number of times) over it. */
  private huge(message: JsonObject): Buffer {
    const over = this.oversized < this.options.maxOversized && this.random.chance(0.05);
    if (over) this.oversized++;
    const size = over ? this.options.maxFrameBytes + 1024 : this.random.int(64 * 1024, 1024 * 1024);
    const params = (message.params ?? {}) as JsonObject;
    params.arguments = { text: 'y'.repeat(size) };
    message.params = params;
    return Buffer.from(JSON.stringify(message));
  }

  /** 0 to 5 entries: requests (valid or mutated), notifications, responses and non-objects. */
  private batch(id: string | number): Buffer {
    const random = this.random;
    const entries: unknown[] = [];
    const count = random.chance(0.1) ? 0 : random.int(1, 5);
    for (let i = 0; i < count; i++) {
      const pick = random.int(0, 5);
      if (pick <= 2) {
        const { message } = this.validRequest(`${id}.${i}`);
        if (pick === 2) mutate(random, message);
        if (message.method === 'initialize') message.method = 'ping';
        entries.push(message);
      } else if (pick === 3) entries.push(withMeta(this.options.era, notificationTemplate(random)));
      else if (pick === 4) entries.push({ jsonrpc: '2.0', id: random.int(1, 1e6), result: {} });
      else entries.push(randomValue(random));
    }
    return Buffer.from(JSON.stringify(entries));
  }
}
