import { Test, type TestingModule } from '@gantry/testing';
import { {{pascal}}Prompt } from '{{specImport}}';

describe('{{pascal}}Prompt', () => {
  let module: TestingModule;

  beforeEach(async () => {
    module = await Test.createTestingModule({ providers: [{{pascal}}Prompt] }).compile();
  });

  afterEach(() => module.close());

  it('fills in {{wireName}}', async () => {
    const client = await module.createClient();
    expect(await client.request('prompts/get', { name: '{{wireName}}', arguments: { topic: 'test' } })).toEqual({
      description: 'Describe what the {{wireName}} prompt asks, for the user picking it',
      messages: [{ role: 'user', content: { type: 'text', text: '{{wireName}}: test' } }],
    });
  });
});
