import { Args, Complete, Injectable, Prompt } from '@gantry/core';
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
    if (!note) throw new Error(`No note with id ${id}`);
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
