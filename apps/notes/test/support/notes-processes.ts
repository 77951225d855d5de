// Real notes server processes on one NOTES_DIR, as an MCP host runs them (one stdio process per
// session). Shared by the data-safety tests and the reliability suite: start processes, have
// each write notes concurrently, then compare what was acknowledged with what the store holds.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, type Era, StdioClientTransport } from '@gantry/client';
import type { ClientCapabilities } from '@gantry/protocol';

/** The built notes server; tests that use it need `npx tsc -b` first. */
export const NOTES_MAIN = resolve(__dirname, '../../dist/main.js');

/** One running notes server and the client connected to it over stdio. */
export interface NotesProcess {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Ends the session (stdin closed) and waits for the process to exit. */
  close(): Promise<void>;
}

/** The notes app's tools, in the order tools/list answers them. */
export const NOTES_TOOLS = [
  'create_note',
  'get_note',
  'search_notes',
  'move_note',
  'delete_note',
  'export_notes',
  'import_notes',
];

/**
 * Spawns `node apps/notes/dist/main.js` with `NOTES_DIR=dir` and connects a Gantry client;
 * `prepare` sets the client up (its request handlers) before it connects.
 */
export async function startNotesProcess(
  dir: string,
  options: { era?: Era; capabilities?: ClientCapabilities; prepare?: (client: Client) => void } = {},
): Promise<NotesProcess> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [NOTES_MAIN],
    env: { ...process.env, NOTES_DIR: dir },
    stderr: 'pipe',
  });
  // Drained so a chatty child never blocks on a full stderr pipe.
  transport.stderr?.resume();
  const client = new Client(
    { name: 'notes-processes', version: '1.0.0' },
    options.capabilities ? { capabilities: options.capabilities } : {},
  );
  options.prepare?.(client);
  await client.connect(transport, { era: options.era ?? 'session' });
  return { client, transport, close: () => client.close() };
}

/** The text of a one-block text result (what every notes tool answers). */
export function resultText(result: { content: unknown[] }): string {
  const [block] = result.content as { type?: string; text?: string }[];
  if (result.content.length !== 1 || block.type !== 'text' || typeof block.text !== 'string') {
    throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  }
  return block.text;
}

const CREATED = /^Created note ([0-9a-f]{8}): /;

/** Calls `create_note` and returns the new note's id; throws when the call was not acknowledged. */
export async function createNote(client: Client, title: string, body = `body of ${title}`): Promise<string> {
  const result = await client.callTool('create_note', { title, body });
  const text = resultText(result);
  const id = CREATED.exec(text)?.[1];
  if (result.isError || id === undefined) throw new Error(`create_note '${title}' failed: ${text}`);
  return id;
}

/** What {@link runConcurrentWriters} saw. */
export interface WritersOutcome {
  /** Ids of the notes whose `create_note` was acknowledged, in no particular order. */
  readonly acknowledged: string[];
  /** Messages of the calls that failed (none is expected). */
  readonly failures: string[];
}

/**
 * Starts `processes` notes servers on `dir` (all started before any writes), has each send
 * `opsPerProcess` `create_note` calls at once, and closes them all.
 */
export async function runConcurrentWriters(options: {
  dir: string;
  processes: number;
  opsPerProcess: number;
}): Promise<WritersOutcome> {
  const { dir, processes, opsPerProcess } = options;
  const started = await Promise.all(Array.from({ length: processes }, () => startNotesProcess(dir)));
  const acknowledged: string[] = [];
  const failures: string[] = [];
  try {
    await Promise.all(
      started.flatMap(({ client }, p) =>
        Array.from({ length: opsPerProcess }, (_, op) =>
          createNote(client, `process ${p} note ${op}`).then(
            (id) => void acknowledged.push(id),
            (error: Error) => void failures.push(error.message),
          ),
        ),
      ),
    );
  } finally {
    await Promise.all(started.map((notes) => notes.close()));
  }
  return { acknowledged, failures };
}

/** The ids in `dir/notes.json`, read straight from the file (it must be valid JSON). */
export function storedNoteIds(dir: string): string[] {
  const file = JSON.parse(readFileSync(join(dir, 'notes.json'), 'utf8')) as { notes: { id: string }[] };
  return file.notes.map((note) => note.id);
}

/** The ids a freshly started notes server lists in `notes://index`. */
export async function noteIdsSeenByFreshProcess(dir: string): Promise<string[]> {
  const notes = await startNotesProcess(dir);
  try {
    const index = await notes.client.readResource('notes://index');
    const text = (index.contents[0] as { text: string }).text;
    return [...text.matchAll(/\(notes:\/\/([0-9a-f]{8})\)/g)].map((match) => match[1]);
  } finally {
    await notes.close();
  }
}
