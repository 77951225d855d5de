import { Test } from '@gantry/testing';
import { AppModule } from '../src/app.module';
import { NOTES_DIR, type Note, NotesRepository } from '../src/notes.repository';

describe('apps/notes through the testing module', () => {
  it('uses an overridden repository', async () => {
    const stored: Note = {
      id: 'abcdef12',
      title: 'Fake',
      body: 'from the fake',
      tags: [],
      createdAt: 't',
      updatedAt: 't',
    };
    const fake = { get: async (id: string) => (id === stored.id ? stored : undefined) };
    const module = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(NotesRepository)
      .useValue(fake)
      .compile();
    const client = await module.createClient();
    const result = await client.callTool('get_note', { id: 'abcdef12' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(stored);
    expect(module.get(NotesRepository)).toBe(fake);
    await module.close();
  });

  it('uses an overridden directory', async () => {
    const module = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(NOTES_DIR)
      .useValue('/nonexistent/gantry-test')
      .compile();
    expect(module.get(NotesRepository).file).toBe('/nonexistent/gantry-test/notes.json');
    await module.close();
  });
});
