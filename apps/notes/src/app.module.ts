import { join, resolve } from 'node:path';
import { type DynamicModule, Module, SkillsModule } from '@gantry/core';
import { NotesBoardView } from './board/notes-board.view';
import { JsonFileNotesStore } from './json-notes.store';
import { NotesPrompts } from './notes.prompts';
import { NOTES_DIR, NotesRepository } from './notes.repository';
import { NotesResources } from './notes.resources';
import { NOTES_CONFIG, NOTES_STORE, type NotesConfig, type NotesStore } from './notes.store';
import { NotesTools } from './notes.tools';
import { NotesTransferTools } from './notes.transfer';
import { RedisNotesStore } from './redis-notes.store';

/** The app's skills folder (`skills/<name>/SKILL.md`), beside src/ and dist/. */
export const NOTES_SKILLS_DIR = join(__dirname, '..', 'skills');

/** The store {@link NotesConfig} asks for: Redis when it names a URL, else `notes.json` in `dir`. */
export function createNotesStore(config: NotesConfig, dir: string): NotesStore {
  if (config.redis) return new RedisNotesStore({ redis: config.redis.url, prefix: config.redis.prefix });
  return new JsonFileNotesStore(join(dir, 'notes.json'));
}

@Module({
  // Agent Skills over MCP (io.modelcontextprotocol/skills): skill://tidy-notes/SKILL.md.
  imports: [SkillsModule.forRoot({ dir: NOTES_SKILLS_DIR, directoryRead: true })],
  providers: [
    { provide: NOTES_DIR, useFactory: () => resolve(process.env.NOTES_DIR ?? 'data') },
    { provide: NOTES_CONFIG, useValue: {} satisfies NotesConfig },
    { provide: NOTES_STORE, useFactory: createNotesStore, inject: [NOTES_CONFIG, NOTES_DIR] },
    NotesRepository,
    NotesTools,
    NotesTransferTools,
    NotesResources,
    NotesPrompts,
    NotesBoardView,
  ],
})
export class AppModule {
  /**
   * The app with its store chosen by `config`: `AppModule.forRoot({ redis: { url } })` keeps the
   * notes in Redis. `AppModule` alone is `forRoot({})`, the JSON file under `NOTES_DIR`.
   */
  static forRoot(config: NotesConfig): DynamicModule {
    return { module: AppModule, providers: [{ provide: NOTES_CONFIG, useValue: config }] };
  }
}
