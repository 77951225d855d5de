import 'reflect-metadata';
import {
  collectHeaderParams,
  GantryFactory,
  Header,
  Injectable,
  type Logger,
  Module,
  Prompt,
  Resource,
  Tool,
} from '@gantry/core';
import { decodeHeaderValue, ErrorCode, encodeHeaderValue, isStatelessRequest } from '@gantry/protocol';
import { canonicalJson, principalDigest, RequestStateCodec } from '../src/stateless/request-state';

const KEY = Buffer.alloc(32, 7);

describe('RequestStateCodec', () => {
  const round = {
    answers: [{ action: 'accept', content: { name: 'Ada' } }],
    expected: ['elicitation-2'],
    rounds: 2,
  };
  const digest = RequestStateCodec.digest('tools/call', { name: 'book', arguments: { city: 'Oslo' } });

  test('opens what it issued, for the same method, params and caller', () => {
    const codec = new RequestStateCodec({ key: KEY, ttlMs: 1000 });
    const state = codec.issue('tools/call', digest, null, round);
    expect(codec.open(state, 'tools/call', digest, null)).toEqual(round);
  });

  test('refuses a state with any byte changed, naming the integrity check', () => {
    const codec = new RequestStateCodec({ key: KEY, ttlMs: 1000 });
    const state = codec.issue('tools/call', digest, null, round);
    const [body, mac] = state.split('.');
    const forgedBody = Buffer.from(
      Buffer.from(body, 'base64url').toString('utf8').replace('Ada', 'Eve'),
      'utf8',
    ).toString('base64url');
    for (const bad of [`${forgedBody}.${mac}`, `${body}.${mac.slice(0, -2)}xx`, body, '', 'a.b']) {
      expect(() => codec.open(bad, 'tools/call', digest, null)).toThrow(
        expect.objectContaining({
          code: ErrorCode.InvalidParams,
          message: expect.stringContaining('integrity'),
        }),
      );
    }
  });

  test('refuses a state signed with another key', () => {
    const other = new RequestStateCodec({ key: Buffer.alloc(32, 8), ttlMs: 1000 });
    const codec = new RequestStateCodec({ key: KEY, ttlMs: 1000 });
    const state = other.issue('tools/call', digest, null, round);
    expect(() => codec.open(state, 'tools/call', digest, null)).toThrow(/integrity check/);
  });

  test('refuses an expired state', () => {
    let now = 1_000;
    const codec = new RequestStateCodec({ key: KEY, ttlMs: 50, now: () => now });
    const state = codec.issue('tools/call', digest, null, round);
    now += 51;
    expect(() => codec.open(state, 'tools/call', digest, null)).toThrow(/requestState expired/);
  });

  test('refuses a state replayed for another method, other params or another caller', () => {
    const codec = new RequestStateCodec({ key: KEY, ttlMs: 1000 });
    const ada = principalDigest({ token: 't1', subject: 'ada', scopes: [] });
    const eve = principalDigest({ token: 't2', subject: 'eve', scopes: [] });
    const state = codec.issue('tools/call', digest, ada, round);
    const otherArgs = RequestStateCodec.digest('tools/call', { name: 'book', arguments: { city: 'Lima' } });
    expect(() => codec.open(state, 'prompts/get', digest, ada)).toThrow(/belongs to another request/);
    expect(() => codec.open(state, 'tools/call', otherArgs, ada)).toThrow(/belongs to another request/);
    expect(() => codec.open(state, 'tools/call', digest, eve)).toThrow(/another caller/);
    expect(() => codec.open(state, 'tools/call', digest, null)).toThrow(/another caller/);
    expect(codec.open(state, 'tools/call', digest, ada).rounds).toBe(2);
  });

  test('refuses a non-string state', () => {
    const codec = new RequestStateCodec({ key: KEY, ttlMs: 1000 });
    expect(() => codec.open(42, 'tools/call', digest, null)).toThrow(/must be the string/);
  });

  test('the params digest ignores key order but not values', () => {
    expect(RequestStateCodec.digest('m', { a: 1, b: { c: 2, d: 3 } })).toBe(
      RequestStateCodec.digest('m', { b: { d: 3, c: 2 }, a: 1 }),
    );
    expect(RequestStateCodec.digest('m', { a: 1 })).not.toBe(RequestStateCodec.digest('m', { a: 2 }));
    expect(canonicalJson({ b: [1, { z: 1, y: undefined, x: null }], a: 'x' })).toBe(
      '{"a":"x","b":[1,{"x":null,"z":1}]}',
    );
  });
});

describe('header values', () => {
  test('plain ASCII stays as is; anything else, and sentinel look-alikes, are base64-wrapped', () => {
    expect(encodeHeaderValue('eu-west-1')).toBe('eu-west-1');
    expect(encodeHeaderValue(42)).toBe('42');
    expect(encodeHeaderValue(true)).toBe('true');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded')).toBe(`=?base64?${Buffer.from(' padded').toString('base64')}?=`);
    expect(encodeHeaderValue('=?base64?abc?=')).toBe(
      `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`,
    );
    for (const value of ['eu-west-1', 'Hello, 世界', ' padded', '=?base64?abc?=', 'line\nbreak']) {
      expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
    }
  });

  test('a wrapped value that is not canonical padded Base64 decodes to nothing (SEP-2243 test cases)', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello');
    for (const bad of [
      '=?base64?SGVsbG8?=',
      '=?base64?SGVs!!!bG8=?=',
      '=?base64?SGVsbG9=?=',
      '=?base64?abc?=',
    ]) {
      expect(decodeHeaderValue(bad)).toBeUndefined();
    }
    // Without both ends of the wrapper a value is literal.
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });
});

