import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable } from '@gantry/core';
import { JsonFileStore } from './json-file-store';

/** The directory holding `notes.json`: `$NOTES_DIR`, or `./data`. */
export const NOTES_DIR = Symbol('NOTES_DIR');

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

interface NotesFile {
  version: 1;
  notes: Note[];
}

/** Notes kept in one JSON file. Reads are served from memory after the first load. */
@Injectable()
export class NotesRepository {
  private readonly store: JsonFileStore<NotesFile>;
  private cache?: Promise<NotesFile>;

  constructor(@Inject(NOTES_DIR) dir: string) {
    this.store = new JsonFileStore(join(dir, 'notes.json'), () => ({ version: 1, notes: [] }));
  }

  get file(): string {
    return this.store.path;
  }

  async create(input: { title: string; body: string; tags?: string[] }): Promise<Note> {
    const data = await this.data();
    const now = new Date().toISOString();
    const note: Note = {
      id: randomUUID().slice(0, 8),
      title: input.title,
      body: input.body,
      tags: [...new Set(input.tags ?? [])],
      createdAt: now,
      updatedAt: now,
    };
    data.notes.push(note);
    await this.store.save(data);
    return note;
  }

  async get(id: string): Promise<Note | undefined> {
    return (await this.data()).notes.find((note) => note.id === id);
  }

  async all(): Promise<Note[]> {
    return [...(await this.data()).notes];
  }

  /** Notes whose title, body or tags contain every word of `query` (case-insensitive), newest first. */
  async search(query: string, options: { tag?: string; limit: number }): Promise<Note[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = (await this.data()).notes.filter((note) => {
      if (options.tag && !note.tags.includes(options.tag)) return false;
      const haystack = `${note.title}\n${note.body}\n${note.tags.join(' ')}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    return found.reverse().slice(0, options.limit);
  }

  async delete(id: string): Promise<boolean> {
    const data = await this.data();
    const index = data.notes.findIndex((note) => note.id === id);
    if (index === -1) return false;
    data.notes.splice(index, 1);
    await this.store.save(data);
    return true;
  }

  private data(): Promise<NotesFile> {
    this.cache ??= this.store.load();
    return this.cache;
  }
}
