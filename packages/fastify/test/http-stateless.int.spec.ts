// The stateless era (2026-07-28) over Streamable HTTP, as literal JSON on the wire: the
// request-metadata headers and their 400s, the era's status codes, SSE answers without ids or
// priming, multi round-trip requests, caching hints, subscriptions/listen and cancellation by
// disconnect (MCP 2026-07-28, Transports › Streamable HTTP).
import 'reflect-metadata';
import { Args, GantryFactory, Header, Injectable, Module, Tool } from '@gantry/core';
import type { AuthInfo } from '@gantry/protocol';
import { Changes, eventually } from '@gantry/testing';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDualEraApp, Journal } from '../../core/test/fixtures/dual-era-app';
import { type GantryMcpOptions, gantryMcp } from '../src';
import {
  ACCEPT,
  b64,
  CC,
  DUAL_META,
  headersFor,
  injectStateless,
  listenOn,
  PV,
  rpc,
  SseReader,
  SUB,
  textResult,
  V,
  without,
} from './stateless-support';

type App = Awaited<ReturnType<typeof createDualEraApp>>;

/** Client capabilities that let plan_trip run to the end. */
const CAPS = { elicitation: { form: {} }, sampling: {} };

const error = (id: number | string | null, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

const mismatch = (id: number | string, message: string) => error(id, -32020, `Header mismatch: ${message}`);

async function injectServer(app: GantryMcpOptions['app'], options: Omit<GantryMcpOptions, 'app'> = {}) {
  const fastify: FastifyInstance = Fastify({ logger: false });
  await fastify.register(gantryMcp, { app, ...options });
  await fastify.ready();
  return fastify;
}

// --- A small app whose tool mirrors arguments into Mcp-Param-* headers --------------------

class Stop {
  @IsString() @Header('Zone') zone!: string;
}

class Route {
  @IsOptional() @IsString() @Header('Region') region?: string;
  @IsOptional() @IsInt() @Header('Days') days?: number;
  @IsOptional() @ValidateNested() @Type(() => Stop) stop?: Stop;
  @IsOptional() @IsString() note?: string;
}

@Injectable()
class RouteTools {
  @Tool({ description: 'Plans a route' })
  planRoute(@Args() route: Route) {
    return `${route.region ?? '-'}/${route.days ?? '-'}/${route.stop?.zone ?? '-'}`;
  }
}

@Module({ providers: [RouteTools] })
class RouteModule {}

const ROUTE_META = { 'io.modelcontextprotocol/serverInfo': { name: 'routes', version: '1.0.0' } };

describe('@Header: x-mcp-header annotations, checked at bootstrap', () => {
  class Leg {
    @IsString() @Header('Stop') stop!: string;
  }
  class Legs {
    @IsArray() @ValidateNested({ each: true }) @Type(() => Leg) legs!: Leg[];
  }
  class Numbers {
    @IsNumber() @Header('Budget') budget!: number;
  }
  class Tags {
    @IsArray() @IsString({ each: true }) @Header('Tags') tags!: string[];
  }
  class Twice {
    @IsString() @Header('Region') from!: string;
    @IsString() @Header('region') to!: string;
  }
  @Injectable()
  class LegTools {
    @Tool() legs(@Args() _legs: Legs) {
      return 'legs';
    }
  }
  @Injectable()
  class NumberTools {
    @Tool() budget(@Args() _n: Numbers) {
      return 'budget';
    }
  }
  @Injectable()
  class TagTools {
    @Tool() tag(@Args() _t: Tags) {
      return 'tags';
    }
  }
  @Injectable()
  class TwiceTools {
    @Tool() twice(@Args() _t: Twice) {
      return 'twice';
    }
  }
  @Injectable()
  class TokenTools {
    @Tool({
      input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'bad name' } } },
    })
    badToken() {
      return 'bad';
    }
  }
  @Module({ providers: [LegTools] })
  class LegModule {}
  @Module({ providers: [NumberTools] })
  class NumberModule {}
  @Module({ providers: [TagTools] })
  class TagModule {}
  @Module({ providers: [TwiceTools] })
  class TwiceModule {}
  @Module({ providers: [TokenTools] })
  class TokenModule {}

  const create = (module: new () => unknown) =>
    GantryFactory.create(module, { name: 'bad', version: '1', logger: false });

  it.each([
    [
      'nested in array items',
      LegModule,
      `Tool 'legs' (LegTools.legs): x-mcp-header inside 'items' of property 'legs': annotations must be reachable from the root through "properties" only`,
    ],
    [
      'on a number',
      NumberModule,
      `Tool 'budget' (NumberTools.budget): x-mcp-header on property 'budget': only string, integer and boolean properties can be mirrored into a header, not "number"`,
    ],
    [
      'on an array',
      TagModule,
      `Tool 'tag' (TagTools.tag): x-mcp-header on property 'tags': only string, integer and boolean properties can be mirrored into a header, not "array"`,
    ],
    [
      'twice, case-insensitively',
      TwiceModule,
      `Tool 'twice' (TwiceTools.twice): x-mcp-header "region" is used twice (also on property 'from')`,
    ],
    [
      'with a name that is no HTTP token',
      TokenModule,
      `Tool 'bad_token' (TokenTools.badToken): x-mcp-header on property 'region': "bad name" is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`,
    ],
  ])('rejects an annotation %s', async (_case, module, message) => {
    await expect(create(module)).rejects.toMatchObject({ code: 'GANTRY_ERR_INVALID_DECORATOR', message });
  });

  it("throws at decoration time for @Header('bad name')", () => {
    expect(() => {
      class Bad {
        @Header('bad name') region!: string;
      }
      return Bad;
    }).toThrow(`@Header(): "bad name" is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`);
  });

  it('publishes x-mcp-header in tools/list, nested properties included', async () => {
    const app = await GantryFactory.create(RouteModule, { name: 'routes', version: '1.0.0', logger: false });
    const fastify = await injectServer(app);
    const response = await injectStateless(fastify, rpc(1, 'tools/list'));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [
          {
            name: 'plan_route',
            description: 'Plans a route',
            inputSchema: {
              type: 'object',
              properties: {
                region: { type: 'string', 'x-mcp-header': 'Region' },
                days: { type: 'integer', 'x-mcp-header': 'Days' },
                stop: {
                  type: 'object',
                  properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } },
                  required: ['zone'],
                  additionalProperties: false,
                },
                note: { type: 'string' },
              },
              additionalProperties: false,
            },
          },
        ],
        ttlMs: 60000,
        cacheScope: 'public',
        resultType: 'complete',
        _meta: ROUTE_META,
      },
    });
    await fastify.close();
    await app.close();
  });
});

