import { Args, Ctx, Description, Injectable, type McpContext, Tool } from '@gantry/core';
import { IsBoolean, IsIn, IsInt, IsString, MaxLength, Min } from 'class-validator';
import { type Note, NotesRepository } from './notes.repository';

export class ExportNotes {
  @IsIn(['markdown', 'json'])
  @Description(
    'markdown: one section per note; json: { "notes": [{ title, body, tags }] }, which import_notes reads',
  )
  format!: 'markdown' | 'json';
}

export class NotesExport {
  @IsIn(['markdown', 'json']) format!: 'markdown' | 'json';
  @IsInt() @Min(0) count!: number;
  @IsString() content!: string;
}

export class ImportNotes {
  @IsString()
  @MaxLength(5_000_000)
  @Description(
    'Notes as export_notes writes them with format json: { "notes": [{ "title", "body", "tags"? }] }',
  )
  content!: string;
}

export class ConfirmImport {
  @IsBoolean()
  @Description('Write the notes')
  confirm!: boolean;
}

/** An export spreads its work over at least this long, so it is worth running as a task. */
const EXPORT_MIN_MS = 1000;

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function markdownOf(note: Note): string {
  const tags = note.tags.length > 0 ? `\nTags: ${note.tags.join(', ')}\n` : '';
  return `## ${note.title}\n${tags}\n${note.body}\n`;
}

/** The notes of an import, checked one by one; the first problem names the note. */
function parseImport(content: string): { title: string; body: string; tags: string[] }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (error) {
    throw new Error(
      `content is not JSON (${(error as Error).message}); pass what export_notes wrote with format json`,
    );
  }
  const notes = (parsed as { notes?: unknown })?.notes;
  if (!Array.isArray(notes)) throw new Error('content must be an object with "notes", an array');
  return notes.map((note, i) => {
    const { title, body, tags = [] } = (note ?? {}) as { title?: unknown; body?: unknown; tags?: unknown };
    if (typeof title !== 'string' || title.length === 0 || title.length > 200)
      throw new Error(`notes[${i}].title must be a string of 1 to 200 characters`);
    if (typeof body !== 'string') throw new Error(`notes[${i}].body must be a string`);
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string' && /^[a-z0-9-]+$/.test(t)))
      throw new Error(`notes[${i}].tags must be lower-case words such as "work"`);
    return { title, body, tags: tags as string[] };
  });
}

/**
 * Export and import, the app's long-running tools: they run as tasks (MCP 2025-11-25 tasks,
 * the 2026-07-28 tasks extension) where the client supports them. `export_notes` may also be
 * called directly; `import_notes` only as a task, and asks the user before it writes.
 */
@Injectable()
export class NotesTransferTools {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({
    description: 'Export every note as Markdown or JSON (runs as a task; takes a second or more)',
    output: NotesExport,
    annotations: { readOnlyHint: true },
    task: 'optional',
  })
  async exportNotes(@Args() { format }: ExportNotes, @Ctx() ctx: McpContext): Promise<NotesExport> {
    const notes = await this.notes.all();
    const total = Math.max(notes.length, 1);
    const step = EXPORT_MIN_MS / total;
    const parts: string[] = [];
    for (const [i, note] of notes.entries()) {
      await pause(step, ctx.signal);
      parts.push(format === 'markdown' ? markdownOf(note) : '');
      await ctx.progress(i + 1, notes.length, `exported ${note.title}`);
    }
    if (notes.length === 0) await pause(EXPORT_MIN_MS, ctx.signal);
    const content =
      format === 'json'
        ? JSON.stringify({ notes: notes.map(({ title, body, tags }) => ({ title, body, tags })) }, null, 2)
        : `# Notes (${notes.length})\n\n${parts.join('\n')}`;
    return { format, count: notes.length, content };
  }

  @Tool({
    description: 'Import notes written by export_notes (format json); asks for a confirmation first',
    annotations: { destructiveHint: false },
    task: 'required',
  })
  async importNotes(@Args() { content }: ImportNotes, @Ctx() ctx: McpContext): Promise<string> {
    const incoming = parseImport(content);
    const answer = await ctx.elicit(ConfirmImport, `Import ${incoming.length} note(s)?`);
    if (answer.action !== 'accept' || !answer.content.confirm) return 'Nothing imported';
    for (const [i, note] of incoming.entries()) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      await this.notes.create(note);
      await ctx.progress(i + 1, incoming.length, `imported ${note.title}`);
    }
    await ctx.resources.updated('notes://index');
    ctx.resources.listChanged();
    return `Imported ${incoming.length} note(s)`;
  }
}
