import { Test, type TestingModule } from '@gantry/testing';
import { {{pascal}}Resource } from '{{specImport}}';

describe('{{pascal}}Resource', () => {
  let module: TestingModule;

  beforeEach(async () => {
    module = await Test.createTestingModule({ providers: [{{pascal}}Resource] }).compile();
  });

  afterEach(() => module.close());

  it('reads {{kebab}}://{id}', async () => {
    const client = await module.createClient();
    expect(await client.request('resources/read', { uri: '{{kebab}}://42' })).toEqual({
      contents: [{ uri: '{{kebab}}://42', mimeType: 'text/plain', text: '{{kebab}} 42' }],
    });
  });
});