describe('stateless-era POST checks (fastify.inject)', () => {
  let app: App;
  let fastify: FastifyInstance;
  let routes: Awaited<ReturnType<typeof GantryFactory.create>>;
  let routeServer: FastifyInstance;
  beforeAll(async () => {
    app = await createDualEraApp();
    fastify = await injectServer(app);
    routes = await GantryFactory.create(RouteModule, { name: 'routes', version: '1.0.0', logger: false });
    routeServer = await injectServer(routes);
  });
  afterAll(async () => {
    await fastify.close();
    await app.close();
    await routeServer.close();
    await routes.close();
  });

  const echo = rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
  const packing = rpc(1, 'prompts/get', { name: 'packing', arguments: { city: 'Oslo' } }, CAPS);
  const readme = rpc(1, 'resources/read', { uri: 'trips://readme' });
  const oldMeta = {
    ...echo,
    params: { ...echo.params, _meta: { [PV]: '2025-11-25', [CC]: {} } },
  };

  describe('400 −32020 when the request-metadata headers are missing or disagree with the body', () => {
    it.each([
      [
        'MCP-Protocol-Version missing on a body with stateless _meta',
        echo,
        without(headersFor(echo), 'mcp-protocol-version'),
        'the MCP-Protocol-Version header is required on every 2026-07-28 request',
      ],
      [
        'MCP-Protocol-Version older than the _meta version',
        echo,
        headersFor(echo, { 'mcp-protocol-version': '2025-11-25' }),
        'MCP-Protocol-Version is "2025-11-25" but _meta names "2026-07-28"',
      ],
      [
        'MCP-Protocol-Version newer than the _meta version',
        oldMeta,
        headersFor(oldMeta),
        'MCP-Protocol-Version is "2026-07-28" but _meta names "2025-11-25"',
      ],
      [
        'Mcp-Method missing',
        echo,
        without(headersFor(echo), 'mcp-method'),
        'the Mcp-Method header is required',
      ],
      [
        'Mcp-Method naming another method',
        echo,
        headersFor(echo, { 'mcp-method': 'tools/list' }),
        'Mcp-Method is "tools/list" but the body calls "tools/call"',
      ],
      [
        'Mcp-Method differing in case (values are case-sensitive)',
        echo,
        headersFor(echo, { 'mcp-method': 'Tools/Call' }),
        'Mcp-Method is "Tools/Call" but the body calls "tools/call"',
      ],
      [
        'Mcp-Name missing for tools/call',
        echo,
        without(headersFor(echo), 'mcp-name'),
        'the Mcp-Name header is required for tools/call',
      ],
      [
        'Mcp-Name missing for prompts/get',
        packing,
        without(headersFor(packing), 'mcp-name'),
        'the Mcp-Name header is required for prompts/get',
      ],
      [
        'Mcp-Name missing for resources/read',
        readme,
        without(headersFor(readme), 'mcp-name'),
        'the Mcp-Name header is required for resources/read',
      ],
      [
        'Mcp-Name naming another tool',
        echo,
        headersFor(echo, { 'mcp-name': 'plan_trip' }),
        'Mcp-Name does not match params.name',
      ],
      [
        'Mcp-Name naming another prompt',
        packing,
        headersFor(packing, { 'mcp-name': 'unpacking' }),
        'Mcp-Name does not match params.name',
      ],
      [
        'Mcp-Name naming another resource',
        readme,
        headersFor(readme, { 'mcp-name': 'trips://Oslo' }),
        'Mcp-Name does not match params.uri',
      ],
      [
        'Mcp-Name base64 that decodes to another tool',
        echo,
        headersFor(echo, { 'mcp-name': b64('plan_trip') }),
        'Mcp-Name does not match params.name',
      ],
      [
        'Mcp-Name with an upper-case sentinel, which is no encoding',
        echo,
        headersFor(echo, { 'mcp-name': `=?BASE64?${Buffer.from('echo').toString('base64')}?=` }),
        'Mcp-Name does not match params.name',
      ],
      [
        'Mcp-Name carrying raw non-ASCII instead of base64',
        rpc(1, 'resources/read', { uri: 'trips://Zürich' }),
        headersFor(rpc(1, 'resources/read', { uri: 'trips://Zürich' })),
        'Mcp-Name has characters a header value may not carry',
      ],
      [
        'Mcp-Name carrying a tab',
        echo,
        headersFor(echo, { 'mcp-name': 'ec\tho' }),
        'Mcp-Name has characters a header value may not carry',
      ],
    ])('%s', async (_case, body, headers, message) => {
      const response = await injectStateless(fastify, body, headers);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toEqual(mismatch(1, message));
    });

    it('accepts Mcp-Name as =?base64?…?= when it decodes to the body value (tool, prompt, non-ASCII URI)', async () => {
      const tool = await injectStateless(fastify, echo, headersFor(echo, { 'mcp-name': b64('echo') }));
      expect(tool.statusCode).toBe(200);
      expect(tool.json()).toEqual(textResult(1, 'hi'));

      const prompt = rpc(2, 'prompts/get', { name: 'packing', arguments: { city: 'Oslo' } });
      const noElicitation = await injectStateless(
        fastify,
        prompt,
        headersFor(prompt, { 'mcp-name': b64('packing') }),
      );
      // Past the header checks: the prompt itself needs elicitation.
      expect(noElicitation.statusCode).toBe(400);
      expect(noElicitation.json().error.code).toBe(-32021);

      const zurich = rpc(3, 'resources/read', { uri: 'trips://Zürich' });
      const resource = await injectStateless(
        fastify,
        zurich,
        headersFor(zurich, { 'mcp-name': b64('trips://Zürich') }),
      );
      expect(b64('trips://Zürich')).toBe('=?base64?dHJpcHM6Ly9aw7xyaWNo?=');
      expect(resource.statusCode).toBe(200);
      expect(resource.json()).toEqual({
        jsonrpc: '2.0',
        id: 3,
        result: {
          contents: [{ uri: 'trips://Zürich', mimeType: 'text/plain', text: 'About Zürich' }],
          ttlMs: 0,
          cacheScope: 'public',
          resultType: 'complete',
          _meta: DUAL_META,
        },
      });
    });
  });

  describe('Mcp-Param-* headers mirror x-mcp-header arguments', () => {
    const route = (args: Record<string, unknown>) =>
      rpc(7, 'tools/call', { name: 'plan_route', arguments: args });
    const call = (args: Record<string, unknown>, params: Record<string, string>) =>
      injectStateless(routeServer, route(args), headersFor(route(args), params));
    const ok = (text: string) => ({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text }], resultType: 'complete', _meta: ROUTE_META },
    });

    it.each([
      [
        'Mcp-Param-Region missing while the argument is present',
        { region: 'eu' },
        {},
        "the Mcp-Param-Region header is required: the argument 'region' has a value",
      ],
      [
        'Mcp-Param-Region present while the argument is absent',
        { days: 7 },
        { 'mcp-param-region': 'eu', 'mcp-param-days': '7' },
        "Mcp-Param-Region was sent but the argument 'region' has no value",
      ],
      [
        'Mcp-Param-Region present while the argument is null',
        { region: null },
        { 'mcp-param-region': 'eu' },
        "Mcp-Param-Region was sent but the argument 'region' has no value",
      ],
      [
        'Mcp-Param-Region different from the argument',
        { region: 'eu' },
        { 'mcp-param-region': 'us' },
        "Mcp-Param-Region does not match the argument 'region'",
      ],
      [
        'Mcp-Param-Region in base64 that decodes to another value',
        { region: 'eu' },
        { 'mcp-param-region': b64('us') },
        "Mcp-Param-Region does not match the argument 'region'",
      ],
      [
        // SEP-2243's test cases: Buffer.from would decode both to "Hello".
        'Mcp-Param-Region in base64 without its padding',
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVsbG8?=' },
        'Mcp-Param-Region is not valid Base64 inside =?base64?…?=',
      ],
      [
        'Mcp-Param-Region in base64 with characters outside the alphabet',
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' },
        'Mcp-Param-Region is not valid Base64 inside =?base64?…?=',
      ],
      [
        'Mcp-Param-Region with raw non-ASCII',
        { region: 'Ελλάδα' },
        { 'mcp-param-region': 'Ã©' },
        'Mcp-Param-Region has characters a header value may not carry',
      ],
      [
        'Mcp-Param-Region with a tab',
        { region: 'e u' },
        { 'mcp-param-region': 'e\tu' },
        'Mcp-Param-Region has characters a header value may not carry',
      ],
      [
        'Mcp-Param-Days 8 for the integer 7',
        { days: 7 },
        { 'mcp-param-days': '8' },
        "Mcp-Param-Days does not match the argument 'days'",
      ],
      [
        'Mcp-Param-Days that is no number',
        { days: 7 },
        { 'mcp-param-days': 'seven' },
        "Mcp-Param-Days does not match the argument 'days'",
      ],
      [
        'Mcp-Param-Days missing while the integer is present',
        { region: 'eu', days: 7 },
        { 'mcp-param-region': 'eu' },
        "the Mcp-Param-Days header is required: the argument 'days' has a value",
      ],
      [
        'Mcp-Param-Zone missing for a nested argument',
        { stop: { zone: 'z1' } },
        {},
        "the Mcp-Param-Zone header is required: the argument 'stop.zone' has a value",
      ],
    ])('400 −32020: %s', async (_case, args, params, message) => {
      const response = await call(args, params);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(mismatch(7, message));
    });

    it.each([
      ['plain string', { region: 'eu' }, { 'mcp-param-region': 'eu' }, 'eu/-/-'],
      [
        'base64 string (non-ASCII)',
        { region: 'Ελλάδα' },
        { 'mcp-param-region': b64('Ελλάδα') },
        'Ελλάδα/-/-',
      ],
      [
        'base64 string (surrounding spaces)',
        { region: ' eu ' },
        { 'mcp-param-region': b64(' eu ') },
        ' eu /-/-',
      ],
      ['integer "7" for 7', { days: 7 }, { 'mcp-param-days': '7' }, '-/7/-'],
      ['integer "7.0" for 7 (compared as numbers)', { days: 7 }, { 'mcp-param-days': '7.0' }, '-/7/-'],
      ['integer in base64', { days: 7 }, { 'mcp-param-days': b64('7') }, '-/7/-'],
      ['nested argument', { stop: { zone: 'z1' } }, { 'mcp-param-zone': 'z1' }, '-/-/z1'],
      ['no header for an absent argument', { note: 'n' }, {}, '-/-/-'],
      ['no header for a null argument', { region: null, note: 'n' }, {}, '-/-/-'],
    ])('200: %s', async (_case, args, params, text) => {
      const response = await call(args, params);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(ok(text));
    });

    it('compares header names case-insensitively', async () => {
      const body = route({ region: 'eu', days: 3 });
      const response = await routeServer.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          'Content-Type': 'application/json',
          Accept: ACCEPT,
          'MCP-PROTOCOL-VERSION': V,
          'MCP-METHOD': 'tools/call',
          'MCP-NAME': 'plan_route',
          'MCP-PARAM-REGION': 'eu',
          'mcp-param-DAYS': '3',
        },
        payload: JSON.stringify(body),
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(ok('eu/3/-'));
    });
  });

  describe('the era’s other status codes', () => {
    it('400 −32602: _meta without clientCapabilities', async () => {
      const body = { ...echo, params: { ...echo.params, _meta: { [PV]: V } } };
      const response = await injectStateless(fastify, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(
          1,
          -32602,
          'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is required on every 2026-07-28 request (an object; {} declares none)',
        ),
      );
    });

    it('400 −32602: a stateless header on a body without _meta', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const response = await injectStateless(fastify, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(
          1,
          -32602,
          'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is required on every 2026-07-28 request',
        ),
      );
    });

    it('400 −32022: a version in header and _meta that the server does not speak statelessly', async () => {
      const body = { ...echo, params: { ...echo.params, _meta: { [PV]: '2025-11-25', [CC]: {} } } };
      const response = await injectStateless(
        fastify,
        body,
        headersFor(body, { 'mcp-protocol-version': '2025-11-25' }),
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(
          1,
          -32022,
          'Unsupported protocol version: 2025-11-25; supported: 2026-07-28 (earlier revisions: send initialize)',
          {
            supported: ['2026-07-28'],
            requested: '2025-11-25',
          },
        ),
      );
    });

    it('400 −32022: an unknown stateless-looking header version is refused before the body is read', async () => {
      const response = await fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2027-01-01' },
        // Not even JSON: reading it would be a −32700 parse error.
        payload: '{"jsonrpc":',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(
          null,
          -32022,
          'Unsupported protocol version: MCP-Protocol-Version "2027-01-01"; supported: 2026-07-28 (earlier revisions: send initialize)',
          {
            supported: ['2026-07-28'],
            requested: '2027-01-01',
          },
        ),
      );
    });

    it('400 −32021: plan_trip without the elicitation capability names what is missing', async () => {
      const body = rpc(1, 'tools/call', { name: 'plan_trip', arguments: { city: 'Oslo' } });
      const response = await injectStateless(fastify, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(
          1,
          -32021,
          'Missing required client capability: ctx.elicit(): the client (unknown-client) did not declare form elicitation (capability elicitation.form)',
          { requiredCapabilities: { elicitation: { form: {} } } },
        ),
      );
    });

    it('400 −32021: root_uris without the roots capability; a handler that recovers answers 200', async () => {
      const roots = await injectStateless(fastify, rpc(1, 'tools/call', { name: 'root_uris' }));
      expect(roots.statusCode).toBe(400);
      expect(roots.json()).toEqual(
        error(
          1,
          -32021,
          'Missing required client capability: ctx.roots(): the client (unknown-client) did not declare the roots capability',
          { requiredCapabilities: { roots: {} } },
        ),
      );
      const polite = await injectStateless(fastify, rpc(2, 'tools/call', { name: 'polite_name' }));
      expect(polite.statusCode).toBe(200);
      expect(polite.json()).toEqual(textResult(2, 'anonymous'));
    });

    it('404 −32601: an unknown method, and ping (gone in 2026-07-28)', async () => {
      const unknown = await injectStateless(fastify, rpc(1, 'tools/frobnicate'));
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual(
        error(1, -32601, 'Method not found: tools/frobnicate', { method: 'tools/frobnicate' }),
      );
      const ping = await injectStateless(fastify, rpc(2, 'ping'));
      expect(ping.statusCode).toBe(404);
      expect(ping.json()).toEqual(error(2, -32601, 'Method not found: ping', { method: 'ping' }));
    });

    it('200 −32602 for other invalid params: an unknown tool, a missing resource', async () => {
      const tool = rpc(1, 'tools/call', { name: 'nope' });
      const unknownTool = await injectStateless(fastify, tool);
      expect(unknownTool.statusCode).toBe(200);
      expect(unknownTool.json()).toEqual(error(1, -32602, 'Unknown tool: nope', { name: 'nope' }));
      const missing = await injectStateless(fastify, rpc(2, 'resources/read', { uri: 'nope://x' }));
      expect(missing.statusCode).toBe(200);
      expect(missing.json()).toEqual(error(2, -32602, 'Resource not found: nope://x', { uri: 'nope://x' }));
    });

    it.each(['GET', 'DELETE'] as const)('405: %s with a stateless MCP-Protocol-Version', async (method) => {
      const response = await fastify.inject({
        method,
        url: '/mcp',
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': V, 'mcp-session-id': 'whatever' },
      });
      expect(response.statusCode).toBe(405);
      expect(response.json()).toEqual(
        error(
          null,
          -32601,
          method === 'GET'
            ? 'Method Not Allowed: 2026-07-28 has no GET stream; POST subscriptions/listen for notifications'
            : 'Method Not Allowed: 2026-07-28 has no session to end; there are no sessions',
        ),
      );
    });

    it('202 with no body: a notification POSTed with a stateless header', async () => {
      const response = await fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': V },
        payload: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 9 },
        }),
      });
      expect(response.statusCode).toBe(202);
      expect(response.body).toBe('');
    });

    it('400: a JSON-RPC response POSTed in the stateless era', async () => {
      const response = await fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': V },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(null, -32600, 'Invalid request: clients do not send JSON-RPC responses in 2026-07-28'),
      );
    });

    it('400: a batch with a stateless header', async () => {
      const response = await fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': V },
        payload: JSON.stringify([rpc(1, 'tools/list'), rpc(2, 'server/discover')]),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        error(null, -32600, 'Invalid request: 2026-07-28 has no JSON-RPC batches'),
      );
    });

    it('ignores Mcp-Session-Id (unknown or garbage: no 404, no session id back) and Last-Event-ID', async () => {
      const response = await injectStateless(
        fastify,
        echo,
        headersFor(echo, { 'mcp-session-id': 'no-such-session', 'last-event-id': 'stream.41' }),
      );
      expect(response.statusCode).toBe(200);
      expect(response.headers['mcp-session-id']).toBeUndefined();
      expect(response.json()).toEqual(textResult(1, 'hi'));
      expect(app.server.sessions.size).toBe(0);
    });

    it('initialize stays session era even with stateless headers', async () => {
      const response = await fastify.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': V },
        payload: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'c', version: '1' },
          },
        }),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['mcp-session-id']).toEqual(expect.any(String));
      expect(response.json().result.protocolVersion).toBe('2025-11-25');
    });
  });

  describe('caching hints', () => {
    it('server/discover is public for 5 minutes', async () => {
      const response = await injectStateless(fastify, rpc(1, 'server/discover'));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          supportedVersions: ['2026-07-28'],
          capabilities: {
            tools: { listChanged: true },
            resources: { subscribe: true, listChanged: true },
            prompts: { listChanged: true },
            logging: {},
            completions: {},
          },
          ttlMs: 300000,
          cacheScope: 'public',
          instructions: 'Plan trips.',
          resultType: 'complete',
          _meta: DUAL_META,
        },
      });
    });

    it('tools/list is private (admin_stats is guarded); prompts/list, with nothing guarded, is public', async () => {
      const tools = (await injectStateless(fastify, rpc(1, 'tools/list'))).json();
      expect(tools.result.tools.map((tool: { name: string }) => tool.name)).toEqual([
        'plan_trip',
        'echo',
        'root_uris',
        'log_levels',
        'wait_for_cancel',
        'trace',
        'polite_name',
        'toggle_extra',
        'journal_events',
      ]);
      expect({ ...tools.result, tools: undefined }).toEqual({
        tools: undefined,
        ttlMs: 60000,
        cacheScope: 'private',
        resultType: 'complete',
        _meta: DUAL_META,
      });
      const prompts = await injectStateless(fastify, rpc(2, 'prompts/list'));
      expect(prompts.json()).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: {
          prompts: [
            {
              name: 'packing',
              description: 'A packing list, personalised',
              arguments: [{ name: 'city', required: true }],
            },
          ],
          ttlMs: 60000,
          cacheScope: 'public',
          resultType: 'complete',
          _meta: DUAL_META,
        },
      });
    });

    it('resources/read is public on an endpoint without auth, with ttlMs 0', async () => {
      const response = await injectStateless(fastify, readme);
      expect(response.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          contents: [{ uri: 'trips://readme', mimeType: 'text/plain', text: 'Plan trips with plan_trip.' }],
          ttlMs: 0,
          cacheScope: 'public',
          resultType: 'complete',
          _meta: DUAL_META,
        },
      });
    });
  });
});

