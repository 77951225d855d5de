import { resolve } from 'node:path';
import { Module } from '@gantry/core';
import { NOTES_DIR, NotesRepository } from './notes.repository';
import { NotesTools } from './notes.tools';

@Module({
  providers: [
    { provide: NOTES_DIR, useFactory: () => resolve(process.env.NOTES_DIR ?? 'data') },
    NotesRepository,
    NotesTools,
  ],
})
export class AppModule {}
