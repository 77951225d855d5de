import { resolve } from 'node:path';
import { Module } from '@gantry/core';
import { NotesPrompts } from './notes.prompts';
import { NOTES_DIR, NotesRepository } from './notes.repository';
import { NotesResources } from './notes.resources';
import { NotesTools } from './notes.tools';

@Module({
  providers: [
    { provide: NOTES_DIR, useFactory: () => resolve(process.env.NOTES_DIR ?? 'data') },
    NotesRepository,
    NotesTools,
    NotesResources,
    NotesPrompts,
  ],
})
export class AppModule {}
