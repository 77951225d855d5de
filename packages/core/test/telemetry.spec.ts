import {
  Args,
  type CallHandler,
  type CanActivate,
  Ctx,
  type ExecutionContext,
  Injectable,
  type Interceptor,
  type McpContext,
  Module,
  Param,
  Prompt,
  Resource,
  Tool,
  UseGuards,
  UseInterceptors,
} from '@gantry/core';
import { McpError } from '@gantry/protocol';
import { Test, type TestingModule } from '@gantry/testing';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { IsString } from 'class-validator';
import { parentOf, registerTracing, remoteParent, type TestTracing } from './support/otel';

class NewNote {
  @IsString() title!: string;
}

class Name {
  @IsString() name!: string;
}

@Injectable()
class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Injectable()
class Passthrough implements Interceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

@Injectable()
class NoteTools {
  @Tool({ description: 'Creates a note; the work inside is a span of its own' })
  createNote(@Args() note: NewNote) {
    return trace.getTracer('notes-app').startActiveSpan('store note', (span) => {
      span.end();
      return `created ${note.title}`;
    });
  }

  @Tool({ description: 'Always fails inside the tool' })
  broken(): string {
    throw new Error('the disk is full');
  }

  @Tool({ description: 'Refuses with a JSON-RPC error' })
  refuse(): string {
    throw new McpError(-32001, 'not today');
  }

  @Tool({ description: 'Asks who is there' })
  async greet(@Ctx() ctx: McpContext) {
    const answer = await ctx.elicit(Name, 'Who is there?');
    return answer.action === 'accept' ? `hello ${answer.content.name}` : 'nobody';
  }

  @Tool({ description: 'Asks the client model' })
  async ask(@Ctx() ctx: McpContext) {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      maxTokens: 10,
    });
    const [first] = Array.isArray(answer.content) ? answer.content : [answer.content];
    return first?.type === 'text' ? first.text : '';
  }

  @Tool({ description: 'Counts the client roots' })
  async countRoots(@Ctx() ctx: McpContext) {
    return `${(await ctx.roots()).length} roots`;
  }

  @Tool({ description: 'Guarded and intercepted' })
  @UseGuards(AllowAll)
  @UseInterceptors(Passthrough)
  guarded(@Args() note: NewNote) {
    return `guarded ${note.title}`;
  }

  @Resource({ uri: 'notes://{id}', mimeType: 'text/plain', description: 'One note' })
  note(@Param('id') id: string) {
    return `note ${id}`;
  }

  @Prompt({ description: 'Summarizes a note' })
  summarize(@Args() args: Name) {
    return `Summarize ${args.name}`;
  }
}

@Module({ providers: [NoteTools, AllowAll, Passthrough] })
class NotesModule {}

