import { Args, Complete, Injectable, Prompt } from '@gantry/core';
import { InvalidParamsError } from '@gantry/protocol';
import { SummarizeNote } from './notes.dto';
import { NotesRepository } from './notes.repository';

const STYLES: Record<string, string> = {
  bullets: 'in three bullet points',
  paragraph: 'in one short paragraph',
  tweet: 'in at most 280 characters',
};

/** Prompts over notes. */
@Injectable()
export class NotesPrompts {
  constructor(private readonly notes: NotesRepository) {}

  @Prompt({
    title: 'Summarize a note',
    description: 'Ask the model to summarize one note',
    complete: { style: Object.keys(STYLES) },
  })
  async summarizeNote(@Args() { id, style }: SummarizeNote) {
    const note = await this.notes.get(id);
    // An id that names no note is the caller's mistake, not the server's: −32602 (MCP
    // 2025-11-25, Server Features §Prompts "Error Handling": invalid prompt arguments).
    if (!note)
      throw new InvalidParamsError(`Unknown note id '${id}' (argument 'id')`, { argument: 'id', id });
    return [
      `Summarize the following note ${STYLES[style] ?? STYLES.bullets}.`,
      {
        type: 'resource' as const,
        resource: {
          uri: `notes://${id}`,
          mimeType: 'text/markdown',
          text: `# ${note.title}\n\n${note.body}\n`,
        },
      },
    ];
  }

  @Complete('id')
  async completeId(prefix: string): Promise<string[]> {
    return (await this.notes.all()).map((n) => n.id).filter((id) => id.startsWith(prefix));
  }
}