describe('isStatelessRequest', () => {
  test('a protocol version in _meta makes a request stateless, except initialize', () => {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    expect(isStatelessRequest({ method: 'tools/list', params: { _meta } })).toBe(true);
    expect(isStatelessRequest({ method: 'initialize', params: { _meta } })).toBe(false);
    expect(isStatelessRequest({ method: 'tools/list', params: { _meta: { progressToken: 1 } } })).toBe(false);
    expect(isStatelessRequest({ method: 'tools/list' })).toBe(false);
  });
});

describe('x-mcp-header annotations', () => {
  test('collects annotated properties reached through properties', () => {
    expect(
      collectHeaderParams({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          target: { type: 'object', properties: { days: { type: 'integer', 'x-mcp-header': 'Days' } } },
          plain: { type: 'string' },
        },
      }),
    ).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Days', path: ['target', 'days'], type: 'integer' },
    ]);
  });

  test.each([
    [
      { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
      /only string, integer and boolean/,
    ],
    [
      { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'bad name' } } },
      /not an HTTP token/,
    ],
    [{ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } }, /non-empty/],
    [
      {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Id' },
          b: { type: 'string', 'x-mcp-header': 'ID' },
        },
      },
      /used twice/,
    ],
    [
      {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'L' } } },
      },
      /inside 'items'/,
    ],
    [
      { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] },
      /inside 'anyOf'/,
    ],
    [{ type: 'object', 'x-mcp-header': 'Root' }, /root/],
  ])('refuses %j', (schema, message) => {
    expect(() => collectHeaderParams(schema)).toThrow(message);
  });
});

describe('decorator and option checks', () => {
  test('@Header needs an HTTP token', () => {
    expect(() => Header('two words')).toThrow(/@Header\(\): "two words" is not an HTTP token/);
  });

  test('cache hints are checked where they are written', () => {
    expect(() => {
      class Bad {
        @Tool({ cache: { ttlMs: -1 } })
        t() {}
      }
      return Bad;
    }).toThrow(/@Tool\(\) on Bad\.t: 'cache' ttlMs must be an integer ≥ 0/);
    expect(() => {
      class Bad {
        @Prompt({ cache: { scope: 'shared' as 'public' } })
        p() {}
      }
      return Bad;
    }).toThrow(/'cache' scope must be 'public' or 'private'/);
    expect(() => {
      class Bad {
        @Resource({ uri: 'x://y', cache: { ttl: 5 } as object })
        r() {}
      }
      return Bad;
    }).toThrow(/'cache' has an unknown key 'ttl'/);
  });

  @Injectable()
  class Nothing {
    @Tool() noop() {
      return 'ok';
    }
  }
  @Module({ providers: [Nothing] })
  class NothingModule {}

  test('a requestState key shorter than 32 bytes is refused', async () => {
    await expect(
      GantryFactory.create(NothingModule, {
        name: 'x',
        version: '1',
        logger: false,
        stateless: { requestStateKey: 'short' },
      }),
    ).rejects.toThrow(/requestStateKey must be at least 32 bytes/);
  });

  test('without a key, network listeners warn once that multi-node needs a shared one; with a key, never', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      error: () => undefined,
      warn: (message: string) => warnings.push(message),
      info: () => undefined,
      debug: () => undefined,
    };
    const previous = process.env.GANTRY_STATE_KEY;
    delete process.env.GANTRY_STATE_KEY;
    try {
      const app = await GantryFactory.create(NothingModule, { name: 'x', version: '1', logger });
      // Bootstrap alone (a stdio server) says nothing: one process per client needs no shared key.
      expect(warnings).toEqual([]);
      app.server.stateless.warnIfKeyIsEphemeral();
      app.server.stateless.warnIfKeyIsEphemeral();
      expect(warnings).toEqual([expect.stringContaining('GANTRY_STATE_KEY')]);
      await app.close();
      process.env.GANTRY_STATE_KEY = 'x'.repeat(32);
      const keyed = await GantryFactory.create(NothingModule, { name: 'x', version: '1', logger });
      keyed.server.stateless.warnIfKeyIsEphemeral();
      expect(warnings).toHaveLength(1);
      await keyed.close();
    } finally {
      if (previous === undefined) delete process.env.GANTRY_STATE_KEY;
      else process.env.GANTRY_STATE_KEY = previous;
    }
  });

  test('an app cache option is checked', async () => {
    await expect(
      GantryFactory.create(NothingModule, {
        name: 'x',
        version: '1',
        logger: false,
        cache: { list: { ttlMs: 1.5 } },
      }),
    ).rejects.toThrow(/The cache option 'list' ttlMs must be an integer/);
  });
});