describe('OpenTelemetry server spans', () => {
  let tracing: TestTracing;
  let module: TestingModule;

  beforeEach(() => {
    tracing = registerTracing();
  });
  afterEach(async () => {
    await module?.close();
    await tracing.shutdown();
  });

  it('names a tools/call span after the tool, parents it on the _meta traceparent, and runs the handler inside it', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const caller = remoteParent();
    const [answer] = await module.app.inject(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'create_note',
          arguments: { title: 'groceries' },
          _meta: { traceparent: caller.traceparent },
        },
      },
      { initialize: true },
    );
    expect(answer.result.content[0].text).toBe('created groceries');
    const span = tracing.server('tools/call create_note');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(caller.context.traceId);
    expect(parentOf(span)).toBe(caller.context.spanId);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'create_note',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2025-11-25',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const inner = tracing.span('store note');
    expect(parentOf(inner)).toBe(span.spanContext().spanId);
    expect(inner.spanContext().traceId).toBe(caller.context.traceId);
  });

  it('marks a tool result with isError as an error span with error.type tool_error', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const client = await module.createClient();
    const result = await client.callTool('broken');
    expect(result.isError).toBe(true);
    const span = tracing.server('tools/call broken');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expect(tracing.client('tools/call broken').attributes['error.type']).toBe('tool_error');
  });

  it('types a JSON-RPC error by its code, on the server span and on the client span', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const client = await module.createClient();
    await expect(client.callTool('refuse')).rejects.toThrow('not today');
    await expect(client.callTool('no_such_tool')).rejects.toThrow(/Unknown tool/);
    const server = tracing.server('tools/call refuse');
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR, message: 'not today' });
    expect(server.attributes['error.type']).toBe('-32001');
    expect(server.attributes['rpc.response.status_code']).toBe('-32001');
    // A name the server lacks is the client's alone: kept out of the span name, on the span.
    const unknown = tracing.server('tools/call');
    expect(unknown.attributes['error.type']).toBe('-32602');
    expect(unknown.attributes['gen_ai.tool.name']).toBe('no_such_tool');
    expect(
      tracing.spans().some((span) => span.name.includes('no_such_tool') && span.kind === SpanKind.SERVER),
    ).toBe(false);
    const client_ = tracing.client('tools/call refuse');
    expect(client_.attributes['error.type']).toBe('-32001');
    expect(parentOf(server)).toBe(client_.spanContext().spanId);
  });

  it('puts the resource URI in an attribute, and in the name only when asked', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const client = await module.createClient();
    await client.readResource('notes://1');
    await client.getPrompt('summarize', { name: 'n1' });
    const read = tracing.server('resources/read');
    expect(read.attributes['mcp.resource.uri']).toBe('notes://1');
    const prompt = tracing.server('prompts/get summarize');
    expect(prompt.attributes['gen_ai.prompt.name']).toBe('summarize');
    await module.close();

    module = await Test.createTestingModule({ imports: [NotesModule] }).compile({
      telemetry: { resourceUriInSpanName: true },
    });
    await (await module.createClient()).readResource('notes://2');
    const named = tracing.server('resources/read notes://2');
    expect(named.attributes['mcp.resource.uri']).toBe('notes://2');
  });

  it("sends the handler's span context with a session-era elicitation", async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const client = await module.createClient(
      { name: 'c', version: '1' },
      { capabilities: { elicitation: {} } },
    );
    let traceparent: unknown;
    client.setRequestHandler('elicitation/create', async (params) => {
      traceparent = (params._meta as Record<string, unknown> | undefined)?.traceparent;
      return { action: 'accept', content: { name: 'Ada' } };
    });
    expect((await client.callTool('greet')).content[0]).toEqual({ type: 'text', text: 'hello Ada' });
    const server = tracing.server('tools/call greet');
    const { traceId, spanId } = server.spanContext();
    expect(traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it("sends the handler's span context with a session-era sampling and roots/list request", async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const client = await module.createClient(
      { name: 'c', version: '1' },
      { capabilities: { sampling: {}, roots: {} } },
    );
    const sent: Record<string, unknown> = {};
    client.setRequestHandler('sampling/createMessage', async (params) => {
      sent.sampling = (params._meta as Record<string, unknown> | undefined)?.traceparent;
      return { role: 'assistant', model: 'test', content: { type: 'text', text: 'hi' } };
    });
    client.setRequestHandler('roots/list', async (params) => {
      sent.roots = (params?._meta as Record<string, unknown> | undefined)?.traceparent;
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
    expect((await client.callTool('ask')).content[0]).toEqual({ type: 'text', text: 'hi' });
    expect((await client.callTool('count_roots')).content[0]).toEqual({ type: 'text', text: '1 roots' });
    const parentOfRequest = (name: string) => {
      const { traceId, spanId } = tracing.server(name).spanContext();
      return `00-${traceId}-${spanId}-01`;
    };
    expect(sent).toEqual({
      sampling: parentOfRequest('tools/call ask'),
      roots: parentOfRequest('tools/call count_roots'),
    });
  });

  it('links the retry of a stateless-era input_required round to the first round, under the client span', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    const client = await module.createClient(
      { name: 'c', version: '1' },
      { era: 'stateless', capabilities: { elicitation: {} } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Lin' },
    }));
    const caller = remoteParent();
    const result = await caller.run(() => client.callTool('greet'));
    expect(result.content[0]).toEqual({ type: 'text', text: 'hello Lin' });
    const rounds = tracing.spans('tools/call greet').filter((s) => s.kind === SpanKind.SERVER);
    const clientSpan = tracing.client('tools/call greet');
    expect(rounds).toHaveLength(2);
    expect(clientSpan.spanContext().traceId).toBe(caller.context.traceId);
    for (const round of rounds) {
      expect(parentOf(round)).toBe(clientSpan.spanContext().spanId);
      expect(round.attributes['mcp.protocol.version']).toBe('2026-07-28');
      expect(round.attributes['mcp.session.id']).toBeUndefined();
    }
    const [first, retry] = rounds;
    expect(first.links).toEqual([]);
    expect(retry.links.map((link) => link.context.spanId)).toEqual([first.spanContext().spanId]);
  });

  it('adds guard, validation and interceptor spans only with telemetry.detailedSpans', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile();
    await (await module.createClient()).callTool('guarded', { title: 'x' });
    expect(tracing.spans().map((s) => s.name)).not.toContain('guard AllowAll');
    await module.close();
    tracing.exporter.reset();

    module = await Test.createTestingModule({ imports: [NotesModule] }).compile({
      telemetry: { detailedSpans: true },
    });
    await (await module.createClient()).callTool('guarded', { title: 'x' });
    const server = tracing.server('tools/call guarded');
    const serverId = server.spanContext().spanId;
    const guard = tracing.span('guard AllowAll');
    const validate = tracing.span('validate arguments');
    const interceptor = tracing.span('interceptor Passthrough');
    expect([parentOf(guard), parentOf(validate), parentOf(interceptor)]).toEqual([
      serverId,
      serverId,
      serverId,
    ]);
    expect(guard.attributes).toEqual({ 'gantry.handler.kind': 'tool', 'gantry.handler.name': 'guarded' });
  });

  it('makes no span with telemetry.enabled false, while the SDK still serves the app itself', async () => {
    module = await Test.createTestingModule({ imports: [NotesModule] }).compile({
      telemetry: { enabled: false, detailedSpans: true },
    });
    await (await module.createClient()).callTool('create_note', { title: 'x' });
    await (await module.createClient()).callTool('guarded', { title: 'x' });
    // The client's spans are @gantry/client's own; the server made only the tool's.
    const server = tracing.spans().filter((s) => s.kind !== SpanKind.CLIENT);
    expect(server.map((s) => s.name)).toEqual(['store note']);
  });
});
