// The stateless era (2026-07-28) on the wire: literal JSON-RPC lines through the real stdio
// transport. Every request describes itself in its _meta; the server answers with resultType,
// caching hints and serverInfo, asks for input with input_required results (never with a
// JSON-RPC request of its own), and delivers change notifications only on subscriptions/listen
// streams, tagged with the subscription id.
import 'reflect-metadata';
import {
  type GantryApplication,
  GantryFactory,
  type GantryServerOptions,
  Injectable,
  Module,
  Prompt,
  Resource,
  Tool,
} from '@gantry/core';
import type { AuthInfo } from '@gantry/protocol';
import { createDualEraApp } from './fixtures/dual-era-app';
import { serverInfoMeta, statelessLines } from './support/stateless-lines';
import { handshake, openWire, type Wire } from './support/wire';

// ---------------------------------------------------------------------------------------------
// Wire vocabulary
// ---------------------------------------------------------------------------------------------

const V = '2026-07-28';
const K = {
  version: 'io.modelcontextprotocol/protocolVersion',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

const ALL_CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} };
const SERVER_INFO = serverInfoMeta('dual-era');
const { complete, inputRequired } = statelessLines(SERVER_INFO);

/** A request `_meta` of the stateless era: version, capabilities and client info, plus `extra`. */
function meta(extra: Record<string, unknown> = {}, capabilities: object = ALL_CAPS): Record<string, unknown> {
  return {
    [K.version]: V,
    [K.capabilities]: capabilities,
    [K.clientInfo]: { name: 'wire-test', version: '1.0.0' },
    ...extra,
  };
}

function request(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  requestMeta: Record<string, unknown> = meta(),
) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: requestMeta } };
}

/** Sends one stateless request and returns the next line. */
async function ask(
  wire: Wire,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  requestMeta: Record<string, unknown> = meta(),
): Promise<any> {
  wire.send(request(id, method, params, requestMeta));
  return wire.next();
}

/** The next `n` lines. */
async function nextLines(wire: Wire, n: number): Promise<any[]> {
  const lines: any[] = [];
  for (let i = 0; i < n; i++) lines.push(await wire.next());
  return lines;
}

function failure(id: number | string, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

function text(value: string) {
  return { content: [{ type: 'text', text: value }] };
}

function tagged(method: string, subscriptionId: number | string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', method, params: { ...params, _meta: { [K.subscriptionId]: subscriptionId } } };
}

/** A JSON-RPC request (as opposed to a response or a notification). */
const isRequest = (message: any) => 'method' in message && 'id' in message;

/** A form elicitation as it appears in `inputRequests`. */
function elicitation(message: string, properties: Record<string, unknown>, required: string[]) {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
  };
}

const WHO_TRAVELS = (city: string) =>
  elicitation(`Who travels to ${city}?`, { name: { type: 'string' } }, ['name']);
const BOOK = (city: string, name: string) =>
  elicitation(`Book ${city} for ${name}?`, { confirm: { type: 'boolean' } }, ['confirm']);
const SLOGAN = (city: string) => ({
  method: 'sampling/createMessage',
  params: {
    messages: [{ role: 'user', content: { type: 'text', text: `A slogan for ${city}` } }],
    maxTokens: 40,
  },
});

const ACCEPT_ADA = { action: 'accept', content: { name: 'Ada' } };
const CONFIRM = { action: 'accept', content: { confirm: true } };
const SAMPLED = {
  role: 'assistant',
  model: 'test-model',
  content: { type: 'text', text: 'Fjords and waffles' },
};

function noArgsTool(name: string, description: string) {
  return { name, inputSchema: { type: 'object', additionalProperties: false }, description };
}

const PLAN_TRIP_TOOL = {
  name: 'plan_trip',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  description: 'Plans a trip after asking who travels and whether to book',
};
const ECHO_TOOL = {
  name: 'echo',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  description: 'Echoes text',
};
const ADMIN_TOOL = noArgsTool('admin_stats', 'Only for admins');
const JOURNAL_TOOL = noArgsTool('journal_events', 'What the journal recorded');
const EXTRA_TOOL = noArgsTool('extra', 'Added at runtime');
/** tools/list of the dual-era app, in registration order, up to (not including) admin_stats. */
const TOOLS_HEAD = [
  PLAN_TRIP_TOOL,
  ECHO_TOOL,
  noArgsTool('root_uris', 'The client roots, by URI'),
  noArgsTool('log_levels', 'Logs at every level it is given'),
  noArgsTool('wait_for_cancel', 'Waits until cancelled'),
  noArgsTool('trace', 'The trace context the caller sent'),
  noArgsTool('polite_name', 'Falls back when elicitation is not available'),
  noArgsTool('toggle_extra', 'Adds (or removes) the runtime tool "extra"'),
];
/** What a caller without the admin scope sees: admin_stats is guarded away. */
const TOOLS = [...TOOLS_HEAD, JOURNAL_TOOL];

const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

// ---------------------------------------------------------------------------------------------
// Per-test app and wires; after every test no JSON-RPC request came from the server.
// ---------------------------------------------------------------------------------------------

let app: GantryApplication | undefined;
let wires: Wire[] = [];

/** A fresh dual-era app on one stdio wire (options are merged into the fixture's). */
async function start(
  options: Partial<GantryServerOptions> = {},
  stdioOptions: Parameters<typeof openWire>[1] = {},
): Promise<Wire> {
  app = await createDualEraApp(options);
  const wire = await openWire(app, stdioOptions);
  wires.push(wire);
  return wire;
}

/** Another stdio connection to the same app, authenticated as `auth`. */
async function startAuthenticated(auth: AuthInfo): Promise<Wire> {
  if (!app) throw new Error('start() first');
  const wire = await openWire(app, { auth });
  wires.push(wire);
  return wire;
}

afterEach(async () => {
  await app?.close();
  app = undefined;
  // 2026-07-28 stdio: the server MUST NOT write JSON-RPC requests. Asserted over every line.
  for (const wire of wires) expect(wire.seen.filter(isRequest)).toEqual([]);
  wires = [];
});

// ---------------------------------------------------------------------------------------------
// server/discover
// ---------------------------------------------------------------------------------------------

