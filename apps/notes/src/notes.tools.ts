import { Args, Injectable, Tool } from '@gantry/core';
import { CreateNote, NoteId, SearchNotes } from './notes.dto';
import { type Note, NotesRepository } from './notes.repository';

function summary(note: Note) {
  return { id: note.id, title: note.title, tags: note.tags, updatedAt: note.updatedAt };
}

/** The notes tools: create, read, search and delete. */
@Injectable()
export class NotesTools {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({ description: 'Create a note and return its id', annotations: { destructiveHint: false } })
  async createNote(@Args() input: CreateNote): Promise<string> {
    const note = await this.notes.create(input);
    return `Created note ${note.id}: ${note.title}`;
  }

  @Tool({ description: 'Read one note by id', annotations: { readOnlyHint: true } })
  async getNote(@Args() { id }: NoteId): Promise<Note> {
    const note = await this.notes.get(id);
    if (!note) throw new Error(`No note with id ${id}`);
    return note;
  }

  @Tool({ description: 'Search notes by words and tag, newest first', annotations: { readOnlyHint: true } })
  async searchNotes(@Args() input: SearchNotes) {
    const found = await this.notes.search(input.query, { tag: input.tag, limit: input.limit });
    return { count: found.length, notes: found.map(summary) };
  }

  @Tool({ description: 'Delete a note by id', annotations: { destructiveHint: true, idempotentHint: true } })
  async deleteNote(@Args() { id }: NoteId): Promise<string> {
    if (!(await this.notes.delete(id))) throw new Error(`No note with id ${id}`);
    return `Deleted note ${id}`;
  }
}
