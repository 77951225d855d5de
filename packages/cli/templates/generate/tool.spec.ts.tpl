import { Test, type TestingModule } from '@gantry/testing';
import { {{pascal}}Tool } from '{{specImport}}';

describe('{{pascal}}Tool', () => {
  let module: TestingModule;

  beforeEach(async () => {
    module = await Test.createTestingModule({ providers: [{{pascal}}Tool] }).compile();
  });

  afterEach(() => module.close());

  it('answers {{wireName}}', async () => {
    const client = await module.createClient();
    expect(await client.callTool('{{wireName}}', { input: 'test' })).toEqual({
      content: [{ type: 'text', text: '{{wireName}}: test' }],
    });
  });

  it('rejects arguments that are not valid', async () => {
    const client = await module.createClient();
    const result = await client.callTool('{{wireName}}', {});
    expect(result.isError).toBe(true);
  });
});