// --- Authenticated endpoint: principal binding of requestState, private reads -------------

const TOKENS: Record<string, AuthInfo> = {
  alice: { token: 'alice', subject: 'alice', clientId: 'app', scopes: [] },
  bob: { token: 'bob', subject: 'bob', clientId: 'app', scopes: [] },
  root: { token: 'root', subject: 'root', clientId: 'app', scopes: ['admin'] },
};
const AUTH = {
  verify: (token: string) => TOKENS[token],
  metadata: { authorizationServers: ['https://auth.example.com'] },
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The answer to give each input request plan_trip makes, by key. */
const ANSWERS: Record<string, unknown> = {
  'elicitation-1': { action: 'accept', content: { name: 'Ada' } },
  'elicitation-2': { action: 'accept', content: { confirm: true } },
  'sampling-3': { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Fjords!' } },
};

const planTrip = (id: number, city: string, retry?: { key: string; state: string }, extraMeta: object = {}) =>
  rpc(
    id,
    'tools/call',
    retry
      ? {
          name: 'plan_trip',
          arguments: { city },
          inputResponses: { [retry.key]: ANSWERS[retry.key] },
          requestState: retry.state,
        }
      : { name: 'plan_trip', arguments: { city } },
    CAPS,
    extraMeta,
  );

const elicitForm = (message: string, property: string, type: string) => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message,
    requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] },
  },
});

