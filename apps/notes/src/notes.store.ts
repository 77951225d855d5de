/** Where a note stands on the board view (`ui://notes/board`). */
export type NoteStatus = 'todo' | 'doing' | 'done';
export const NOTE_STATUSES: readonly NoteStatus[] = ['todo', 'doing', 'done'];

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  /** Absent in files written before the board existed: read as `todo`. */
  status?: NoteStatus;
  createdAt: string;
  updatedAt: string;
}

/**
 * Where the notes live: what {@link NotesRepository} needs of a storage backend. Every method
 * is one atomic change or one read, safe to call from several processes at once; ids, times and
 * search are the repository's business. Implementations: `JsonFileNotesStore` (one JSON file
 * under a cross-process lock) and `RedisNotesStore` (hashes and a sorted set in Redis).
 */
export interface NotesStore {
  /** Where the notes are, for humans (a path, or `Redis at <url>`); never shown to clients. */
  readonly location: string;
  /** Adds `note` after every other note; false (and nothing written) when its id is taken. */
  insert(note: Note): Promise<boolean>;
  get(id: string): Promise<Note | undefined>;
  /** Every note, oldest first (the order they were inserted in). */
  all(): Promise<Note[]>;
  /** Sets a note's status and `updatedAt`; the note as now stored, or undefined (and nothing written) when there is none with `id`. */
  setStatus(id: string, status: NoteStatus, updatedAt: string): Promise<Note | undefined>;
  /** Removes a note; false when there was none with `id`. */
  delete(id: string): Promise<boolean>;
}

/** The {@link NotesStore} the app uses. Override it in `Test.createTestingModule` to swap backends. */
export const NOTES_STORE = Symbol('NOTES_STORE');

/**
 * How the app keeps its notes: in `notes.json` under `NOTES_DIR` (no `redis`), or in Redis.
 * `main.ts` builds it from `--redis` / `REDIS_URL`.
 */
export interface NotesConfig {
  redis?: {
    /** A `redis://` or `rediss://` URL. */
    url: string;
    /** Prefix of every key. Default `notes:`. */
    prefix?: string;
  };
}

/** The {@link NotesConfig} of the app; AppModule provides `{}` (the JSON file). */
export const NOTES_CONFIG = Symbol('NOTES_CONFIG');
