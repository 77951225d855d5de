import { Test } from '@gantry/testing';
import { AppModule } from '../src/app.module';
import { NOTES_DIR, type Note, NotesRepository } from '../src/notes.repository';
import { NOTES_STORE, type NoteStatus, type NotesStore } from '../src/notes.store';

/** A store in memory: what a test puts in NOTES_STORE to run the app without disk or Redis. */
class MemoryNotesStore implements NotesStore {
  readonly location = 'memory';
  readonly notes: Note[] = [];
  async insert(note: Note) {
    if (this.notes.some((n) => n.id === note.id)) return false;
    this.notes.push(note);
    return true;
  }
  async get(id: string) {
    return this.notes.find((n) => n.id === id);
  }
  async all() {
    return [...this.notes];
  }
  async setStatus(id: string, status: NoteStatus, updatedAt: string) {
    const note = this.notes.find((n) => n.id === id);
    if (note) Object.assign(note, { status, updatedAt });
    return note && { ...note };
  }
  async delete(id: string) {
    const index = this.notes.findIndex((n) => n.id === id);
    if (index !== -1) this.notes.splice(index, 1);
    return index !== -1;
  }
}

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

  it('uses an overridden store', async () => {
    const store = new MemoryNotesStore();
    const module = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(NOTES_STORE)
      .useValue(store)
      .compile();
    const client = await module.createClient();
    const created = await client.callTool('create_note', {
      title: 'In memory',
      body: 'no disk',
      tags: ['t'],
    });
    expect(created.isError).toBeFalsy();
    expect(store.notes).toEqual([
      expect.objectContaining({ title: 'In memory', body: 'no disk', tags: ['t'] }),
    ]);
    expect(module.get(NotesRepository).file).toBeUndefined();
    expect(module.get(NotesRepository).location).toBe('memory');
    await module.close();
  });
});