describe('multi round-trip requests over HTTP (fastify.inject)', () => {
  let app: App;
  let fastify: FastifyInstance;
  beforeAll(async () => {
    app = await createDualEraApp();
    fastify = await injectServer(app);
  });
  afterAll(async () => {
    await fastify.close();
    await app.close();
  });

  const send = async (body: ReturnType<typeof rpc>) => {
    const response = await injectStateless(fastify, body);
    return { status: response.statusCode, body: response.json() };
  };

  it('runs plan_trip to the end: three retries, each with a new id, ending "(stateless)"', async () => {
    const first = await send(planTrip(10, 'Oslo'));
    expect(first).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 10,
        result: {
          resultType: 'input_required',
          inputRequests: { 'elicitation-1': elicitForm('Who travels to Oslo?', 'name', 'string') },
          requestState: expect.any(String),
          _meta: DUAL_META,
        },
      },
    });
    const s1 = first.body.result.requestState as string;

    const second = await send(planTrip(11, 'Oslo', { key: 'elicitation-1', state: s1 }));
    expect(second).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 11,
        result: {
          resultType: 'input_required',
          inputRequests: { 'elicitation-2': elicitForm('Book Oslo for Ada?', 'confirm', 'boolean') },
          requestState: expect.any(String),
          _meta: DUAL_META,
        },
      },
    });
    const s2 = second.body.result.requestState as string;
    expect(s2).not.toBe(s1);

    const third = await send(planTrip(12, 'Oslo', { key: 'elicitation-2', state: s2 }));
    expect(third).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 12,
        result: {
          resultType: 'input_required',
          inputRequests: {
            'sampling-3': {
              method: 'sampling/createMessage',
              params: {
                messages: [{ role: 'user', content: { type: 'text', text: 'A slogan for Oslo' } }],
                maxTokens: 40,
              },
            },
          },
          requestState: expect.any(String),
          _meta: DUAL_META,
        },
      },
    });
    const s3 = third.body.result.requestState as string;

    const last = await send(planTrip(13, 'Oslo', { key: 'sampling-3', state: s3 }));
    expect(last).toEqual({ status: 200, body: textResult(13, 'Booked Oslo for Ada (stateless): Fjords!') });
  });

  it('runs prompts/get and resources/read round trips too', async () => {
    const prompt = (id: number, extra: object = {}) =>
      rpc(id, 'prompts/get', { name: 'packing', arguments: { city: 'Rome' }, ...extra }, CAPS);
    const first = await send(prompt(1));
    expect(first.body.result.inputRequests).toEqual({
      'elicitation-1': elicitForm('Packing for whom?', 'name', 'string'),
    });
    const done = await send(
      prompt(2, {
        inputResponses: { 'elicitation-1': ANSWERS['elicitation-1'] },
        requestState: first.body.result.requestState,
      }),
    );
    expect(done).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 2,
        result: {
          description: 'A packing list, personalised',
          messages: [{ role: 'user', content: { type: 'text', text: 'Packing list for Ada going to Rome' } }],
          resultType: 'complete',
          _meta: DUAL_META,
        },
      },
    });

    const read = (id: number, extra: object = {}) =>
      rpc(id, 'resources/read', { uri: 'trips://secret', ...extra }, CAPS);
    const ask = await send(read(3));
    expect(ask.body.result).toEqual({
      resultType: 'input_required',
      inputRequests: { 'elicitation-1': elicitForm('Who reads the secret?', 'name', 'string') },
      requestState: expect.any(String),
      _meta: DUAL_META,
    });
    const secret = await send(
      read(4, {
        inputResponses: { 'elicitation-1': ANSWERS['elicitation-1'] },
        requestState: ask.body.result.requestState,
      }),
    );
    expect(secret).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 4,
        result: {
          contents: [{ uri: 'trips://secret', mimeType: 'text/plain', text: 'Secret for Ada' }],
          ttlMs: 0,
          cacheScope: 'public',
          resultType: 'complete',
          _meta: DUAL_META,
        },
      },
    });
  });

  const INTEGRITY =
    'Invalid params: requestState failed its integrity check; it was altered or issued by a server with another key. Send the request again without requestState and inputResponses';

  it('200 −32602: a tampered requestState (forged answers under the old MAC, or garbage)', async () => {
    const first = await send(planTrip(20, 'Oslo'));
    const s1 = first.body.result.requestState as string;
    const second = await send(planTrip(21, 'Oslo', { key: 'elicitation-1', state: s1 }));
    const s2 = second.body.result.requestState as string;
    // Rewrite the answers the state carries (Ada → Eve), keeping its signature.
    const [payload, mac] = s2.split('.');
    const decoded = Buffer.from(payload, 'base64url').toString('utf8');
    expect(decoded).toContain('"Ada"');
    const forged = `${Buffer.from(decoded.replace('"Ada"', '"Eve"'), 'utf8').toString('base64url')}.${mac}`;
    expect(await send(planTrip(22, 'Oslo', { key: 'elicitation-2', state: forged }))).toEqual({
      status: 200,
      body: error(22, -32602, INTEGRITY),
    });
    expect(await send(planTrip(23, 'Oslo', { key: 'elicitation-2', state: 'not-a-state' }))).toEqual({
      status: 200,
      body: error(23, -32602, INTEGRITY),
    });
    // The untouched state still works: the refusals were about the tampering.
    expect(
      (await send(planTrip(24, 'Oslo', { key: 'elicitation-2', state: s2 }))).body.result.inputRequests,
    ).toEqual(expect.objectContaining({ 'sampling-3': expect.any(Object) }));
  });

  const OTHER_REQUEST =
    'Invalid params: requestState belongs to another request (it was issued for a tools/call with other parameters); echo it only in the retry of the request that returned it';

  it('200 −32602: a requestState replayed against another tool, another prompt or other arguments', async () => {
    const first = await send(planTrip(30, 'Oslo'));
    const state = first.body.result.requestState as string;
    const retry = { inputResponses: { 'elicitation-1': ANSWERS['elicitation-1'] }, requestState: state };
    expect(await send(rpc(31, 'tools/call', { name: 'polite_name', ...retry }, CAPS))).toEqual({
      status: 200,
      body: error(31, -32602, OTHER_REQUEST),
    });
    expect(await send(planTrip(32, 'Bergen', { key: 'elicitation-1', state }))).toEqual({
      status: 200,
      body: error(32, -32602, OTHER_REQUEST),
    });
    expect(
      await send(rpc(33, 'prompts/get', { name: 'packing', arguments: { city: 'Oslo' }, ...retry }, CAPS)),
    ).toEqual({
      status: 200,
      body: error(
        33,
        -32602,
        'Invalid params: requestState belongs to another request (it was issued for a tools/call with other parameters); echo it only in the retry of the request that returned it',
      ),
    });
  });

  it('200: a retry that leaves the asked input unanswered, or answers without a state, is asked again', async () => {
    const first = await send(planTrip(40, 'Oslo'));
    const state = first.body.result.requestState as string;
    for (const [id, params] of [
      [41, { inputResponses: {}, requestState: state }],
      [42, { inputResponses: { x: {} } }],
    ] as const) {
      const again = await send(
        rpc(id, 'tools/call', { name: 'plan_trip', arguments: { city: 'Oslo' }, ...params }, CAPS),
      );
      expect(again.status).toBe(200);
      expect(again.body.result.resultType).toBe('input_required');
      expect(again.body.result.inputRequests).toEqual(first.body.result.inputRequests);
    }
  });
});

