import { Complete, Injectable, Param, Resource, ResourceList } from '@gantry/core';
import { NotesRepository } from './notes.repository';

/** Notes as resources: an index, and each note by id (listed and completable). */
@Injectable()
export class NotesResources {
  constructor(private readonly notes: NotesRepository) {}

  @Resource({ uri: 'notes://index', name: 'index', title: 'All notes', mimeType: 'text/markdown' })
  async index(): Promise<string> {
    const all = await this.notes.all();
    if (all.length === 0) return '# Notes\n\n(no notes yet)\n';
    return `# Notes\n\n${all.map((n) => `- [${n.title}](notes://${n.id})${n.tags.length ? ` — ${n.tags.join(', ')}` : ''}`).join('\n')}\n`;
  }

  @Resource({ uri: 'notes://{id}', name: 'note', title: 'A note', mimeType: 'text/markdown' })
  async note(@Param('id') id: string): Promise<string | undefined> {
    const note = await this.notes.get(id);
    // undefined → resource not found (−32002) with the URI in data.
    return note && `# ${note.title}\n\n${note.body}\n`;
  }

  @ResourceList('notes://{id}')
  async list() {
    return (await this.notes.all()).map((n) => ({ uri: `notes://${n.id}`, name: n.id, title: n.title }));
  }

  @Complete('id')
  async completeId(prefix: string): Promise<string[]> {
    return (await this.notes.all()).map((n) => n.id).filter((id) => id.startsWith(prefix));
  }
}
