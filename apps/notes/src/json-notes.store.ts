import type { OnApplicationShutdown, OnModuleInit } from '@gantry/core';
import { JsonFileStore } from './json-file-store';
import type { Note, NoteStatus, NotesStore } from './notes.store';

interface NotesFile {
  version: 1;
  notes: Note[];
}

/**
 * Notes kept in one JSON file, which several server processes may share (an MCP host starts
 * one stdio server per session, all on the same `NOTES_DIR`): every change is made under a
 * cross-process lock on the latest version of the file, and reads see other processes' changes.
 */
export class JsonFileNotesStore implements NotesStore, OnModuleInit, OnApplicationShutdown {
  private readonly store: JsonFileStore<NotesFile>;

  /** @param path the JSON file, e.g. `<NOTES_DIR>/notes.json`; its directory is created on the first write. */
  constructor(path: string) {
    this.store = new JsonFileStore({
      path,
      empty: () => ({ version: 1, notes: [] }),
      name: 'notes store',
    });
  }

  /** The JSON file. */
  get file(): string {
    return this.store.path;
  }

  get location(): string {
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

  async insert(note: Note): Promise<boolean> {
    let inserted = false;
    await this.store.update((data) => {
      if (data.notes.some((existing) => existing.id === note.id)) return false;
      data.notes.push({ ...note, tags: [...note.tags] });
      inserted = true;
      return true;
    });
    return inserted;
  }

  async get(id: string): Promise<Note | undefined> {
    return (await this.store.read()).notes.find((note) => note.id === id);
  }

  async all(): Promise<Note[]> {
    return [...(await this.store.read()).notes];
  }

  async setStatus(id: string, status: NoteStatus, updatedAt: string): Promise<Note | undefined> {
    let moved: Note | undefined;
    await this.store.update((data) => {
      const note = data.notes.find((candidate) => candidate.id === id);
      if (!note) return false;
      note.status = status;
      note.updatedAt = updatedAt;
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
