import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@gantry/core';
import { JsonFileStore } from './json-file-store';

/** The directory holding `notes.json`: `$NOTES_DIR`, or `./data`. Several server processes may share it. */
export const NOTES_DIR = Symbol('NOTES_DIR');

/** Where a note stands on the board view (`ui://notes/board`). */
export type NoteStatus = 'todo' | 'doing' | 'done';
export const NOTE_STATUSES: readonly NoteStatus[] = ['todo', 'doing', 'done'];

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  /** Absent in files written before the board existed: read as `todo`. */
  status?: NoteStatus;
  createdAt: string;
  updatedAt: string;
}

interface NotesFile {
  version: 1;
  notes: Note[];
}

/**
 * Notes kept in one JSON file, which several server processes may share (an MCP host starts
 * one stdio server per session, all on the same `NOTES_DIR`): every change is made under a
 * cross-process lock on the latest version of the file, and reads see other processes' changes.
 */
@Injectable()
export class NotesRepository implements OnModuleInit, OnApplicationShutdown {
  private readonly store: JsonFileStore<NotesFile>;

  constructor(@Inject(NOTES_DIR) dir: string) {
    this.store = new JsonFileStore({
      path: join(dir, 'notes.json'),
      empty: () => ({ version: 1, notes: [] }),
      name: 'notes store',
    });
  }

  get file(): string {
    return this.store.path;
  }

  /** Clears what a server killed in the middle of a write left behind. */
  async onModuleInit(): Promise<void> {
    try {
      await this.store.removeStaleTempFiles();
    } catch (error) {
      // Not fatal: the store may still be usable, and every later failure is reported.
      process.stderr.write(
        `gantry-notes: could not remove stale temporary files next to ${this.file}: ${(error as Error).message}\n`,
      );
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.store.close();
  }

  async create(input: { title: string; body: string; tags?: string[] }): Promise<Note> {
    const now = new Date().toISOString();
    const note: Note = {
      id: randomUUID().slice(0, 8),
      title: input.title,
      body: input.body,
      tags: [...new Set(input.tags ?? [])],
      createdAt: now,
      updatedAt: now,
    };
    await this.store.update((data) => {
      data.notes.push(note);
      return true;
    });
    return note;
  }

  async get(id: string): Promise<Note | undefined> {
    return (await this.store.read()).notes.find((note) => note.id === id);
  }

  async all(): Promise<Note[]> {
    return [...(await this.store.read()).notes];
  }

  /** Notes whose title, body or tags contain every word of `query` (case-insensitive), newest first. */
  async search(query: string, options: { tag?: string; limit: number }): Promise<Note[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = (await this.store.read()).notes.filter((note) => {
      if (options.tag && !note.tags.includes(options.tag)) return false;
      const haystack = `${note.title}\n${note.body}\n${note.tags.join(' ')}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    return found.reverse().slice(0, options.limit);
  }

  /** Moves a note on the board; the note, or undefined when there is none with `id`. */
  async setStatus(id: string, status: NoteStatus): Promise<Note | undefined> {
    let moved: Note | undefined;
    await this.store.update((data) => {
      const note = data.notes.find((candidate) => candidate.id === id);
      if (!note) return false;
      note.status = status;
      note.updatedAt = new Date().toISOString();
      moved = { ...note };
      return true;
    });
    return moved;
  }

  async delete(id: string): Promise<boolean> {
    let deleted = false;
    await this.store.update((data) => {
      const index = data.notes.findIndex((note) => note.id === id);
      if (index === -1) return false;
      data.notes.splice(index, 1);
      deleted = true;
      return true;
    });
    return deleted;
  }
}
