import { Ctx, Injectable, type McpContext, Module, type SessionInfo, Tool } from '@gantry/core';
import { Test } from '@gantry/testing';

@Injectable()
class RootsTools {
  @Tool({ description: 'Lists the client roots' })
  async roots(@Ctx() ctx: McpContext) {
    return JSON.stringify(await ctx.roots());
  }
}

@Module({ providers: [RootsTools] })
class RootsModule {}

describe('roots', () => {
  it('caches roots/list per session, and app.onRootsListChanged observes the change notification', async () => {
    const module = await Test.createTestingModule({ imports: [RootsModule] }).compile();
    const changed: SessionInfo[] = [];
    module.app.onRootsListChanged((session) => changed.push(session));
    const client = await module.createClient(
      { name: 'roots-client', version: '1' },
      { capabilities: { roots: { listChanged: true } } },
    );
    let roots = [{ uri: 'file:///a' }];
    let asked = 0;
    client.setRequestHandler('roots/list', async () => {
      asked++;
      return { roots };
    });
    const list = async () =>
      JSON.parse(((await client.callTool('roots')).content[0] as { text: string }).text);
    expect(await list()).toEqual([{ uri: 'file:///a' }]);
    roots = [{ uri: 'file:///b' }];
    expect(await list()).toEqual([{ uri: 'file:///a' }]);
    expect(asked).toBe(1);
    const heard = new Promise<void>((resolve) => module.app.onRootsListChanged(() => resolve()));
    await client.notify('notifications/roots/list_changed');
    await heard;
    expect(changed.map((s) => s.clientInfo.name)).toEqual(['roots-client']);
    expect(await list()).toEqual([{ uri: 'file:///b' }]);
    expect(asked).toBe(2);
    await module.close();
  });
});
