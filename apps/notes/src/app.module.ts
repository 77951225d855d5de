import { join, resolve } from 'node:path';
import { Module, SkillsModule } from '@gantry/core';
import { NotesBoardView } from './board/notes-board.view';
import { NotesPrompts } from './notes.prompts';
import { NOTES_DIR, NotesRepository } from './notes.repository';
import { NotesResources } from './notes.resources';
import { NotesTools } from './notes.tools';

/** The app's skills folder (`skills/<name>/SKILL.md`), beside src/ and dist/. */
export const NOTES_SKILLS_DIR = join(__dirname, '..', 'skills');

@Module({
  // Agent Skills over MCP (io.modelcontextprotocol/skills): skill://tidy-notes/SKILL.md.
  imports: [SkillsModule.forRoot({ dir: NOTES_SKILLS_DIR, directoryRead: true })],
  providers: [
    { provide: NOTES_DIR, useFactory: () => resolve(process.env.NOTES_DIR ?? 'data') },
    NotesRepository,
    NotesTools,
    NotesResources,
    NotesPrompts,
    NotesBoardView,
  ],
})
export class AppModule {}
