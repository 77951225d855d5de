import { Test, type TestingModule } from '@gantry/testing';
import { AppModule } from '../src/app.module';
import { GreetingService } from '../src/greeting.service';

// The testing module builds the app as main.ts does and connects a client in memory:
// no process, no port, the same protocol path a real client takes.
describe('AppModule', () => {
  let module: TestingModule;

  beforeEach(async () => {
    module = await Test.createTestingModule({ imports: [AppModule] }).compile();
  });

  // When compile() throws there is no module to close: `?.` leaves Jest that one error to report.
  afterEach(() => module?.close());

  it('lists the greet tool, with the schema of its DTO', async () => {
    const client = await module.createClient();
    const greet = (await client.listTools()).find((tool) => tool.name === 'greet');
    expect(greet?.description).toBe('Greet someone by name');
    expect(greet?.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, maxLength: 100, description: 'Who to greet' } },
      required: ['name'],
      additionalProperties: false,
    });
  });

  it('greets by name', async () => {
    const client = await module.createClient();
    expect(await client.callTool('greet', { name: 'Ada' })).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  });

  it('answers invalid arguments with a tool error the model can read', async () => {
    const client = await module.createClient();
    expect(await client.callTool('greet', { name: '' })).toEqual({
      content: [
        { type: 'text', text: "Invalid arguments for tool 'greet': name: must be longer than or equal to 1 characters" },
      ],
      isError: true,
    });
  });

  it('reads the greeting resource', async () => {
    const client = await module.createClient();
    expect(await client.request('resources/read', { uri: 'greeting://Ada' })).toEqual({
      contents: [{ uri: 'greeting://Ada', mimeType: 'text/plain', text: 'Hello, Ada!' }],
    });
  });

  it('fills in the introduce prompt', async () => {
    const client = await module.createClient();
    expect(await client.request('prompts/get', { name: 'introduce', arguments: { name: 'Ada' } })).toEqual({
      description: 'Ask the model to introduce someone',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Introduce Ada in a casual tone, in two sentences.' } },
      ],
    });
  });

  it('uses a provider swapped for a fake', async () => {
    const fake = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(GreetingService)
      .useValue({ greet: (name: string) => `Hi ${name}` })
      .compile();
    try {
      const client = await fake.createClient();
      expect(await client.callTool('greet', { name: 'Ada' })).toEqual({
        content: [{ type: 'text', text: 'Hi Ada' }],
      });
    } finally {
      await fake.close();
    }
  });
});