describe('server/discover', () => {
  it('answers with the stateless versions only, capabilities, instructions, caching hints and serverInfo', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'server/discover')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: CAPABILITIES,
        instructions: 'Plan trips.',
        ttlMs: 300_000,
        cacheScope: 'public',
        _meta: SERVER_INFO,
      },
    });
  });

  it('leaves serverInfo out of every result with stateless.serverInfoInResults: false', async () => {
    const wire = await start({ stateless: { requestStateKey: 'k'.repeat(32), serverInfoInResults: false } });
    expect(await ask(wire, 1, 'server/discover')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: CAPABILITIES,
        instructions: 'Plan trips.',
        ttlMs: 300_000,
        cacheScope: 'public',
      },
    });
    expect(await ask(wire, 2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { ...text('hi'), resultType: 'complete' },
    });
  });

  it('takes its ttlMs from the cache.discover option', async () => {
    const wire = await start({ cache: { discover: { ttlMs: 5 } } });
    expect(await ask(wire, 1, 'server/discover')).toEqual(
      complete(1, {
        supportedVersions: ['2026-07-28'],
        capabilities: CAPABILITIES,
        instructions: 'Plan trips.',
        ttlMs: 5,
        cacheScope: 'public',
      }),
    );
  });

  it('is answered before any initialize, and again after one (a process is not a session)', async () => {
    const wire = await start();
    const before = await ask(wire, 1, 'server/discover');
    await handshake(wire);
    const after = await ask(wire, 2, 'server/discover');
    expect(after.result).toEqual(before.result);
    expect(after.id).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
// _meta checks and methods
// ---------------------------------------------------------------------------------------------

describe('per-request _meta', () => {
  it('refuses server/discover without _meta protocolVersion with −32602', async () => {
    const wire = await start();
    wire.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: {} } });
    const message =
      'Invalid params: server/discover is a 2026-07-28 method; its _meta must carry "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities"';
    expect(await wire.next()).toEqual(failure(1, -32602, message));
    wire.send({ jsonrpc: '2.0', id: 2, method: 'server/discover' });
    expect(await wire.next()).toEqual(failure(2, -32602, message));
  });

  it('refuses a protocolVersion that is not a string with −32602', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'server/discover', {}, meta({ [K.version]: 20260728 }))).toEqual(
      failure(
        1,
        -32602,
        'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] must be a protocol version string',
      ),
    );
  });

  it.each(['1900-01-01', '2025-11-25', '2099-12-31'])(
    'refuses the unsupported version %s with −32022 naming the supported ones',
    async (version) => {
      const wire = await start();
      expect(await ask(wire, 1, 'tools/list', {}, meta({ [K.version]: version }))).toEqual(
        failure(
          1,
          -32022,
          `Unsupported protocol version: ${version}; supported: 2026-07-28 (earlier revisions: send initialize)`,
          {
            supported: ['2026-07-28'],
            requested: version,
          },
        ),
      );
    },
  );

  it('names the same versions in the −32022 message, its data.supported and server/discover', async () => {
    // MCP 2026-07-28, Basic › Versioning: the error lists "the versions it does support"; a
    // client retries with one of them, so only the stateless ones qualify, as in the
    // DiscoverResult of server/discover (the session era is reached through initialize).
    const wire = await start();
    const refused = await ask(wire, 1, 'tools/list', {}, meta({ [K.version]: '1900-01-01' }));
    const discovered = await ask(wire, 2, 'server/discover');

    const { message, data } = refused.error as { message: string; data: { supported: string[] } };
    const named = /; supported: ([^(]+?) \(/.exec(message)?.[1].split(', ');
    expect(named).toEqual(data.supported);
    expect((discovered.result as { supportedVersions: string[] }).supportedVersions).toEqual(data.supported);
    expect(data.supported).toEqual(['2026-07-28']);
  });

  it('refuses a request without clientCapabilities with −32602', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'server/discover', {}, { [K.version]: V })).toEqual(
      failure(
        1,
        -32602,
        'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is required on every 2026-07-28 request (an object; {} declares none)',
      ),
    );
  });

  it('refuses clientCapabilities that are not an object with −32602', async () => {
    const wire = await start();
    const response = await ask(wire, 1, 'server/discover', {}, meta({ [K.capabilities]: ['sampling'] }));
    expect(response.error.code).toBe(-32602);
  });

  it('refuses an unknown logLevel with −32602', async () => {
    const wire = await start();
    expect(
      await ask(
        wire,
        1,
        'tools/call',
        { name: 'echo', arguments: { text: 'x' } },
        meta({ [K.logLevel]: 'loud' }),
      ),
    ).toEqual(
      failure(
        1,
        -32602,
        'Invalid params: unknown log level "loud" in _meta["io.modelcontextprotocol/logLevel"]; use one of debug, info, notice, warning, error, critical, alert, emergency',
      ),
    );
  });

  it('answers an unknown method with −32601', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/frobnicate')).toEqual(
      failure(1, -32601, 'Method not found: tools/frobnicate', { method: 'tools/frobnicate' }),
    );
  });

  it.each([
    ['ping', {}],
    ['logging/setLevel', { level: 'debug' }],
    ['resources/subscribe', { uri: 'trips://readme' }],
    ['resources/unsubscribe', { uri: 'trips://readme' }],
  ])('answers the session-era-only %s with −32601', async (method, params) => {
    const wire = await start();
    expect(await ask(wire, 1, method, params)).toEqual(
      failure(1, -32601, `Method not found: ${method}`, { method }),
    );
  });

  it('answers an unknown tool with −32602', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/call', { name: 'nope' })).toEqual(
      failure(1, -32602, 'Unknown tool: nope', { name: 'nope' }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// resultType, list order, caching hints
// ---------------------------------------------------------------------------------------------

describe('results: resultType and caching hints', () => {
  it('tools/list: complete, deterministic order, private because admin_stats is guarded', async () => {
    const wire = await start();
    const expected = complete(1, { tools: TOOLS, ttlMs: 60_000, cacheScope: 'private' });
    expect(await ask(wire, 1, 'tools/list')).toEqual(expected);
    expect(await ask(wire, 2, 'tools/list')).toEqual({ ...expected, id: 2 });
  });

  it('tools/list keeps its order when a tool is added at runtime (the new one goes last) and removed', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/call', { name: 'toggle_extra' })).toEqual(complete(1, text('added')));
    const withExtra = complete(2, { tools: [...TOOLS, EXTRA_TOOL], ttlMs: 60_000, cacheScope: 'private' });
    expect(await ask(wire, 2, 'tools/list')).toEqual(withExtra);
    expect(await ask(wire, 3, 'tools/list')).toEqual({ ...withExtra, id: 3 });
    expect(await ask(wire, 4, 'tools/call', { name: 'toggle_extra' })).toEqual(complete(4, text('removed')));
    expect(await ask(wire, 5, 'tools/list')).toEqual(
      complete(5, { tools: TOOLS, ttlMs: 60_000, cacheScope: 'private' }),
    );
  });

  it('resources/list, resources/templates/list and prompts/list: complete, with public hints', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'resources/list')).toEqual(
      complete(1, {
        resources: [{ uri: 'trips://readme', name: 'readme', mimeType: 'text/plain' }],
        ttlMs: 60_000,
        cacheScope: 'public',
      }),
    );
    expect(await ask(wire, 2, 'resources/templates/list')).toEqual(
      complete(2, {
        resourceTemplates: [{ uriTemplate: 'trips://{city}', name: 'city', mimeType: 'text/plain' }],
        ttlMs: 60_000,
        cacheScope: 'public',
      }),
    );
    expect(await ask(wire, 3, 'prompts/list')).toEqual(
      complete(3, {
        prompts: [
          {
            name: 'packing',
            description: 'A packing list, personalised',
            arguments: [{ name: 'city', required: true }],
          },
        ],
        ttlMs: 60_000,
        cacheScope: 'public',
      }),
    );
  });

  it('resources/read: complete, ttlMs 0 and public by default', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'resources/read', { uri: 'trips://readme' })).toEqual(
      complete(1, {
        contents: [{ uri: 'trips://readme', mimeType: 'text/plain', text: 'Plan trips with plan_trip.' }],
        ttlMs: 0,
        cacheScope: 'public',
      }),
    );
    expect(await ask(wire, 2, 'resources/read', { uri: 'trips://oslo' })).toEqual(
      complete(2, {
        contents: [{ uri: 'trips://oslo', mimeType: 'text/plain', text: 'About oslo' }],
        ttlMs: 0,
        cacheScope: 'public',
      }),
    );
  });

  it('tools/call and completion/complete: complete, without caching hints', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/call', { name: 'echo', arguments: { text: 'hello' } })).toEqual(
      complete(1, text('hello')),
    );
    expect(
      await ask(wire, 2, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'packing' },
        argument: { name: 'city', value: 'O' },
      }),
    ).toEqual(complete(2, { completion: { values: [] } }));
  });

  it('an invalid tool argument is a complete result with isError', async () => {
    const wire = await start();
    const response = await ask(wire, 1, 'tools/call', { name: 'echo', arguments: { text: 3 } });
    expect(response.result).toEqual(
      expect.objectContaining({ resultType: 'complete', isError: true, _meta: SERVER_INFO }),
    );
  });

  it('takes list and read hints from the cache option', async () => {
    const wire = await start({ cache: { list: { ttlMs: 10 }, read: { ttlMs: 20, scope: 'private' } } });
    const prompts = await ask(wire, 1, 'prompts/list');
    expect([prompts.result.ttlMs, prompts.result.cacheScope]).toEqual([10, 'public']);
    const tools = await ask(wire, 2, 'tools/list');
    expect([tools.result.ttlMs, tools.result.cacheScope]).toEqual([10, 'private']);
    const read = await ask(wire, 3, 'resources/read', { uri: 'trips://readme' });
    expect([read.result.ttlMs, read.result.cacheScope]).toEqual([20, 'private']);
  });

  describe('on an authenticated connection', () => {
    it('resources/read is private', async () => {
      await start();
      const wire = await startAuthenticated({ token: 't-alice', subject: 'alice', scopes: [] });
      expect(await ask(wire, 1, 'resources/read', { uri: 'trips://readme' })).toEqual(
        complete(1, {
          contents: [{ uri: 'trips://readme', mimeType: 'text/plain', text: 'Plan trips with plan_trip.' }],
          ttlMs: 0,
          cacheScope: 'private',
        }),
      );
    });

    it('tools/list shows admin_stats to an admin only, private either way', async () => {
      const anonymous = await start();
      const admin = await startAuthenticated({ token: 't-root', subject: 'root', scopes: ['admin'] });
      const user = await startAuthenticated({ token: 't-bob', subject: 'bob', scopes: ['read'] });
      expect(await ask(admin, 1, 'tools/list')).toEqual(
        complete(1, {
          tools: [...TOOLS_HEAD, ADMIN_TOOL, JOURNAL_TOOL],
          ttlMs: 60_000,
          cacheScope: 'private',
        }),
      );
      expect(await ask(user, 1, 'tools/list')).toEqual(
        complete(1, { tools: TOOLS, ttlMs: 60_000, cacheScope: 'private' }),
      );
      expect(await ask(anonymous, 1, 'tools/list')).toEqual(
        complete(1, { tools: TOOLS, ttlMs: 60_000, cacheScope: 'private' }),
      );
      expect(await ask(admin, 2, 'tools/call', { name: 'admin_stats' })).toEqual(complete(2, text('stats')));
    });
  });
});

