import 'reflect-metadata';
import {
  Ctx,
  Extension,
  ExtensionMethod,
  type GantryApplication,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
  Tool,
} from '@gantry/core';

const GREETER = 'com.example/greeter';

@Injectable()
@Extension({ id: GREETER, settings: { languages: ['en', 'fr'] } })
class Greeter {
  @ExtensionMethod('greeter/hello')
  hello(params: { name?: string }, ctx: McpContext) {
    const settings = ctx.extensions.require<{ language?: string }>(GREETER);
    return { text: `${settings.language === 'fr' ? 'bonjour' : 'hello'} ${params.name ?? 'you'}` };
  }

  @ExtensionMethod('greeter/peek')
  peek(_params: object, ctx: McpContext) {
    return {
      declared: ctx.extensions.ids(),
      has: ctx.extensions.has(GREETER),
      settings: ctx.extensions.get(GREETER) ?? null,
    };
  }
}

@Injectable()
class Tools {
  @Tool({ description: 'Greets in the client’s language, if it speaks the greeter extension' })
  greet(@Ctx() ctx: McpContext) {
    return ctx.extensions.require<{ language?: string }>(GREETER).language ?? 'en';
  }
}

@Module({ providers: [Greeter, Tools] })
class AppModule {}

let app: GantryApplication;
beforeAll(async () => {
  app = await GantryFactory.create(AppModule, { name: 'ext', version: '1.0.0', logger: false });
});
afterAll(() => app.close());

const withGreeter = (settings: object = {}) => ({ extensions: { [GREETER]: settings } });

describe('extensions in the session era', () => {
  it('advertises capabilities.extensions[id] with the settings in the initialize result', async () => {
    const answers = await app.inject({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    expect(answers[0].result.capabilities.extensions).toEqual({ [GREETER]: { languages: ['en', 'fr'] } });
  });

  it('serves the extension method and reads what initialize declared', async () => {
    const answers = await app.inject(
      [
        { jsonrpc: '2.0', id: 1, method: 'greeter/hello', params: { name: 'Ada' } },
        { jsonrpc: '2.0', id: 2, method: 'greeter/peek', params: {} },
      ],
      {
        initialize: {
          capabilities: { extensions: { [GREETER]: { language: 'fr' }, 'org.other/unknown': { x: 1 } } },
        },
      },
    );
    expect(answers[0].result).toEqual({ text: 'bonjour Ada' });
    expect(answers[1].result).toEqual({
      declared: [GREETER, 'org.other/unknown'],
      has: true,
      settings: { language: 'fr' },
    });
  });

  it('a client without the extension: require fails the tool as a tool error naming it', async () => {
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {} } },
      { initialize: true },
    );
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toContain(`needs the client extension ${GREETER}`);
  });

  it('an extension method the client lacks the extension for: −32602 naming it (no −32021 before 2026-07-28)', async () => {
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'greeter/hello', params: {} },
      { initialize: true },
    );
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain(`needs the client extension ${GREETER}`);
  });

  it('a settings value that is not an object is not a declaration', async () => {
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'greeter/peek', params: {} },
      { initialize: { capabilities: { extensions: { [GREETER]: true as unknown as object } } } },
    );
    expect(answer.result).toEqual({ declared: [], has: false, settings: null });
  });
});

describe('extensions in the stateless era (2026-07-28)', () => {
  it('advertises them in server/discover', async () => {
    const [answer] = await app.inject(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} },
      { stateless: true },
    );
    expect(answer.result.capabilities.extensions).toEqual({ [GREETER]: { languages: ['en', 'fr'] } });
  });

  it('reads each request’s own client capabilities', async () => {
    const answers = await app.inject(
      [
        { jsonrpc: '2.0', id: 1, method: 'greeter/hello', params: { name: 'Ada' } },
        { jsonrpc: '2.0', id: 2, method: 'greeter/peek', params: {} },
      ],
      { stateless: { clientCapabilities: withGreeter({ language: 'en' }) } },
    );
    expect(answers[0].result).toMatchObject({ text: 'hello Ada', resultType: 'complete' });
    expect(answers[1].result).toMatchObject({ has: true, settings: { language: 'en' } });
  });

  it('a request without the extension gets −32021 with data.requiredCapabilities, from a method and from a tool', async () => {
    const answers = await app.inject(
      [
        { jsonrpc: '2.0', id: 1, method: 'greeter/hello', params: {} },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: {} } },
      ],
      { stateless: true },
    );
    for (const answer of answers) {
      expect(answer.error?.code).toBe(-32021);
      expect(answer.error?.data).toEqual({ requiredCapabilities: { extensions: { [GREETER]: {} } } });
      expect(answer.error?.message).toContain(GREETER);
    }
  });
});

describe('declaring extensions: mistakes are named at decoration or bootstrap', () => {
  it('an id without a vendor prefix', () => {
    expect(() => Extension({ id: 'greeter' })(class Bad {})).toThrow(
      /id must look like "\{vendor-prefix\}\/\{name\}"/,
    );
  });

  it('a method name MCP defines', async () => {
    @Injectable()
    @Extension({ id: 'com.example/thief' })
    class Thief {
      @ExtensionMethod('tools/list')
      list() {
        return { tools: [] };
      }
    }
    @Module({ providers: [Thief] })
    class ThiefModule {}
    await expect(
      GantryFactory.create(ThiefModule, { name: 'x', version: '1', logger: false }),
    ).rejects.toThrow(
      'Thief (extension com.example/thief) cannot serve tools/list: MCP itself defines that method',
    );
  });

  it('one id declared by two classes', async () => {
    @Injectable()
    @Extension({ id: GREETER })
    class Twin {}
    @Module({ providers: [Greeter, Twin] })
    class TwinModule {}
    await expect(
      GantryFactory.create(TwinModule, { name: 'x', version: '1', logger: false }),
    ).rejects.toThrow(`The extension ${GREETER} is declared by both Greeter and Twin`);
  });

  it('an extension method on a class that declares no extension', async () => {
    @Injectable()
    class Stray {
      @ExtensionMethod('stray/go')
      go() {
        return {};
      }
    }
    @Module({ providers: [Stray] })
    class StrayModule {}
    await expect(
      GantryFactory.create(StrayModule, { name: 'x', version: '1', logger: false }),
    ).rejects.toThrow("Stray has @ExtensionMethod('stray/go') but no @Extension({ id }) on the class");
  });

  it('an app without extensions advertises none', async () => {
    @Module({ providers: [Tools] })
    class Plain {}
    const plain = await GantryFactory.create(Plain, { name: 'x', version: '1', logger: false });
    const [answer] = await plain.inject(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} },
      { stateless: true },
    );
    expect(answer.result.capabilities.extensions).toBeUndefined();
    await plain.close();
  });
});
