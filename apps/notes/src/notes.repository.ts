import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@gantry/core';
import { JsonFileNotesStore } from './json-notes.store';
import { NOTES_STORE, type Note, type NoteStatus, type NotesStore } from './notes.store';

export { NOTE_STATUSES, type Note, type NoteStatus } from './notes.store';

/** The directory holding `notes.json`: `$NOTES_DIR`, or `./data`. Several server processes may share it. */
export const NOTES_DIR = Symbol('NOTES_DIR');

/** Ids that are taken when a new note is created are drawn again, at most this many times. */
const ID_ATTEMPTS = 5;

/**
 * The notes, whichever {@link NotesStore} keeps them (`NOTES_STORE`: the JSON file under
 * `NOTES_DIR` by default, or Redis). It gives notes their ids and times and does the searching;
 * the store makes each change atomically, so several server processes can share it.
 */
@Injectable()
export class NotesRepository {
  constructor(@Inject(NOTES_STORE) private readonly store: NotesStore) {}

  /** The JSON file holding the notes; undefined when they are not kept in a file (Redis). */
  get file(): string | undefined {
    return this.store instanceof JsonFileNotesStore ? this.store.file : undefined;
  }

  /** Where the notes are, for the server's own banner and logs (a path, or `Redis at <url>`). */
  get location(): string {
    return this.store.location;
  }

  async create(input: { title: string; body: string; tags?: string[] }): Promise<Note> {
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
      const now = new Date().toISOString();
      const note: Note = {
        id: randomUUID().slice(0, 8),
        title: input.title,
        body: input.body,
        tags: [...new Set(input.tags ?? [])],
        createdAt: now,
        updatedAt: now,
      };
      if (await this.store.insert(note)) return note;
    }
    throw new Error(`Could not find a free note id in ${ID_ATTEMPTS} attempts`);
  }

  get(id: string): Promise<Note | undefined> {
    return this.store.get(id);
  }

  all(): Promise<Note[]> {
    return this.store.all();
  }

  /** Notes whose title, body or tags contain every word of `query` (case-insensitive), newest first. */
  async search(query: string, options: { tag?: string; limit: number }): Promise<Note[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = (await this.store.all()).filter((note) => {
      if (options.tag && !note.tags.includes(options.tag)) return false;
      const haystack = `${note.title}\n${note.body}\n${note.tags.join(' ')}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    return found.reverse().slice(0, options.limit);
  }

  /** Moves a note on the board; the note, or undefined when there is none with `id`. */
  setStatus(id: string, status: NoteStatus): Promise<Note | undefined> {
    return this.store.setStatus(id, status, new Date().toISOString());
  }

  delete(id: string): Promise<boolean> {
    return this.store.delete(id);
  }
}