// Decorator-level hints: `cache` on @Tool, @Resource and @Prompt.
@Injectable()
class CachedHandlers {
  @Tool({ description: 'Fresh for 5 s', cache: { ttlMs: 5000 } })
  shortLived() {
    return 'short';
  }

  @Tool({ description: 'Per caller', cache: { scope: 'private' } })
  perCaller() {
    return 'mine';
  }

  @Resource({ uri: 'cached://daily', name: 'daily', cache: { ttlMs: 86_400_000 } })
  daily() {
    return 'today';
  }

  @Resource({ uri: 'cached://mine', name: 'mine', cache: { ttlMs: 1000, scope: 'private' } })
  mine() {
    return 'only yours';
  }

  @Resource({ uri: 'cached://plain', name: 'plain' })
  plain() {
    return 'plain';
  }
}

@Injectable()
class CachedPrompts {
  @Prompt({ description: 'Fresh for 30 s', cache: { ttlMs: 30_000 } })
  greeting() {
    return 'Hello';
  }
}

@Module({ providers: [CachedHandlers] })
class CachedHandlersModule {}

@Module({ providers: [CachedPrompts] })
class CachedPromptsModule {}

describe('results: decorator-level cache hints', () => {
  const CACHED_INFO = { [K.serverInfo]: { name: 'cached', version: '1.0.0' } };

  async function startCached(module: object): Promise<Wire> {
    app = await GantryFactory.create(module as never, {
      name: 'cached',
      version: '1.0.0',
      logger: false,
      stateless: { requestStateKey: 'k'.repeat(32) },
    });
    const wire = await openWire(app);
    wires.push(wire);
    return wire;
  }

  it('the shortest tool ttl bounds tools/list, and one private tool makes it private', async () => {
    const wire = await startCached(CachedHandlersModule);
    expect(await ask(wire, 1, 'tools/list')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [noArgsTool('short_lived', 'Fresh for 5 s'), noArgsTool('per_caller', 'Per caller')],
        ttlMs: 5000,
        cacheScope: 'private',
        resultType: 'complete',
        _meta: CACHED_INFO,
      },
    });
  });

  it('a resource hint applies to its reads; others keep the defaults', async () => {
    const wire = await startCached(CachedHandlersModule);
    const read = async (id: number, uri: string) => {
      const { result } = await ask(wire, id, 'resources/read', { uri });
      return [result.ttlMs, result.cacheScope];
    };
    expect(await read(1, 'cached://daily')).toEqual([86_400_000, 'public']);
    expect(await read(2, 'cached://mine')).toEqual([1000, 'private']);
    expect(await read(3, 'cached://plain')).toEqual([0, 'public']);
  });

  it('resource hints bound resources/list the same way', async () => {
    const wire = await startCached(CachedHandlersModule);
    const { result } = await ask(wire, 1, 'resources/list');
    expect([result.ttlMs, result.cacheScope, result.resultType]).toEqual([1000, 'private', 'complete']);
  });

  it('a prompt hint bounds prompts/list', async () => {
    const wire = await startCached(CachedPromptsModule);
    expect(await ask(wire, 1, 'prompts/list')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        prompts: [{ name: 'greeting', description: 'Fresh for 30 s' }],
        ttlMs: 30_000,
        cacheScope: 'public',
        resultType: 'complete',
        _meta: CACHED_INFO,
      },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Resources: not found
// ---------------------------------------------------------------------------------------------

describe('resources: not found', () => {
  it('is −32602 in this era, while the session era on the same process still answers −32002', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'resources/read', { uri: 'nowhere://x' })).toEqual(
      failure(1, -32602, 'Resource not found: nowhere://x', { uri: 'nowhere://x' }),
    );
    await handshake(wire);
    wire.send({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'nowhere://x' } });
    expect(await wire.next()).toEqual(
      failure(2, -32002, 'Resource not found: nowhere://x', { uri: 'nowhere://x' }),
    );
    // And the stateless era is unchanged by the session next to it.
    expect(await ask(wire, 3, 'resources/read', { uri: 'nowhere://x' })).toEqual(
      failure(3, -32602, 'Resource not found: nowhere://x', { uri: 'nowhere://x' }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Multi round-trip requests
// ---------------------------------------------------------------------------------------------

describe('multi round-trip requests (input_required)', () => {
  const OSLO = { name: 'plan_trip', arguments: { city: 'Oslo' } };

  /** Runs plan_trip for Oslo up to the round that asks to confirm; returns both states. */
  async function twoRounds(wire: Wire) {
    const first = await ask(wire, 1, 'tools/call', OSLO);
    expect(first).toEqual(inputRequired(1, { 'elicitation-1': WHO_TRAVELS('Oslo') }));
    const second = await ask(wire, 2, 'tools/call', {
      ...OSLO,
      requestState: first.result.requestState,
      inputResponses: { 'elicitation-1': ACCEPT_ADA },
    });
    expect(second).toEqual(inputRequired(2, { 'elicitation-2': BOOK('Oslo', 'Ada') }));
    return { first: first.result.requestState as string, second: second.result.requestState as string };
  }

  describe('plan_trip: elicit, elicit, sample', () => {
    it('runs the full round trip, each round asking for exactly the next input', async () => {
      const wire = await start();
      const { second } = await twoRounds(wire);
      const third = await ask(wire, 3, 'tools/call', {
        ...OSLO,
        requestState: second,
        inputResponses: { 'elicitation-2': CONFIRM },
      });
      expect(third).toEqual(inputRequired(3, { 'sampling-3': SLOGAN('Oslo') }));
      expect(
        await ask(wire, 4, 'tools/call', {
          ...OSLO,
          requestState: third.result.requestState,
          inputResponses: { 'sampling-3': SAMPLED },
        }),
      ).toEqual(complete(4, text('Booked Oslo for Ada (stateless): Fjords and waffles')));
    });

    it('carries no caching hints on input_required results', async () => {
      const wire = await start();
      const response = await ask(wire, 1, 'tools/call', OSLO);
      expect(Object.keys(response.result).sort()).toEqual([
        '_meta',
        'inputRequests',
        'requestState',
        'resultType',
      ]);
    });

    it('ignores inputResponses entries it did not ask for', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      expect(
        await ask(wire, 2, 'tools/call', {
          ...OSLO,
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA, 'surprise-9': { action: 'accept', content: {} } },
        }),
      ).toEqual(inputRequired(2, { 'elicitation-2': BOOK('Oslo', 'Ada') }));
    });

    it('ends the call when the traveller form is declined', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      expect(
        await ask(wire, 2, 'tools/call', {
          ...OSLO,
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': { action: 'decline' } },
        }),
        // The fixture builds the text as `${action}ed`.
      ).toEqual(complete(2, text('No trip: the traveller answered decline')));
    });

    it('does not book when the confirmation is declined', async () => {
      const wire = await start();
      const { second } = await twoRounds(wire);
      expect(
        await ask(wire, 3, 'tools/call', {
          ...OSLO,
          requestState: second,
          inputResponses: { 'elicitation-2': { action: 'decline' } },
        }),
      ).toEqual(complete(3, text('Not booked for Ada')));
    });

    it('a state may be retried (the same retry twice gives the same answer)', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      const retry = {
        ...OSLO,
        requestState: first.result.requestState,
        inputResponses: { 'elicitation-1': ACCEPT_ADA },
      };
      expect(await ask(wire, 2, 'tools/call', retry)).toEqual(
        inputRequired(2, { 'elicitation-2': BOOK('Oslo', 'Ada') }),
      );
      expect(await ask(wire, 3, 'tools/call', retry)).toEqual(
        inputRequired(3, { 'elicitation-2': BOOK('Oslo', 'Ada') }),
      );
    });
  });

  describe('requestState checks', () => {
    const INTEGRITY =
      'Invalid params: requestState failed its integrity check; it was altered or issued by a server with another key. Send the request again without requestState and inputResponses';
    const ANOTHER_REQUEST =
      'Invalid params: requestState belongs to another request (it was issued for a tools/call with other parameters); echo it only in the retry of the request that returned it';

    it('refuses a state with one character of its body flipped, naming the integrity check', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      const state: string = first.result.requestState;
      const flipped = `${state[0] === 'e' ? 'f' : 'e'}${state.slice(1)}`;
      expect(
        await ask(wire, 2, 'tools/call', {
          ...OSLO,
          requestState: flipped,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(2, -32602, INTEGRITY));
    });

    it('refuses a state with a character of its signature changed', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      const state: string = first.result.requestState;
      const dot = state.indexOf('.');
      const flipped = `${state.slice(0, dot + 1)}${state[dot + 1] === 'A' ? 'B' : 'A'}${state.slice(dot + 2)}`;
      expect(
        await ask(wire, 2, 'tools/call', {
          ...OSLO,
          requestState: flipped,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(2, -32602, INTEGRITY));
    });

    it('refuses a state signed with another key', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      await app?.close();
      const other = await start({ stateless: { requestStateKey: 'o'.repeat(32) } });
      expect(
        await ask(other, 2, 'tools/call', {
          ...OSLO,
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(2, -32602, INTEGRITY));
    });

    it('lets another server (process, node) with the same key continue the call', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      await app?.close();
      const restarted = await start();
      expect(
        await ask(restarted, 2, 'tools/call', {
          ...OSLO,
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(inputRequired(2, { 'elicitation-2': BOOK('Oslo', 'Ada') }));
    });

    it('refuses an expired state', async () => {
      // The clock jumps past the lifetime instead of the test sleeping through it.
      let skew = 0;
      const realNow = Date.now;
      const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
      try {
        const wire = await start({
          stateless: { requestStateKey: 'k'.repeat(32), requestStateTtlMs: 60_000 },
        });
        const first = await ask(wire, 1, 'tools/call', OSLO);
        skew = 60_001;
        expect(
          await ask(wire, 2, 'tools/call', {
            ...OSLO,
            requestState: first.result.requestState,
            inputResponses: { 'elicitation-1': ACCEPT_ADA },
          }),
        ).toEqual(
          failure(
            2,
            -32602,
            'Invalid params: requestState expired; send the request again without requestState and inputResponses',
          ),
        );
      } finally {
        clock.mockRestore();
      }
    });

    it('refuses a state replayed for another tool', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      expect(
        await ask(wire, 2, 'tools/call', {
          name: 'polite_name',
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(2, -32602, ANOTHER_REQUEST));
    });

    it('refuses a state replayed with other arguments', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      expect(
        await ask(wire, 2, 'tools/call', {
          name: 'plan_trip',
          arguments: { city: 'Paris' },
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(2, -32602, ANOTHER_REQUEST));
    });

    it('refuses a tools/call state replayed on prompts/get', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      expect(
        await ask(wire, 2, 'prompts/get', {
          name: 'packing',
          arguments: { city: 'Oslo' },
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(2, -32602, ANOTHER_REQUEST));
    });

    it('refuses a state issued to another caller', async () => {
      await start();
      const alice = await startAuthenticated({ token: 't-alice', subject: 'alice', scopes: [] });
      const bob = await startAuthenticated({ token: 't-bob', subject: 'bob', scopes: [] });
      const anonymous = wires[0];
      const first = await ask(alice, 1, 'tools/call', OSLO);
      const retry = {
        ...OSLO,
        requestState: first.result.requestState,
        inputResponses: { 'elicitation-1': ACCEPT_ADA },
      };
      const refused = 'Invalid params: requestState was issued to another caller';
      expect(await ask(bob, 2, 'tools/call', retry)).toEqual(failure(2, -32602, refused));
      expect(await ask(anonymous, 2, 'tools/call', retry)).toEqual(failure(2, -32602, refused));
      // The same caller on another connection may continue: the state is not tied to a connection.
      const aliceAgain = await startAuthenticated({ token: 't-alice-2', subject: 'alice', scopes: [] });
      expect(await ask(aliceAgain, 3, 'tools/call', retry)).toEqual(
        inputRequired(3, { 'elicitation-2': BOOK('Oslo', 'Ada') }),
      );
    });

    // MCP 2026-07-28, multi round-trip requests: the server SHOULD re-request missing information.
    it('asks again when inputResponses come without requestState: they answer nothing it asked', async () => {
      const wire = await start();
      expect(
        await ask(wire, 1, 'tools/call', { ...OSLO, inputResponses: { 'elicitation-1': ACCEPT_ADA } }),
      ).toEqual(inputRequired(1, { 'elicitation-1': WHO_TRAVELS('Oslo') }));
    });

    it('asks again for what a retry left unanswered, keeping the answers before it', async () => {
      const wire = await start();
      const { first, second } = await twoRounds(wire);
      // Round 1 expected elicitation-1; answered under another key, it is asked again.
      expect(
        await ask(wire, 3, 'tools/call', {
          ...OSLO,
          requestState: first,
          inputResponses: { 'elicitation-2': ACCEPT_ADA },
        }),
      ).toEqual(inputRequired(3, { 'elicitation-1': WHO_TRAVELS('Oslo') }));
      // Round 2 (Ada answered) expected elicitation-2; without it, only that is asked again.
      expect(await ask(wire, 4, 'tools/call', { ...OSLO, requestState: second })).toEqual(
        inputRequired(4, { 'elicitation-2': BOOK('Oslo', 'Ada') }),
      );
    });

    it('refuses inputResponses that are not an object', async () => {
      const wire = await start();
      const { first } = await twoRounds(wire);
      expect(await ask(wire, 3, 'tools/call', { ...OSLO, requestState: first, inputResponses: [] })).toEqual(
        failure(
          3,
          -32602,
          'Invalid params: "inputResponses" must be an object keyed by the input requests of the input_required result',
        ),
      );
    });

    it('refuses a requestState that is not a string', async () => {
      const wire = await start();
      expect(
        await ask(wire, 1, 'tools/call', {
          ...OSLO,
          requestState: 42,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(failure(1, -32602, 'Invalid params: "requestState" must be the string the server sent'));
    });

    it('stops after stateless.maxInputRounds rounds', async () => {
      const wire = await start({ stateless: { requestStateKey: 'k'.repeat(32), maxInputRounds: 1 } });
      const first = await ask(wire, 1, 'tools/call', OSLO);
      expect(first).toEqual(inputRequired(1, { 'elicitation-1': WHO_TRAVELS('Oslo') }));
      expect(
        await ask(wire, 2, 'tools/call', {
          ...OSLO,
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(
        failure(
          2,
          -32603,
          'Internal error: tools/call asked the client for input more than 1 times (stateless.maxInputRounds)',
        ),
      );
    });
  });

  describe('client capabilities', () => {
    it('answers −32021 naming form elicitation when plan_trip is called without it', async () => {
      const wire = await start();
      expect(await ask(wire, 1, 'tools/call', OSLO, meta({}, {}))).toEqual(
        failure(
          1,
          -32021,
          'Missing required client capability: ctx.elicit(): the client (wire-test) did not declare form elicitation (capability elicitation.form)',
          { requiredCapabilities: { elicitation: { form: {} } } },
        ),
      );
    });

    it('answers −32021 when only URL elicitation is declared', async () => {
      const wire = await start();
      const response = await ask(wire, 1, 'tools/call', OSLO, meta({}, { elicitation: { url: {} } }));
      expect(response.error).toEqual(
        expect.objectContaining({
          code: -32021,
          data: { requiredCapabilities: { elicitation: { form: {} } } },
        }),
      );
    });

    it('an empty elicitation capability means form mode', async () => {
      const wire = await start();
      expect(await ask(wire, 1, 'tools/call', OSLO, meta({}, { elicitation: {} }))).toEqual(
        inputRequired(1, { 'elicitation-1': WHO_TRAVELS('Oslo') }),
      );
    });

    it('lets polite_name fall back without elicitation: no error, no input request', async () => {
      const wire = await start();
      expect(await ask(wire, 1, 'tools/call', { name: 'polite_name' }, meta({}, {}))).toEqual(
        complete(1, text('anonymous')),
      );
      const asked = await ask(wire, 2, 'tools/call', { name: 'polite_name' });
      expect(asked).toEqual(
        inputRequired(2, {
          'elicitation-1': elicitation('Your name?', { name: { type: 'string' } }, ['name']),
        }),
      );
      expect(
        await ask(wire, 3, 'tools/call', {
          name: 'polite_name',
          requestState: asked.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(complete(3, text('Ada')));
    });

    it('answers −32021 naming sampling when the round that samples lacks the capability', async () => {
      const wire = await start();
      const noSampling = meta({}, { elicitation: { form: {} } });
      const first = await ask(wire, 1, 'tools/call', OSLO, noSampling);
      const second = await ask(
        wire,
        2,
        'tools/call',
        { ...OSLO, requestState: first.result.requestState, inputResponses: { 'elicitation-1': ACCEPT_ADA } },
        noSampling,
      );
      expect(second).toEqual(inputRequired(2, { 'elicitation-2': BOOK('Oslo', 'Ada') }));
      expect(
        await ask(
          wire,
          3,
          'tools/call',
          { ...OSLO, requestState: second.result.requestState, inputResponses: { 'elicitation-2': CONFIRM } },
          noSampling,
        ),
      ).toEqual(
        failure(
          3,
          -32021,
          'Missing required client capability: ctx.sample(): the client (wire-test) did not declare the sampling capability, so it cannot sample for this server',
          { requiredCapabilities: { sampling: {} } },
        ),
      );
    });

    it('takes the capabilities of each request, not of earlier ones', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', OSLO);
      const response = await ask(
        wire,
        2,
        'tools/call',
        { ...OSLO, requestState: first.result.requestState, inputResponses: { 'elicitation-1': ACCEPT_ADA } },
        meta({}, {}),
      );
      expect(response.error).toEqual(
        expect.objectContaining({
          code: -32021,
          data: { requiredCapabilities: { elicitation: { form: {} } } },
        }),
      );
    });
  });

  describe('roots, prompts and resources', () => {
    it('asks for roots with roots/list and answers with their URIs', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'tools/call', { name: 'root_uris' });
      expect(first).toEqual(inputRequired(1, { 'roots-1': { method: 'roots/list' } }));
      expect(
        await ask(wire, 2, 'tools/call', {
          name: 'root_uris',
          requestState: first.result.requestState,
          inputResponses: {
            'roots-1': {
              roots: [{ uri: 'file:///home/ada/trips' }, { uri: 'file:///srv/maps', name: 'maps' }],
            },
          },
        }),
      ).toEqual(complete(2, text('file:///home/ada/trips,file:///srv/maps')));
    });

    it('answers −32021 naming roots when the request does not declare them', async () => {
      const wire = await start();
      const response = await ask(wire, 1, 'tools/call', { name: 'root_uris' }, meta({}, { elicitation: {} }));
      expect(response.error).toEqual(
        expect.objectContaining({ code: -32021, data: { requiredCapabilities: { roots: {} } } }),
      );
    });

    it('prompts/get: input_required, then the personalised prompt', async () => {
      const wire = await start();
      const packing = { name: 'packing', arguments: { city: 'Oslo' } };
      const first = await ask(wire, 1, 'prompts/get', packing);
      expect(first).toEqual(
        inputRequired(1, {
          'elicitation-1': elicitation('Packing for whom?', { name: { type: 'string' } }, ['name']),
        }),
      );
      expect(
        await ask(wire, 2, 'prompts/get', {
          ...packing,
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(
        complete(2, {
          description: 'A packing list, personalised',
          messages: [{ role: 'user', content: { type: 'text', text: 'Packing list for Ada going to Oslo' } }],
        }),
      );
    });

    it('prompts/get without elicitation answers −32021', async () => {
      const wire = await start();
      const response = await ask(
        wire,
        1,
        'prompts/get',
        { name: 'packing', arguments: { city: 'Oslo' } },
        meta({}, {}),
      );
      expect(response.error).toEqual(
        expect.objectContaining({
          code: -32021,
          data: { requiredCapabilities: { elicitation: { form: {} } } },
        }),
      );
    });

    it('resources/read trips://secret: input_required without hints, then contents with hints', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'resources/read', { uri: 'trips://secret' });
      expect(first).toEqual(
        inputRequired(1, {
          'elicitation-1': elicitation('Who reads the secret?', { name: { type: 'string' } }, ['name']),
        }),
      );
      expect(
        await ask(wire, 2, 'resources/read', {
          uri: 'trips://secret',
          requestState: first.result.requestState,
          inputResponses: { 'elicitation-1': ACCEPT_ADA },
        }),
      ).toEqual(
        complete(2, {
          contents: [{ uri: 'trips://secret', mimeType: 'text/plain', text: 'Secret for Ada' }],
          ttlMs: 0,
          cacheScope: 'public',
        }),
      );
    });

    it('a resources/read state does not open another URI', async () => {
      const wire = await start();
      const first = await ask(wire, 1, 'resources/read', { uri: 'trips://secret' });
      const response = await ask(wire, 2, 'resources/read', {
        uri: 'trips://readme',
        requestState: first.result.requestState,
        inputResponses: { 'elicitation-1': ACCEPT_ADA },
      });
      expect(response.error.code).toBe(-32602);
      expect(response.error.message).toMatch(/^Invalid params: requestState belongs to another request/);
    });
  });

  it('never writes a JSON-RPC request while asking for input', async () => {
    const wire = await start();
    const { second } = await twoRounds(wire);
    await ask(wire, 3, 'tools/call', {
      ...OSLO,
      requestState: second,
      inputResponses: { 'elicitation-2': CONFIRM },
    });
    await ask(wire, 4, 'tools/call', { name: 'root_uris' });
    await ask(wire, 5, 'prompts/get', { name: 'packing', arguments: { city: 'Oslo' } });
    await ask(wire, 6, 'resources/read', { uri: 'trips://secret' });
    expect(await wire.silentFor(100)).toBe(true);
    expect(wire.seen.map((message) => [message.id, message.result?.resultType])).toEqual([
      [1, 'input_required'],
      [2, 'input_required'],
      [3, 'input_required'],
      [4, 'input_required'],
      [5, 'input_required'],
      [6, 'input_required'],
    ]);
    expect(wire.seen.filter(isRequest)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Logging and progress: opt-in per request
// ---------------------------------------------------------------------------------------------

describe('logging and progress', () => {
  it('sends no notifications/message without _meta logLevel', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/call', { name: 'log_levels' })).toEqual(complete(1, text('logged')));
    expect(await wire.silentFor(100)).toBe(true);
    expect(wire.seen.filter((message) => message.method === 'notifications/message')).toEqual([]);
  });

  it('sends only the messages at or above the request logLevel', async () => {
    const wire = await start();
    wire.send(request(1, 'tools/call', { name: 'log_levels' }, meta({ [K.logLevel]: 'error' })));
    expect(await nextLines(wire, 2)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error message' } },
      complete(1, text('logged')),
    ]);
    wire.send(request(2, 'tools/call', { name: 'log_levels' }, meta({ [K.logLevel]: 'debug' })));
    expect(await nextLines(wire, 3)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'debug message' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error message' } },
      complete(2, text('logged')),
    ]);
    // The level of one request does not carry over to the next.
    expect(await ask(wire, 3, 'tools/call', { name: 'log_levels' })).toEqual(complete(3, text('logged')));
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('sends progress only when the request carries a progressToken', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/call', { name: 'plan_trip', arguments: { city: 'Oslo' } })).toEqual(
      inputRequired(1, { 'elicitation-1': WHO_TRAVELS('Oslo') }),
    );
    wire.send(
      request(
        2,
        'tools/call',
        { name: 'plan_trip', arguments: { city: 'Oslo' } },
        meta({ progressToken: 'p-2' }),
      ),
    );
    expect(await nextLines(wire, 2)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p-2', progress: 1, total: 3, message: 'asking who travels' },
      },
      inputRequired(2, { 'elicitation-1': WHO_TRAVELS('Oslo') }),
    ]);
  });

  it('the last retry of plan_trip reports all progress and its log line, on its own token', async () => {
    const wire = await start();
    const city = { name: 'plan_trip', arguments: { city: 'Oslo' } };
    const first = await ask(wire, 1, 'tools/call', city);
    const second = await ask(wire, 2, 'tools/call', {
      ...city,
      requestState: first.result.requestState,
      inputResponses: { 'elicitation-1': ACCEPT_ADA },
    });
    const third = await ask(wire, 3, 'tools/call', {
      ...city,
      requestState: second.result.requestState,
      inputResponses: { 'elicitation-2': CONFIRM },
    });
    wire.send(
      request(
        4,
        'tools/call',
        { ...city, requestState: third.result.requestState, inputResponses: { 'sampling-3': SAMPLED } },
        meta({ progressToken: 7, [K.logLevel]: 'info' }),
      ),
    );
    const progress = (n: number, message: string) => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 7, progress: n, total: 3, message },
    });
    expect(await nextLines(wire, 5)).toEqual([
      progress(1, 'asking who travels'),
      progress(2, 'asking to confirm'),
      progress(3, 'done'),
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: { booked: 'Oslo', for: 'Ada' } },
      },
      complete(4, text('Booked Oslo for Ada (stateless): Fjords and waffles')),
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// subscriptions/listen
// ---------------------------------------------------------------------------------------------

describe('subscriptions/listen', () => {
  const ack = (id: number | string, notifications: Record<string, unknown>) =>
    tagged('notifications/subscriptions/acknowledged', id, { notifications });
  /** The final result of a listen stream the server ends. */
  const final = (id: number | string) => ({
    jsonrpc: '2.0',
    id,
    result: { resultType: 'complete', _meta: { [K.subscriptionId]: id, ...SERVER_INFO } },
  });

  it('acknowledges first, with the honoured filter and the listen id as subscriptionId', async () => {
    const wire = await start();
    expect(
      await ask(wire, 'listen-1', 'subscriptions/listen', {
        notifications: {
          toolsListChanged: true,
          promptsListChanged: false,
          resourceSubscriptions: ['trips://readme'],
          taskIds: ['t-1'],
        },
      }),
    ).toEqual(ack('listen-1', { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] }));
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('a numeric listen id is the numeric subscriptionId', async () => {
    const wire = await start();
    expect(
      await ask(wire, 41, 'subscriptions/listen', {
        notifications: { promptsListChanged: true, resourcesListChanged: true },
      }),
    ).toEqual(ack(41, { promptsListChanged: true, resourcesListChanged: true }));
  });

  it.each([
    [
      {},
      'Invalid params: subscriptions/listen needs "notifications", an object such as { "toolsListChanged": true }',
    ],
    [
      { notifications: { toolsListChanged: 'yes' } },
      'Invalid params: notifications.toolsListChanged must be a boolean',
    ],
    [
      { notifications: { resourceSubscriptions: 'trips://readme' } },
      'Invalid params: notifications.resourceSubscriptions must be an array of URI strings',
    ],
  ])('refuses the malformed filter %j with −32602', async (params, message) => {
    const wire = await start();
    expect(await ask(wire, 1, 'subscriptions/listen', params)).toEqual(failure(1, -32602, message));
  });

  it('delivers tools/list_changed from a stateless toggle_extra, tagged', async () => {
    const wire = await start();
    await ask(wire, 'L', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    wire.send(request(2, 'tools/call', { name: 'toggle_extra' }));
    const lines = await nextLines(wire, 2);
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([tagged('notifications/tools/list_changed', 'L'), complete(2, text('added'))]),
    );
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('delivers tools/list_changed from a session-era toggle_extra on the same process, tagged, beside the untagged session one', async () => {
    const wire = await start();
    await ask(wire, 'L', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    await handshake(wire);
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'toggle_extra' } });
    const lines = await nextLines(wire, 3);
    expect(lines).toHaveLength(3);
    expect(lines).toEqual(
      expect.arrayContaining([
        tagged('notifications/tools/list_changed', 'L'),
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
        { jsonrpc: '2.0', id: 2, result: text('added') },
      ]),
    );
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('never delivers tools/list_changed to a listen that did not ask for it', async () => {
    const wire = await start();
    await ask(wire, 'L', 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['trips://readme'] },
    });
    expect(await ask(wire, 2, 'tools/call', { name: 'toggle_extra' })).toEqual(complete(2, text('added')));
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('delivers resources/updated for subscribed URIs and their sub-URIs only', async () => {
    const wire = await start();
    await ask(wire, 'R', 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['trips://readme', 'trips://paris'] },
    });
    await app?.resources.updated('trips://readme');
    expect(await wire.next()).toEqual(
      tagged('notifications/resources/updated', 'R', { uri: 'trips://readme' }),
    );
    await app?.resources.updated('trips://paris/hotels');
    expect(await wire.next()).toEqual(
      tagged('notifications/resources/updated', 'R', { uri: 'trips://paris/hotels' }),
    );
    await app?.resources.updated('trips://parisian');
    await app?.resources.updated('trips://rome');
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('demultiplexes two concurrent listens by subscriptionId', async () => {
    const wire = await start();
    await ask(wire, 'A', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    await ask(wire, 'B', 'subscriptions/listen', {
      notifications: { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] },
    });
    wire.send(request(3, 'tools/call', { name: 'toggle_extra' }));
    const lines = await nextLines(wire, 3);
    expect(lines).toHaveLength(3);
    expect(lines).toEqual(
      expect.arrayContaining([
        tagged('notifications/tools/list_changed', 'A'),
        tagged('notifications/tools/list_changed', 'B'),
        complete(3, text('added')),
      ]),
    );
    await app?.resources.updated('trips://readme');
    expect(await wire.next()).toEqual(
      tagged('notifications/resources/updated', 'B', { uri: 'trips://readme' }),
    );
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('never tags progress or log notifications of other requests', async () => {
    const wire = await start();
    await ask(wire, 'L', 'subscriptions/listen', {
      notifications: { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] },
    });
    wire.send(request(2, 'tools/call', { name: 'log_levels' }, meta({ [K.logLevel]: 'debug' })));
    expect(await nextLines(wire, 3)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'debug message' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error message' } },
      complete(2, text('logged')),
    ]);
    wire.send(
      request(
        3,
        'tools/call',
        { name: 'plan_trip', arguments: { city: 'Oslo' } },
        meta({ progressToken: 'p' }),
      ),
    );
    expect(await nextLines(wire, 2)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 1, total: 3, message: 'asking who travels' },
      },
      inputRequired(3, { 'elicitation-1': WHO_TRAVELS('Oslo') }),
    ]);
  });

  it('ends on notifications/cancelled with the listen id: no response, no more notifications', async () => {
    const wire = await start();
    await ask(wire, 'L', 'subscriptions/listen', {
      notifications: { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] },
    });
    wire.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'L', reason: 'done' },
    });
    expect(await wire.silentFor(100)).toBe(true);
    expect(await ask(wire, 2, 'tools/call', { name: 'toggle_extra' })).toEqual(complete(2, text('added')));
    await app?.resources.updated('trips://readme');
    expect(await wire.silentFor(100)).toBe(true);
    // The id is free again, and the server still serves listens.
    expect(
      await ask(wire, 'L', 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ).toEqual(ack('L', { toolsListChanged: true }));
    await app?.close();
    expect(await wire.next()).toEqual(final('L'));
    expect(wire.seen.filter((message) => message.id === 'L' && 'result' in message)).toHaveLength(1);
  });

  it('app.close() ends every open listen with its final result', async () => {
    app = await createDualEraApp();
    const wire = await openWire(app);
    wires.push(wire);
    await ask(wire, 'A', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    await ask(wire, 'B', 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['trips://readme'] },
    });
    await app.close();
    const lines = await nextLines(wire, 2);
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(expect.arrayContaining([final('A'), final('B')]));
    expect(await wire.silentFor(100)).toBe(true);
  });

  it('session-era subscribers keep their untagged resources/updated beside the tagged one', async () => {
    const wire = await start();
    await handshake(wire);
    wire.send({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'trips://readme' } });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await ask(wire, 'L', 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['trips://readme'] },
    });
    await app?.resources.updated('trips://readme');
    const lines = await nextLines(wire, 2);
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'trips://readme' } },
        tagged('notifications/resources/updated', 'L', { uri: 'trips://readme' }),
      ]),
    );
    expect(await wire.silentFor(100)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Cancellation and trace context
// ---------------------------------------------------------------------------------------------

describe('cancellation', () => {
  /** The journal of the app, through the journal_events tool. */
  async function journal(wire: Wire, id: number): Promise<string> {
    const response = await ask(wire, id, 'tools/call', { name: 'journal_events' });
    return response.result.content[0].text;
  }

  it('notifications/cancelled aborts a running call, whose response is never written', async () => {
    const wire = await start();
    wire.send(request('w', 'tools/call', { name: 'wait_for_cancel' }));
    let id = 100;
    while ((await journal(wire, id)) !== 'wait started') {
      if (++id > 150) throw new Error('wait_for_cancel never started');
    }
    wire.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'w', reason: 'user' },
    });
    expect(await wire.silentFor(100)).toBe(true);
    expect(await journal(wire, 200)).toBe('wait started|wait cancelled');
    expect(await wire.silentFor(100)).toBe(true);
    expect(wire.seen.filter((message) => message.id === 'w')).toEqual([]);
  });

  it('ignores notifications/cancelled for an unknown request', async () => {
    const wire = await start();
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'ghost' } });
    expect(await wire.silentFor(100)).toBe(true);
    expect(await ask(wire, 1, 'tools/call', { name: 'echo', arguments: { text: 'still here' } })).toEqual(
      complete(1, text('still here')),
    );
  });
});

describe('ctx.trace', () => {
  it('returns traceparent, tracestate and baggage from _meta', async () => {
    const wire = await start();
    const trace = {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'congo=t61rcWkgMzE',
      baggage: 'userId=alice',
    };
    expect(await ask(wire, 1, 'tools/call', { name: 'trace' }, meta(trace))).toEqual(
      complete(1, text(JSON.stringify(trace))),
    );
  });

  it('is empty without trace keys, and ignores ones that are not strings', async () => {
    const wire = await start();
    expect(await ask(wire, 1, 'tools/call', { name: 'trace' })).toEqual(complete(1, text('{}')));
    expect(
      await ask(wire, 2, 'tools/call', { name: 'trace' }, meta({ traceparent: 7, tracestate: 'a=b' })),
    ).toEqual(complete(2, text('{"tracestate":"a=b"}')));
  });
});
