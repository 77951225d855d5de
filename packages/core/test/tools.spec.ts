import {
  Args,
  Ctx,
  Description,
  GantryFactory,
  Injectable,
  type McpContext,
  Module,
  Prompt,
  Tool,
} from '@gantry/core';
import { Test } from '@gantry/testing';
import { IsString } from 'class-validator';
import { createEchoApp } from './support/echo-app';
import { handshake, openWire } from './support/wire';

const create = (module: Function, options: Record<string, unknown> = {}) =>
  GantryFactory.create(module as never, { name: 't', version: '1', logger: false, ...options });

class Query {
  @IsString()
  @Description('What to look for')
  q!: string;
}

describe('tools/list', () => {
  it('lists tools with snake_case names, descriptions, annotations and DTO schemas', async () => {
    @Injectable()
    class Tools {
      @Tool({ description: 'Find things', title: 'Finder', annotations: { readOnlyHint: true } })
      findThings(@Args() _query: Query) {
        return 'x';
      }

      @Tool({ name: 'explicit.name-1' })
      other() {
        return 'y';
      }
    }
    @Module({ providers: [Tools] })
    class AppModule {}
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const client = await module.createClient();
    expect(await client.listTools()).toEqual([
      {
        name: 'find_things',
        title: 'Finder',
        description: 'Find things',
        annotations: { readOnlyHint: true },
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'string', description: 'What to look for' } },
          required: ['q'],
          additionalProperties: false,
        },
      },
      { name: 'explicit.name-1', inputSchema: { type: 'object', additionalProperties: false } },
    ]);
    await module.close();
  });

  it('pages with opaque cursors at the configured page size', async () => {
    const app = await createEchoApp({ pageSize: 3 });
    const wire = await openWire(app);
    await handshake(wire);
    wire.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    const first = await wire.next();
    expect(first.result.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'fail', 'forbidden']);
    expect(typeof first.result.nextCursor).toBe('string');
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: first.result.nextCursor } });
    const second = await wire.next();
    expect(second.result).toEqual({
      tools: [
        {
          name: 'wait',
          description: 'Waits until cancelled',
          inputSchema: { type: 'object', additionalProperties: false },
        },
      ],
    });
    await app.close();
  });

  it('hides disabled tools and answers them as unknown', async () => {
    const app = await createEchoApp();
    app.registry.tools.disable('fail');
    const wire = await openWire(app);
    await handshake(wire);
    wire.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect((await wire.next()).result.tools.map((t: { name: string }) => t.name)).toEqual([
      'echo',
      'forbidden',
      'wait',
    ]);
    wire.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail"}}');
    expect((await wire.next()).error).toEqual({
      code: -32602,
      message: 'Unknown tool: fail',
      data: { name: 'fail' },
    });
    app.registry.tools.enable('fail');
    wire.send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail"}}');
    expect((await wire.next()).result.isError).toBe(true);
    await app.close();
  });

  it('declares only logging when there is nothing to serve, and answers tools/list with −32601', async () => {
    @Module({})
    class Empty {}
    const app = await create(Empty);
    const wire = await openWire(app);
    expect((await handshake(wire)).result.capabilities).toEqual({ logging: {} });
    wire.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect((await wire.next()).error.code).toBe(-32601);
    await app.close();
  });
});

describe('runtime registration', () => {
  it('adds a class’s tools while serving, and refuses kinds whose capability was not declared', async () => {
    @Injectable()
    class Later {
      @Tool() later() {
        return 'added';
      }
    }
    @Injectable()
    class Prompts {
      @Prompt({ description: 'p' }) p() {
        return 'x';
      }
    }
    const app = await createEchoApp();
    const registration = app.registry.add(new Later());
    expect(registration.tools).toEqual(['later']);
    expect(() => app.registry.add(new Prompts())).toThrow(
      'Cannot add Prompts: the server did not declare the prompts capability at bootstrap, so clients could not use them; create the app with { capabilities: { prompts: true } }',
    );
    expect(() => app.registry.add(new Later())).toThrow("Cannot add Later: already registered: tool 'later'");
    registration.remove();
    expect(app.registry.tools.has('later')).toBe(false);
    await app.close();
  });
});

