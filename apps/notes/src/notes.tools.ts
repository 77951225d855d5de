import { Args, Ctx, Injectable, type McpContext, Tool } from '@gantry/core';
import { BOARD_URI } from './board/notes-board.view';
import { CreateNote, MoveNote, NoteId, SearchNotes, SearchResult } from './notes.dto';
import { type Note, NotesRepository } from './notes.repository';

/**
 * The notes tools: create, read, search, move and delete. Changes are logged and announced.
 * `search_notes` shows its results on the board view in hosts with MCP Apps; `move_note` is
 * the board's own (app-only) tool.
 */
@Injectable()
export class NotesTools {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({ description: 'Create a note and return its id', annotations: { destructiveHint: false } })
  async createNote(@Args() input: CreateNote, @Ctx() ctx: McpContext): Promise<string> {
    const note = await this.notes.create(input);
    await this.announce(ctx, `created note ${note.id}`, note.id);
    return `Created note ${note.id}: ${note.title}`;
  }

  @Tool({ description: 'Read one note by id', annotations: { readOnlyHint: true } })
  async getNote(@Args() { id }: NoteId): Promise<Note> {
    const note = await this.notes.get(id);
    if (!note) throw new Error(`No note with id ${id}`);
    return note;
  }

  @Tool({
    description: 'Search notes by words and tag, newest first',
    output: SearchResult,
    annotations: { readOnlyHint: true },
    ui: { resource: BOARD_URI },
  })
  async searchNotes(@Args() input: SearchNotes, @Ctx() ctx: McpContext): Promise<SearchResult> {
    await ctx.progress(0, 2, 'searching');
    const found = await this.notes.search(input.query, { tag: input.tag, limit: input.limit });
    await ctx.progress(1, 2, `found ${found.length}`);
    const result = {
      count: found.length,
      notes: found.map((n) => ({
        id: n.id,
        title: n.title,
        tags: n.tags,
        status: n.status ?? 'todo',
        updatedAt: n.updatedAt,
      })),
    };
    await ctx.progress(2, 2, 'done');
    return result;
  }

  /** Called by the board view (`visibility: ['app']`): hosts keep it out of the model's tools. */
  @Tool({
    description: 'Move a note to another column of the board (todo, doing, done)',
    annotations: { idempotentHint: true },
    ui: { resource: BOARD_URI, visibility: ['app'] },
  })
  async moveNote(@Args() { id, status }: MoveNote, @Ctx() ctx: McpContext) {
    const note = await this.notes.setStatus(id, status);
    if (!note) throw new Error(`No note with id ${id}`);
    await this.announce(ctx, `moved note ${id} to ${status}`, id);
    return {
      content: [{ type: 'text' as const, text: `Moved ${id} to ${status}` }],
      structuredContent: {
        note: { id: note.id, title: note.title, tags: note.tags, status, updatedAt: note.updatedAt },
      },
    };
  }

  /** Model-only on the board (`visibility: ['model']`): hosts refuse it to the view, so a view cannot delete. */
  @Tool({
    description: 'Delete a note by id',
    annotations: { destructiveHint: true, idempotentHint: true },
    ui: { resource: BOARD_URI, visibility: ['model'] },
  })
  async deleteNote(@Args() { id }: NoteId, @Ctx() ctx: McpContext): Promise<string> {
    if (!(await this.notes.delete(id))) throw new Error(`No note with id ${id}`);
    await this.announce(ctx, `deleted note ${id}`, id);
    return `Deleted note ${id}`;
  }

  /**
   * A log line, `resources/updated` for the note and the index, and `list_changed`. Log lines
   * go to every client: they say what happened, never where the server keeps its files.
   */
  private async announce(ctx: McpContext, what: string, id: string): Promise<void> {
    await ctx.log('info', { event: what }, 'notes');
    await ctx.resources.updated(`notes://${id}`);
    await ctx.resources.updated('notes://index');
    ctx.resources.listChanged();
  }
}