describe('an authenticated endpoint (plugin auth with a custom verify hook)', () => {
  let app: App;
  let fastify: FastifyInstance;
  beforeAll(async () => {
    app = await createDualEraApp();
    fastify = await injectServer(app, { auth: AUTH });
  });
  afterAll(async () => {
    await fastify.close();
    await app.close();
  });

  const send = async (body: ReturnType<typeof rpc>, token: string) => {
    const response = await injectStateless(fastify, body, headersFor(body, bearer(token)));
    return { status: response.statusCode, body: response.json() };
  };

  it('401 before anything else without a token', async () => {
    const response = await injectStateless(fastify, rpc(1, 'tools/list'));
    expect(response.statusCode).toBe(401);
  });

  it('200 −32602: a requestState issued to alice and replayed by bob', async () => {
    const first = await send(planTrip(1, 'Oslo'), 'alice');
    expect(first.status).toBe(200);
    const state = first.body.result.requestState as string;
    expect(await send(planTrip(2, 'Oslo', { key: 'elicitation-1', state }), 'bob')).toEqual({
      status: 200,
      body: error(2, -32602, 'Invalid params: requestState was issued to another caller'),
    });
    // Alice herself continues.
    const own = await send(planTrip(3, 'Oslo', { key: 'elicitation-1', state }), 'alice');
    expect(own.body.result.inputRequests).toEqual({
      'elicitation-2': elicitForm('Book Oslo for Ada?', 'confirm', 'boolean'),
    });
  });

  it('resources/read is private on an authenticated endpoint', async () => {
    expect(await send(rpc(1, 'resources/read', { uri: 'trips://readme' }), 'alice')).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          contents: [{ uri: 'trips://readme', mimeType: 'text/plain', text: 'Plan trips with plan_trip.' }],
          ttlMs: 0,
          cacheScope: 'private',
          resultType: 'complete',
          _meta: DUAL_META,
        },
      },
    });
  });

  it('tools/list is private and depends on the caller: admin_stats only for the admin scope', async () => {
    const names = (body: { result: { tools: { name: string }[] } }) => body.result.tools.map((t) => t.name);
    const alice = await send(rpc(1, 'tools/list'), 'alice');
    const root = await send(rpc(2, 'tools/list'), 'root');
    expect(alice.body.result.cacheScope).toBe('private');
    expect(root.body.result.cacheScope).toBe('private');
    expect(names(alice.body)).not.toContain('admin_stats');
    expect(names(root.body)).toContain('admin_stats');
    expect(await send(rpc(3, 'tools/call', { name: 'admin_stats' }), 'root')).toEqual({
      status: 200,
      body: textResult(3, 'stats'),
    });
  });
});

