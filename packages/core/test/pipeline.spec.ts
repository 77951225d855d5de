import {
  Args,
  type CallHandler,
  type CanActivate,
  Catch,
  type ExceptionFilter,
  type ExecutionContext,
  Injectable,
  type Interceptor,
  Module,
  Param,
  Prompt,
  Resource,
  Tool,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@gantry/core';
import { McpError } from '@gantry/protocol';
import { Test } from '@gantry/testing';
import { IsString } from 'class-validator';

const order: string[] = [];

function guard(name: string, allow = true): CanActivate {
  return {
    canActivate(ctx) {
      order.push(`guard:${name}:${ctx.phase}`);
      return allow;
    },
  };
}

function interceptor(name: string): Interceptor {
  return {
    async intercept(_ctx, next: CallHandler) {
      order.push(`before:${name}`);
      const result = await next.handle();
      order.push(`after:${name}`);
      return result;
    },
  };
}

class Text {
  @IsString() text!: string;
}

class NoteNotFound extends Error {
  constructor(readonly id: string) {
    super(`note ${id} not found`);
  }
}

@Catch(NoteNotFound)
class NoteNotFoundFilter implements ExceptionFilter<NoteNotFound> {
  catch(error: NoteNotFound) {
    order.push('filter:note');
    return `There is no note ${error.id}; list the notes first.`;
  }
}

class RethrowAsJsonRpc implements ExceptionFilter {
  catch(error: unknown): never {
    order.push('filter:rpc');
    throw new McpError(-32050, `Domain failure: ${(error as Error).message}`);
  }
}

@Injectable()
class Permissions {
  readonly admins = new Set(['admin-client']);
  isAdmin(ctx: ExecutionContext) {
    return this.admins.has(ctx.mcp.clientInfo.name);
  }
}

@Injectable()
class AdminOnly implements CanActivate {
  constructor(private readonly permissions: Permissions) {}
  canActivate(ctx: ExecutionContext) {
    return this.permissions.isAdmin(ctx);
  }
}

class Upper implements Interceptor {
  async intercept(_ctx: ExecutionContext, next: CallHandler<string>) {
    return (await next.handle()).toUpperCase();
  }
}

class Cached implements Interceptor {
  intercept(ctx: ExecutionContext, next: CallHandler) {
    const args = ctx.args as Text;
    return args.text === 'cached' ? 'from cache' : next.handle();
  }
}

const seenContexts: { kind: string; name: string; args: unknown; argsIsText: boolean; phase: string }[] = [];
const recordContext: Interceptor = {
  intercept(ctx, next) {
    seenContexts.push({
      kind: ctx.kind,
      name: ctx.name,
      args: ctx.args,
      argsIsText: ctx.args instanceof Text,
      phase: ctx.phase,
    });
    return next.handle();
  },
};

@Injectable()
@UseGuards(guard('class'))
@UseInterceptors(interceptor('class'))
@UseFilters(new RethrowAsJsonRpc())
class Ordered {
  @Tool()
  @UseGuards(guard('method'))
  @UseInterceptors(interceptor('method'))
  run() {
    order.push('handler');
    return 'ran';
  }

  @Tool()
  @UseFilters(NoteNotFoundFilter)
  findNote(): string {
    throw new NoteNotFound('n1');
  }

  @Tool()
  fails(): string {
    throw new Error('boom');
  }
}

class CatchAll implements ExceptionFilter {
  catch() {
    return 'swallowed';
  }
}

const throwingGuard: CanActivate = {
  canActivate(ctx) {
    if (ctx.phase === 'list') throw new Error('guard broke');
    return true;
  },
};

@Injectable()
@UseFilters(CatchAll)
class Filtered {
  @Tool()
  @UseGuards(guard('deny', false))
  denied() {
    return 'never';
  }

  @Tool()
  @UseGuards(throwingGuard)
  fragile() {
    return 'fine';
  }
}

@Injectable()
class Admin {
  @Tool({ description: 'Only for admins' })
  @UseGuards(AdminOnly)
  wipe() {
    return 'wiped';
  }

  @Tool()
  @UseInterceptors(Upper)
  shout(@Args() { text }: Text) {
    return text;
  }

  @Tool()
  @UseInterceptors(recordContext, Cached)
  lookup(@Args() { text }: Text) {
    return `fresh ${text}`;
  }

  @Resource({ uri: 'secret://{id}' })
  @UseGuards(AdminOnly)
  secret(@Param('id') id: string) {
    return `secret ${id}`;
  }

  @Prompt({ description: 'Admin prompt' })
  @UseGuards(AdminOnly)
  adminPrompt() {
    return 'only admins see this';
  }
}

@Module({ providers: [Permissions, Ordered, Admin, Filtered] })
class PipelineModule {}

async function setup(clientName = 'client') {
  const module = await Test.createTestingModule({ imports: [PipelineModule] }).compile();
  module.app.useGlobalGuards(guard('global'));
  module.app.useGlobalInterceptors(interceptor('global'));
  const client = await module.createClient({ name: clientName, version: '1' });
  return { module, client };
}

beforeEach(() => {
  order.length = 0;
  seenContexts.length = 0;
});

describe('the request pipeline', () => {
  it('runs guards then interceptors global → class → method around the handler', async () => {
    const { module, client } = await setup();
    expect(await client.callTool('run')).toEqual({ content: [{ type: 'text', text: 'ran' }] });
    expect(order).toEqual([
      'guard:global:call',
      'guard:class:call',
      'guard:method:call',
      'before:global',
      'before:class',
      'before:method',
      'handler',
      'after:method',
      'after:class',
      'after:global',
    ]);
    await module.close();
  });

  it('tries the nearest filter first, and @Catch limits a filter to its classes', async () => {
    const { module, client } = await setup();
    expect(await client.callTool('find_note')).toEqual({
      content: [{ type: 'text', text: 'There is no note n1; list the notes first.' }],
    });
    expect(order).toContain('filter:note');
    expect(order).not.toContain('filter:rpc');
    order.length = 0;
    await expect(client.callTool('fails')).rejects.toMatchObject({
      code: -32050,
      message: 'Domain failure: boom',
    });
    expect(order).toContain('filter:rpc');
    await module.close();
  });

  it('resolves a guard class from the container, with its injected service', async () => {
    const { module, client } = await setup('someone');
    await expect(client.callTool('wipe')).rejects.toMatchObject({
      code: -32602,
      message: "Access denied: tool 'wipe' is not available to this caller",
    });
    module.get(Permissions).admins.add('someone');
    expect(await client.callTool('wipe')).toEqual({ content: [{ type: 'text', text: 'wiped' }] });
    await module.close();
  });

  it('hides guarded tools, resources and prompts from lists for callers they deny', async () => {
    const { module, client } = await setup('someone');
    const admin = await module.createClient({ name: 'admin-client', version: '1' });
    expect((await client.listTools()).map((t) => t.name)).not.toContain('wipe');
    expect((await admin.listTools()).map((t) => t.name)).toContain('wipe');
    const templates = (c: typeof client) =>
      c.request('resources/templates/list', {}) as Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
    expect((await templates(client)).resourceTemplates).toEqual([]);
    expect((await templates(admin)).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['secret://{id}']);
    const prompts = (c: typeof client) =>
      c.request('prompts/list', {}) as Promise<{ prompts: { name: string }[] }>;
    expect((await prompts(client)).prompts).toEqual([]);
    expect((await prompts(admin)).prompts.map((p) => p.name)).toEqual(['admin_prompt']);
    await expect(client.request('resources/read', { uri: 'secret://7' })).rejects.toMatchObject({
      code: -32602,
      message: 'Access denied: resource secret://{id} is not available to this caller',
    });
    expect(await admin.request('resources/read', { uri: 'secret://7' })).toEqual({
      contents: [{ uri: 'secret://7', text: 'secret 7' }],
    });
    await expect(client.request('prompts/get', { name: 'admin_prompt' })).rejects.toMatchObject({
      code: -32602,
    });
    expect(order.filter((e) => e.endsWith(':list')).length).toBeGreaterThan(0);
    await module.close();
  });

  it('lets an interceptor transform the result or answer without calling the handler', async () => {
    const { module, client } = await setup();
    expect(await client.callTool('shout', { text: 'hey' })).toEqual({
      content: [{ type: 'text', text: 'HEY' }],
    });
    expect(await client.callTool('lookup', { text: 'cached' })).toEqual({
      content: [{ type: 'text', text: 'from cache' }],
    });
    expect(await client.callTool('lookup', { text: 'x' })).toEqual({
      content: [{ type: 'text', text: 'fresh x' }],
    });
    await module.close();
  });

  it('gives interceptors one ExecutionContext with the validated arguments', async () => {
    const { module, client } = await setup();
    await client.callTool('lookup', { text: 'x' });
    expect(seenContexts).toEqual([
      { kind: 'tool', name: 'lookup', args: { text: 'x' }, argsIsText: true, phase: 'call' },
    ]);
    await module.close();
  });

  it('never lets a filter turn a guard’s denial into an answer', async () => {
    const { module, client } = await setup();
    await expect(client.callTool('denied')).rejects.toMatchObject({
      code: -32602,
      message: "Access denied: tool 'denied' is not available to this caller",
    });
    await module.close();
  });

  it('hides an item whose guard throws while a list is served, instead of failing the list', async () => {
    const { module, client } = await setup();
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).not.toContain('fragile');
    expect(names).toContain('run');
    await module.close();
  });

  it('validates arguments after the guards and before the interceptors', async () => {
    const { module, client } = await setup();
    const result = await client.callTool('lookup', { text: 1 });
    expect(result.isError).toBe(true);
    expect(seenContexts).toEqual([]);
    expect(order).toEqual(['guard:global:call']);
    await module.close();
  });
});