describe('tool definition errors at bootstrap', () => {
  it('fails on duplicate tool names, naming both methods', async () => {
    @Injectable()
    class A {
      @Tool() search() {}
    }
    @Injectable()
    class B {
      @Tool({ name: 'search' }) lookup() {}
    }
    @Module({ providers: [A, B] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      "Duplicate tool name 'search': A.search and B.lookup. Give one of them another name with @Tool({ name: '...' })",
    );
  });

  it('fails on an explicit name that breaks the tool-name guidance', () => {
    expect(() => {
      class T {
        @Tool({ name: 'has space' }) m() {}
      }
      return T;
    }).toThrow(
      `@Tool() on T.m: the name "has space" is invalid: it contains " "; only letters, digits, '_', '-' and '.' are allowed`,
    );
  });

  it('fails on a name longer than 128 characters', () => {
    expect(() => Tool({ name: 'x'.repeat(129) })({}, 'm', { value: () => {} })).toThrow(
      '@Tool() on Object.m: the name "' +
        'x'.repeat(129) +
        '" is invalid: it has 129 characters (at most 128)',
    );
  });

  it('fails on unknown options', () => {
    expect(() => {
      class T {
        @Tool({ descripton: 'typo' } as never) m() {}
      }
      return T;
    }).toThrow(
      "@Tool() on T.m: unknown option 'descripton'; known options are name, title, description, input, output, annotations, icons, _meta",
    );
  });

  it('fails on @Tool on a static method', () => {
    expect(() => {
      class T {
        @Tool() static m() {}
      }
      return T;
    }).toThrow('@Tool() on T.m: tools must be instance methods, not static ones');
  });

  it('fails on @Args outside a handler', async () => {
    @Injectable()
    class T {
      helper(@Args() _q: Query) {}
    }
    @Module({ providers: [T] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      'T.helper has @Args()/@Ctx()/@Param() parameters but is not a handler: add @Tool(), @Resource() or @Prompt() to the method',
    );
  });

  it('fails on two @Args parameters', () => {
    expect(() => {
      class T {
        @Tool() m(@Args() _a: Query, @Args() _b: Query) {}
      }
      return T;
    }).toThrow('@Args() on T.m: a method can have only one @Args() parameter');
  });

  it('fails on @Args typed with an interface, and says what to do', async () => {
    interface Loose {
      q: string;
    }
    @Injectable()
    class T {
      @Tool() m(@Args() _a: Loose) {}
    }
    @Module({ providers: [T] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      "Tool 'm' (T.m): parameter #0 has type Object, which does not describe arguments. @Args() needs a class with class-validator decorators; " +
        'or pass a JSON Schema with @Tool({ input: { type: "object", ... } }).',
    );
  });

  it('explains missing decorator metadata on @Args() and both fixes', async () => {
    class T {
      m(_a: Query) {}
    }
    // Applied by hand, as code compiled without metadata would: no design:paramtypes on m.
    Args()(T.prototype, 'm', 0);
    Tool()(T.prototype, 'm', Object.getOwnPropertyDescriptor(T.prototype, 'm')!);
    @Module({ providers: [T] })
    class AppModule {}
    await expect(create(AppModule)).rejects.toThrow(
      "Tool 'm' (T.m): cannot tell the argument class of parameter #0: there is no design:paramtypes metadata. " +
        'Either compile with decorator metadata (tsc with "emitDecoratorMetadata": true, or swc with jsc.transform.decoratorMetadata; ' +
        'esbuild and tsx do not emit it), or name the class: @Args(MyArgs).',
    );
  });

  it('works without metadata when the class is named: @Args(Query)', async () => {
    class T {
      m(a: Query) {
        return a.q.toUpperCase();
      }
    }
    Args(Query)(T.prototype, 'm', 0);
    Tool()(T.prototype, 'm', Object.getOwnPropertyDescriptor(T.prototype, 'm')!);
    @Module({ providers: [T] })
    class AppModule {}
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const client = await module.createClient();
    expect(await client.callTool('m', { q: 'abc' })).toEqual({ content: [{ type: 'text', text: 'ABC' }] });
    await module.close();
  });
});

describe('tool results and context', () => {
  @Injectable()
  class ResultTools {
    @Tool() object() {
      return { a: 1, b: [true] };
    }
    @Tool() nothing() {}
    @Tool() image() {
      return { type: 'image', data: 'AAAA', mimeType: 'image/png' };
    }
    @Tool() blocks() {
      return [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ];
    }
    @Tool() full() {
      return { content: [{ type: 'text', text: 'raw' }], isError: false, _meta: { k: 1 } };
    }
    @Tool() async progressive(@Ctx() ctx: McpContext) {
      await ctx.progress(1, 3, 'one');
      await ctx.progress(2, 3);
      return `request ${String(ctx.requestId)} from ${ctx.session.clientInfo.name}`;
    }
    @Tool() async backwards(@Ctx() ctx: McpContext) {
      await ctx.progress(2);
      await ctx.progress(1);
    }
  }
  @Module({ providers: [ResultTools] })
  class ResultModule {}

  it.each([
    ['object', { content: [{ type: 'text', text: '{"a":1,"b":[true]}' }] }],
    ['nothing', { content: [] }],
    ['image', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }],
    [
      'blocks',
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
    ],
    ['full', { content: [{ type: 'text', text: 'raw' }], isError: false, _meta: { k: 1 } }],
  ])('maps what %s returns', async (name, expected) => {
    const module = await Test.createTestingModule({ imports: [ResultModule] }).compile();
    const client = await module.createClient();
    expect(await client.callTool(name)).toEqual(expected);
    await module.close();
  });

  it('sends progress only for a progressToken, and exposes the request in the context', async () => {
    const app = await create(ResultModule);
    const wire = await openWire(app);
    await handshake(wire);
    wire.send(
      '{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progressive","_meta":{"progressToken":"tok"}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: 1, total: 3, message: 'one' },
    });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: 2, total: 3 },
    });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      result: { content: [{ type: 'text', text: 'request p from wire-test' }] },
    });
    wire.send('{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"progressive"}}');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 'q',
      result: { content: [{ type: 'text', text: 'request q from wire-test' }] },
    });
    await app.close();
  });

  it('pads the response of a request that reported progress, so no pipe read carries both', async () => {
    const app = await create(ResultModule);
    const wire = await openWire(app);
    await handshake(wire);
    wire.send(
      '{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"progressive","_meta":{"progressToken":"t"}}}',
    );
    expect((await wire.next()).params.progress).toBe(1);
    expect((await wire.next()).params.progress).toBe(2);
    const response = await wire.next();
    const answer =
      '{"jsonrpc":"2.0","id":"g","result":{"content":[{"type":"text","text":"request g from wire-test"}]}}';
    expect(JSON.stringify(response)).toBe(answer);
    // 64 KiB with its newline, the most a Node.js client reads from a pipe at once.
    expect(wire.raw.at(-1)).toBe(`${' '.repeat(65536 - answer.length - 1)}${answer}`);
    // Without progress, the response is written as it is.
    wire.send('{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"progressive"}}');
    expect((await wire.next()).id).toBe('h');
    expect(wire.raw.at(-1)).toBe(
      '{"jsonrpc":"2.0","id":"h","result":{"content":[{"type":"text","text":"request h from wire-test"}]}}',
    );
    await app.close();
  });

  it('does not pad responses with progressPaddingBytes: 0', async () => {
    const app = await create(ResultModule);
    const wire = await openWire(app, { progressPaddingBytes: 0 });
    await handshake(wire);
    wire.send(
      '{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"progressive","_meta":{"progressToken":"t"}}}',
    );
    await wire.next();
    await wire.next();
    expect((await wire.next()).id).toBe('g');
    expect(wire.raw.at(-1)).toBe(
      '{"jsonrpc":"2.0","id":"g","result":{"content":[{"type":"text","text":"request g from wire-test"}]}}',
    );
    await app.close();
  });

  it('turns non-increasing progress into a tool error that says why', async () => {
    const module = await Test.createTestingModule({ imports: [ResultModule] }).compile();
    const client = await module.createClient();
    expect(await client.callTool('backwards')).toEqual({
      content: [
        {
          type: 'text',
          text: 'ctx.progress(): progress must increase with every call (MCP progress rule); got 1 after 2',
        },
      ],
      isError: true,
    });
    await module.close();
  });

  it('does not send the message field of progress to 2024-11-05 sessions', async () => {
    const app = await create(ResultModule);
    const wire = await openWire(app);
    await handshake(wire, '2024-11-05');
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progressive","_meta":{"progressToken":7}}}',
    );
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 7, progress: 1, total: 3 },
    });
    await app.close();
  });
});