// --- Real sockets: SSE answers, subscriptions/listen, cancellation by disconnect ----------

type Server = Awaited<ReturnType<typeof listenOn>>;

const progress = (token: string, value: number, message: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: token, progress: value, total: 3, message },
});

describe('SSE answers in the stateless era (real sockets)', () => {
  let app: App;
  let server: Server;
  beforeAll(async () => {
    app = await createDualEraApp();
    server = await listenOn(app);
  });
  afterAll(async () => {
    await server.fastify.close();
    await app.close();
  });

  it('streams progress before the response: no event ids, no retry priming, X-Accel-Buffering: no', async () => {
    const response = await server.post(planTrip(1, 'Oslo', undefined, { progressToken: 'p1' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const reader = new SseReader(response);
    const events = await reader.rest();
    expect(events).toEqual([
      progress('p1', 1, 'asking who travels'),
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          resultType: 'input_required',
          inputRequests: { 'elicitation-1': elicitForm('Who travels to Oslo?', 'name', 'string') },
          requestState: expect.any(String),
          _meta: DUAL_META,
        },
      },
    ]);
    expect(reader.text).toMatch(/^data: /);
    expect(reader.text).not.toMatch(/^id:/m);
    expect(reader.text).not.toMatch(/^retry:/m);
  });

  it('ends a full round trip with progress and an opted-in log on the last retry’s stream, the response last', async () => {
    let state: string | undefined;
    let key: string | undefined;
    for (const [id, next] of [
      [1, 'elicitation-1'],
      [2, 'elicitation-2'],
      [3, 'sampling-3'],
    ] as const) {
      const body = planTrip(id, 'Oslo', state && key ? { key, state } : undefined, {
        progressToken: `p${id}`,
      });
      const events = (await new SseReader(await server.post(body)).rest()) as { result?: any }[];
      const last = events.at(-1)?.result;
      expect(Object.keys(last.inputRequests)).toEqual([next]);
      state = last.requestState;
      key = next;
    }
    const response = await server.post(
      planTrip(
        4,
        'Oslo',
        { key: 'sampling-3', state: state as string },
        {
          progressToken: 'p4',
          'io.modelcontextprotocol/logLevel': 'info',
        },
      ),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(response);
    expect(await reader.rest()).toEqual([
      progress('p4', 1, 'asking who travels'),
      progress('p4', 2, 'asking to confirm'),
      progress('p4', 3, 'done'),
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: { booked: 'Oslo', for: 'Ada' } },
      },
      textResult(4, 'Booked Oslo for Ada (stateless): Fjords!'),
    ]);
    expect(reader.text).not.toMatch(/^(id|retry):/m);
  });

  it('sends log messages only at or above the requested level, and none without one', async () => {
    const withLevel = await server.post(
      rpc(5, 'tools/call', { name: 'log_levels' }, {}, { 'io.modelcontextprotocol/logLevel': 'error' }),
    );
    expect(await new SseReader(withLevel).rest()).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error message' } },
      textResult(5, 'logged'),
    ]);
    const without = await server.post(rpc(6, 'tools/call', { name: 'log_levels' }));
    expect(without.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await without.json()).toEqual(textResult(6, 'logged'));
  });

  it("answers application/json with responseMode 'json', progress token or not", async () => {
    const jsonApp = await createDualEraApp();
    const json = await listenOn(jsonApp, { responseMode: 'json' });
    const response = await json.post(planTrip(7, 'Oslo', undefined, { progressToken: 'p7' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        resultType: 'input_required',
        inputRequests: { 'elicitation-1': elicitForm('Who travels to Oslo?', 'name', 'string') },
        requestState: expect.any(String),
        _meta: DUAL_META,
      },
    });
    await json.fastify.close();
    await jsonApp.close();
  });

  it("responseMode 'sse' streams once a notification precedes the answer, never with a priming event; a bare answer stays JSON so its status can say 404 or 400", async () => {
    const sseApp = await createDualEraApp();
    const sse = await listenOn(sseApp, { responseMode: 'sse' });
    const plain = await sse.post(rpc(8, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await plain.json()).toEqual(textResult(8, 'hi'));
    const unknown = await sse.post(rpc(9, 'no/such/method', {}));
    expect(unknown.status).toBe(404);
    await unknown.body?.cancel();
    const streamed = await sse.post(
      rpc(10, 'tools/call', { name: 'log_levels' }, {}, { 'io.modelcontextprotocol/logLevel': 'error' }),
    );
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(streamed);
    const events = await reader.rest();
    expect(
      events.map((e) => (e as { method?: string; id?: unknown }).method ?? (e as { id?: unknown }).id),
    ).toEqual(['notifications/message', 10]);
    expect(reader.text.startsWith('data: ')).toBe(true);
    expect(reader.text).not.toMatch(/^(id|retry):/m);
    await sse.fastify.close();
    await sseApp.close();
  });
});

