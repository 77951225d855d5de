// Stateless-era (2026-07-28) edge cases that once went wrong: a final listen result racing the
// stdio notification gap, a signature altered in its last character, handlers outside the
// round-trip methods asking for input, and malformed answers.
import 'reflect-metadata';
import {
  Args,
  Complete,
  type CompletionContext,
  Ctx,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
  Param,
  Prompt,
  Resource,
  ResourceList,
} from '@gantry/core';
import { IsString } from 'class-validator';
import { createDualEraApp } from './fixtures/dual-era-app';
import { openWire, type Wire } from './support/wire';

const K = {
  version: 'io.modelcontextprotocol/protocolVersion',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
const META = {
  [K.version]: '2026-07-28',
  [K.capabilities]: { elicitation: { form: {} }, sampling: {}, roots: {} },
};

function request(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } };
}

const isRequest = (message: any) => 'method' in message && 'id' in message;

let app: GantryApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('subscriptions/listen: final result on shutdown', () => {
  // app.close() shortly after a listen's acknowledgement (a notification of the listen request)
  // must still write the listen's final { resultType: "complete" } result before the transport
  // closes (a response once held back behind its notifications by a timer was lost here).
  it('app.close() right after the acknowledgement still writes the final result', async () => {
    app = await createDualEraApp();
    const wire = await openWire(app);
    wire.send(request('L', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    expect((await wire.next()).method).toBe('notifications/subscriptions/acknowledged');
    await app.close();
    expect(await wire.next(1000)).toEqual({
      jsonrpc: '2.0',
      id: 'L',
      result: {
        resultType: 'complete',
        _meta: { [K.subscriptionId]: 'L', [K.serverInfo]: { name: 'dual-era', version: '1.0.0' } },
      },
    });
  });
});

describe('requestState: integrity', () => {
  // packages/core/src/stateless/request-state.ts, RequestStateCodec.open(): the MAC is compared
  // after base64url-decoding the client's text, and Node's decoder ignores the unused low bits of
  // the last character (32 bytes = 42 characters + 4 bits), so a requestState that differs from
  // the issued one in its last character is accepted. Harmless for the payload, but the token is
  // malleable and "altered" states pass the integrity check.
  // Fix: compare the MAC text itself (e.g. timingSafeEqual(Buffer.from(mac), Buffer.from(this.sign(body)))
  // after a length check), or re-encode the decoded MAC and require it to equal `mac`.
  it('refuses a state whose last signature character was changed', async () => {
    app = await createDualEraApp();
    const wire = await openWire(app);
    const oslo = { name: 'plan_trip', arguments: { city: 'Oslo' } };
    wire.send(request(1, 'tools/call', oslo));
    const state: string = (await wire.next()).result.requestState;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(state.at(-1) as string);
    const altered = `${state.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(altered).not.toBe(state);
    wire.send(
      request(2, 'tools/call', {
        ...oslo,
        requestState: altered,
        inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
      }),
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message:
          'Invalid params: requestState failed its integrity check; it was altered or issued by a server with another key. Send the request again without requestState and inputResponses',
      },
    });
  });
});

describe('input requests outside tools/call, prompts/get and resources/read', () => {
  // packages/core/src/stateless/stateless-dispatcher.ts: only tools/call, prompts/get and
  // resources/read get an InputRound. A handler of any other method (a @Complete completer for
  // completion/complete, a @ResourceList lister for resources/list) sees no round, so in
  // packages/core/src/context/mcp-context.ts ctx.elicit()/ctx.sample() fall back to
  // inbound.sendRequest(): the server writes a JSON-RPC request (elicitation/create) in the
  // stateless era, which 2026-07-28 forbids, waits for an answer no stateless client sends, and
  // then writes notifications/cancelled for it (also forbidden except to end a listen).
  // ctx.roots() silently answers [] (StatelessCall.listRoots), so the handler cannot tell.
  // Fix: in StatelessDispatcher.handle(), give every other method `call.inputRound = new
  // InputRound([], false, request.method)` (InputRound already rejects with "only tools/call,
  // prompts/get and resources/read may return input_required" when not allowed), and/or make
  // McpContext reject when session.era === 'stateless' and there is no round.
  class City {
    @IsString() city!: string;
  }
  class Traveller {
    @IsString() name!: string;
  }

  @Injectable()
  class AskingEverywhere {
    @Prompt({ description: 'A guide' })
    guide(@Args() args: City) {
      return `Guide to ${args.city}`;
    }

    @Complete('city')
    async completeCity(prefix: string, context: CompletionContext) {
      const who = await context.mcp.elicit(Traveller, 'Who is asking?');
      return [`${prefix}-${who.action}`];
    }

    @Resource({ uri: 'maps://{area}', name: 'map' })
    map(@Param('area') area: string) {
      return `Map of ${area}`;
    }

    @ResourceList()
    async areas(@Ctx() ctx: McpContext) {
      const roots = await ctx.roots();
      return roots.map((root) => ({ uri: `maps://${root.name}`, name: String(root.name) }));
    }
  }

  @Module({ providers: [AskingEverywhere] })
  class AskingModule {}

  async function startAsking(): Promise<Wire> {
    app = await GantryFactory.create(AskingModule, {
      name: 'asking',
      version: '1.0.0',
      logger: false,
      requestTimeoutMs: 300,
      stateless: { requestStateKey: 'k'.repeat(32) },
    });
    return openWire(app);
  }

  it('ctx.elicit() in a completer answers with an error and writes no request', async () => {
    const wire = await startAsking();
    wire.send(
      request(1, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'guide' },
        argument: { name: 'city', value: 'Os' },
      }),
    );
    let response = await wire.next(2000);
    while (response.id !== 1) response = await wire.next(2000);
    expect(response.error).toBeDefined();
    expect(wire.seen.filter(isRequest)).toEqual([]);
    expect(wire.seen.filter((message) => message.method === 'notifications/cancelled')).toEqual([]);
  });

  it('ctx.roots() in a resource lister fails instead of answering no roots', async () => {
    const wire = await startAsking();
    wire.send(request(1, 'resources/list'));
    const response = await wire.next(2000);
    expect(response.id).toBe(1);
    expect(response.error).toBeDefined();
  });
});

describe('malformed input responses', () => {
  // packages/core/src/stateless/stateless-dispatcher.ts, roundTrips(): the answers in
  // inputResponses are replayed to the handler unchecked. An elicitation answer with an action
  // other than accept/decline/cancel reaches ctx.elicit(), which throws, and the tool turns that
  // into a complete result with isError: true. 2026-07-28 MRTR: malformed input is answered with
  // a JSON-RPC error (it is the client's request that is wrong, not the tool).
  // Fix: check each expected answer against the shape of its input request (ElicitResult:
  // action ∈ accept/decline/cancel, content an object; CreateMessageResult: role + content;
  // ListRootsResult: roots array) before replaying, and answer −32602 naming the key.
  it('answers an elicitation answer with an unknown action with −32602', async () => {
    app = await createDualEraApp();
    const wire = await openWire(app);
    const oslo = { name: 'plan_trip', arguments: { city: 'Oslo' } };
    wire.send(request(1, 'tools/call', oslo));
    const state: string = (await wire.next()).result.requestState;
    wire.send(
      request(2, 'tools/call', {
        ...oslo,
        requestState: state,
        inputResponses: { 'elicitation-1': { action: 'maybe' } },
      }),
    );
    const response = await wire.next();
    expect(response.id).toBe(2);
    expect(response.error?.code).toBe(-32602);
  });
});
