import { Args, Complete, GantryFactory, Injectable, Module, Prompt, Resource, Tool } from '@gantry/core';
import { IsString } from 'class-validator';
import { handshake, openWire } from './support/wire';

const ICON = {
  src: 'https://example.com/icon.png',
  mimeType: 'image/png',
  sizes: ['48x48'],
  theme: 'light' as const,
};

class Topic {
  @IsString() topic!: string;
}

@Injectable()
class Described {
  @Tool({
    title: 'Shout',
    icons: [ICON],
    _meta: { 'com.example/cost': 1 },
    annotations: { openWorldHint: false },
  })
  shout() {
    return 'HEY';
  }

  @Resource({ uri: 'things://one', title: 'One', icons: [ICON], _meta: { 'com.example/tier': 'gold' } })
  one() {
    return '1';
  }

  @Resource({ uri: 'things://{id}', title: 'A thing', icons: [ICON], annotations: { priority: 0.2 } })
  thing() {
    return 'x';
  }

  @Prompt({ title: 'Brainstorm', icons: [ICON], _meta: { 'com.example/beta': true } })
  brainstorm(@Args() { topic }: Topic) {
    return topic;
  }

  @Complete('topic')
  topics() {
    return Array.from({ length: 150 }, (_, i) => `topic-${i}`);
  }
}

@Module({ providers: [Described] })
class DescribedModule {}

const create = () =>
  GantryFactory.create(DescribedModule, {
    name: 'described',
    version: '2.0.0',
    title: 'Described Server',
    description: 'Shows every descriptive field',
    websiteUrl: 'https://example.com',
    icons: [ICON],
    instructions: 'Use shout to shout.',
    logger: false,
  });

describe('descriptive fields on the wire', () => {
  it('serverInfo and instructions carry title, description, websiteUrl and icons', async () => {
    const app = await create();
    const wire = await openWire(app);
    const init = await handshake(wire);
    expect(init.result.serverInfo).toEqual({
      name: 'described',
      version: '2.0.0',
      title: 'Described Server',
      description: 'Shows every descriptive field',
      websiteUrl: 'https://example.com',
      icons: [ICON],
    });
    expect(init.result.instructions).toBe('Use shout to shout.');
    await app.close();
  });

  it('tools, resources, templates and prompts carry title, icons, annotations and _meta', async () => {
    const app = await create();
    const wire = await openWire(app);
    await handshake(wire);
    wire.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect((await wire.next()).result.tools).toEqual([
      {
        name: 'shout',
        title: 'Shout',
        inputSchema: { type: 'object', additionalProperties: false },
        annotations: { openWorldHint: false },
        icons: [ICON],
        _meta: { 'com.example/cost': 1 },
      },
    ]);
    wire.send('{"jsonrpc":"2.0","id":2,"method":"resources/list"}');
    expect((await wire.next()).result.resources).toEqual([
      {
        uri: 'things://one',
        name: 'one',
        title: 'One',
        icons: [ICON],
        _meta: { 'com.example/tier': 'gold' },
      },
    ]);
    wire.send('{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}');
    expect((await wire.next()).result.resourceTemplates).toEqual([
      {
        uriTemplate: 'things://{id}',
        name: 'thing',
        title: 'A thing',
        annotations: { priority: 0.2 },
        icons: [ICON],
      },
    ]);
    wire.send('{"jsonrpc":"2.0","id":4,"method":"prompts/list"}');
    expect((await wire.next()).result.prompts).toEqual([
      {
        name: 'brainstorm',
        title: 'Brainstorm',
        arguments: [{ name: 'topic', required: true }],
        icons: [ICON],
        _meta: { 'com.example/beta': true },
      },
    ]);
    await app.close();
  });

  it('sends at most 100 completion values, with total and hasMore', async () => {
    const app = await create();
    const wire = await openWire(app);
    await handshake(wire);
    wire.send(
      '{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"brainstorm"},"argument":{"name":"topic","value":""}}}',
    );
    const { completion } = (await wire.next()).result;
    expect(completion.values).toHaveLength(100);
    expect(completion.values[99]).toBe('topic-99');
    expect(completion.total).toBe(150);
    expect(completion.hasMore).toBe(true);
    await app.close();
  });

  it('sends list_changed for resources and prompts changed at runtime', async () => {
    const app = await create();
    const wire = await openWire(app);
    await handshake(wire);
    app.registry.prompts.disable('brainstorm');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    app.registry.resources.disable('things://one');
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    wire.send('{"jsonrpc":"2.0","id":1,"method":"prompts/list"}');
    expect((await wire.next()).result.prompts).toEqual([]);
    wire.send('{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"things://one"}}');
    // With the static resource disabled, the template matches the URI instead.
    expect((await wire.next()).result.contents).toEqual([{ uri: 'things://one', text: 'x' }]);
    await app.close();
  });
});