const ack = (id: string, notifications: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'notifications/subscriptions/acknowledged',
  params: { notifications, _meta: { [SUB]: id } },
});
const changed = (id: string, what = 'tools') => ({
  jsonrpc: '2.0',
  method: `notifications/${what}/list_changed`,
  params: { _meta: { [SUB]: id } },
});
const updated = (id: string, uri: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri, _meta: { [SUB]: id } },
});
const finalResult = (id: string) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', _meta: { [SUB]: id, ...DUAL_META } },
});

describe('subscriptions/listen over real HTTP', () => {
  let app: App;
  let server: Server;
  beforeEach(async () => {
    app = await createDualEraApp();
    server = await listenOn(app);
  });
  afterEach(async () => {
    await server.fastify.close();
    await app.close();
  });

  /** Opens a listen stream; resolves once its acknowledgement arrived. */
  async function listen(id: string, notifications: Record<string, unknown>, on: Server = server) {
    const controller = new AbortController();
    const response = await on.post(
      rpc(id, 'subscriptions/listen', { notifications }),
      undefined,
      controller.signal,
    );
    const reader = new SseReader(response);
    const first = await reader.next();
    return { response, reader, controller, first };
  }

  const call = async (id: number, name: string) => {
    const response = await server.post(rpc(id, 'tools/call', { name }));
    expect(response.status).toBe(200);
    return response.json();
  };

  it('acknowledges first, with the honoured filter and the listen id as subscriptionId', async () => {
    const stream = await listen('L1', {
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ['trips://readme'],
      taskIds: ['t-1'],
    });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.first).toEqual(
      ack('L1', { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] }),
    );
    expect(stream.reader.text).toMatch(/^data: /);
    expect(app.server.hub.size).toBe(1);
    stream.controller.abort();
  });

  it('delivers tools/list_changed from a stateless POST and from a session-era session, tagged', async () => {
    const stream = await listen('L2', { toolsListChanged: true });
    expect(stream.first).toEqual(ack('L2', { toolsListChanged: true }));
    expect(await call(1, 'toggle_extra')).toEqual(textResult(1, 'added'));
    expect(await stream.reader.next()).toEqual(changed('L2'));

    // A session-era client: initialize, initialized, then the same tool inside its session.
    const init = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id') as string;
    expect(session).toEqual(expect.any(String));
    const legacy = {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    };
    await fetch(server.url, {
      method: 'POST',
      headers: legacy,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const toggled = await fetch(server.url, {
      method: 'POST',
      headers: legacy,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'toggle_extra' } }),
    });
    expect(await toggled.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'removed' }] },
    });
    expect(await stream.reader.next()).toEqual(changed('L2'));
    stream.controller.abort();
  });

  it('delivers resources/updated for subscribed URIs only', async () => {
    const stream = await listen('L3', { resourceSubscriptions: ['trips://readme'] });
    expect(stream.first).toEqual(ack('L3', { resourceSubscriptions: ['trips://readme'] }));
    await app.resources.updated('trips://Oslo');
    await app.resources.updated('trips://readme');
    expect(await stream.reader.next()).toEqual(updated('L3', 'trips://readme'));
    // Not subscribed to tool changes: nothing for toggle_extra either.
    await call(1, 'toggle_extra');
    await app.resources.updated('trips://readme');
    expect(await stream.reader.next()).toEqual(updated('L3', 'trips://readme'));
    stream.controller.abort();
  });

  it('sends keep-alive comments with sse.keepAliveMs', async () => {
    const keepApp = await createDualEraApp();
    const keep = await listenOn(keepApp, { sse: { keepAliveMs: 50 } });
    const stream = await listen('K1', { toolsListChanged: true }, keep);
    expect(stream.first).toEqual(ack('K1', { toolsListChanged: true }));
    const item = await stream.reader.nextItem();
    expect(item).toEqual({ comment: ': keep-alive' });
    stream.controller.abort();
    await keep.fastify.close();
    await keepApp.close();
  });

  it('is SSE even with responseMode json', async () => {
    const jsonApp = await createDualEraApp();
    const json = await listenOn(jsonApp, { responseMode: 'json' });
    const stream = await listen('J1', { toolsListChanged: true }, json);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.first).toEqual(ack('J1', { toolsListChanged: true }));
    stream.controller.abort();
    await json.fastify.close();
    await jsonApp.close();
  });

  it('drops the listener when the client closes the stream; later changes do not throw; a new listen works', async () => {
    const stream = await listen('L4', { toolsListChanged: true });
    expect(app.server.hub.size).toBe(1);
    stream.controller.abort();
    // The hub drops the listener when the server notices the closed socket; nothing announces that.
    await eventually(() => app.server.hub.size === 0, { what: 'the hub to drop the closed listen stream' });
    expect(await call(1, 'toggle_extra')).toEqual(textResult(1, 'added'));
    await app.resources.updated('trips://readme');

    const again = await listen('L5', { toolsListChanged: true });
    expect(again.first).toEqual(ack('L5', { toolsListChanged: true }));
    expect(await call(2, 'toggle_extra')).toEqual(textResult(2, 'removed'));
    expect(await again.reader.next()).toEqual(changed('L5'));
    again.controller.abort();
  });

  it('never carries progress or log notifications of other requests', async () => {
    const stream = await listen('L6', { toolsListChanged: true, resourceSubscriptions: ['trips://readme'] });
    const trip = await server.post(
      planTrip(1, 'Oslo', undefined, { progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'debug' }),
    );
    expect(((await new SseReader(trip).rest())[0] as { method: string }).method).toBe(
      'notifications/progress',
    );
    const logs = await server.post(
      rpc(2, 'tools/call', { name: 'log_levels' }, {}, { 'io.modelcontextprotocol/logLevel': 'debug' }),
    );
    expect(await new SseReader(logs).rest()).toHaveLength(3);
    await call(3, 'toggle_extra');
    expect(await stream.reader.next()).toEqual(changed('L6'));
    stream.controller.abort();
  });

  it('ends an open listen with its final result when Fastify closes', async () => {
    const stream = await listen('L7', { toolsListChanged: true });
    const closing = server.fastify.close();
    expect(await stream.reader.rest()).toEqual([finalResult('L7')]);
    expect(stream.reader.ended).toBe(true);
    await closing;
    expect(app.server.hub.size).toBe(0);
  });

  it('ends an open listen with its final result when the app closes', async () => {
    const stream = await listen('L8', { resourceSubscriptions: ['trips://readme'] });
    const closing = app.close();
    expect(await stream.reader.rest()).toEqual([finalResult('L8')]);
    await closing;
    expect(app.server.hub.size).toBe(0);
  });
});

describe('cancellation by disconnect (real sockets)', () => {
  const journal = async (server: Server) => {
    const response = await server.post(rpc('j', 'tools/call', { name: 'journal_events' }));
    const answer = (
      response.headers.get('content-type') === 'text/event-stream'
        ? (await new SseReader(response).rest()).at(-1)
        : await response.json()
    ) as { result: { content: { text: string }[] } };
    return answer.result.content[0].text;
  };

  it.each([
    ['auto (JSON pending)', 'auto'],
    ['sse (stream open)', 'sse'],
  ] as const)('treats a closed POST as cancellation, responseMode %s', async (_case, responseMode) => {
    const app = await createDualEraApp();
    const server = await listenOn(app, { responseMode });
    const controller = new AbortController();
    const pending = server
      .post(rpc(1, 'tools/call', { name: 'wait_for_cancel' }), undefined, controller.signal)
      .then((response) => response.text())
      .catch((reason: Error) => reason.name);
    // The tool records into the app's Journal: each entry is the event awaited.
    const events = app.get(Journal).events;
    const recorded = new Changes();
    const push = events.push.bind(events);
    events.push = (...entries) => {
      const length = push(...entries);
      recorded.changed();
      return length;
    };
    await recorded.until(() => events.includes('wait started'), { what: 'the tool to start' });
    expect(await journal(server)).toBe('wait started');
    controller.abort();
    expect(await pending).toBe('AbortError');
    await recorded.until(() => events.length > 1, { what: 'the tool to see the cancellation' });
    expect(await journal(server)).toBe('wait started|wait cancelled');
    await server.fastify.close();
    await app.close();
  });
});
