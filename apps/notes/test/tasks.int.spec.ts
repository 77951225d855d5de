// The notes app's long-running tools as tasks, through the built server over stdio, in both
// eras: export_notes (task optional: progress per note, at least a second, the export as text
// and structured output) and import_notes (task required: a confirmation is elicited first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Era } from '@gantry/client';
import { RequestCancelledError } from '@gantry/protocol';
import { createNote, resultText, startNotesProcess } from './support/notes-processes';

const dirs: string[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A notes server on a fresh NOTES_DIR; `confirm` is what the user answers an import. */
async function notes(
  era: Era,
  confirm: () => { action: 'accept' | 'decline'; content?: { confirm: boolean } },
) {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-notes-tasks-'));
  dirs.push(dir);
  const asked: string[] = [];
  const { client } = await startNotesProcess(dir, {
    era,
    capabilities: { elicitation: { form: {} } },
    prepare: (client) =>
      client.setRequestHandler('elicitation/create', (params) => {
        asked.push(String(params.message));
        return confirm();
      }),
  });
  clients.push(client);
  return { client, asked };
}

describe.each<Era>(['session', 'stateless'])('notes tasks, %s era', (era) => {
  it('export_notes runs as a task with progress per note and returns the export', async () => {
    const { client } = await notes(era, () => ({ action: 'accept', content: { confirm: true } }));
    await createNote(client, 'First');
    await createNote(client, 'Second');
    const tools = await client.listTools();
    expect(tools.find((t) => t.name === 'export_notes')?.execution?.taskSupport).toBe('optional');
    expect(tools.find((t) => t.name === 'import_notes')?.execution?.taskSupport).toBe('required');

    const started = Date.now();
    const task = await client.callTool('export_notes', { format: 'json' }, { task: true });
    expect(task.taskId).toBeDefined();
    const messages: string[] = [];
    for await (const update of task) if (update.statusMessage) messages.push(update.statusMessage);
    const result = await task.result();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(result.structuredContent).toMatchObject({ format: 'json', count: 2 });
    const exported = JSON.parse((result.structuredContent as { content: string }).content);
    expect(exported.notes.map((n: { title: string }) => n.title)).toEqual(['First', 'Second']);
    if (era === 'stateless') {
      // The extension turns progress into the task's status message.
      expect(messages.some((m) => /exported (First|Second)/.test(m))).toBe(true);
    }

    const markdown = await client.callTool('export_notes', { format: 'markdown' });
    expect(resultText(markdown)).toContain('## First');
  });

  it('import_notes asks first: accepted, the notes are written; declined, nothing is', async () => {
    let answer: 'accept' | 'decline' = 'decline';
    const { client, asked } = await notes(era, () =>
      answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
    );
    const content = JSON.stringify({
      notes: [{ title: 'Imported', body: 'from elsewhere', tags: ['moved'] }],
    });
    const declined = await client.callTool('import_notes', { content }, { task: true });
    expect(resultText(await declined.result())).toBe('Nothing imported');
    expect((await client.callTool('search_notes', { query: 'elsewhere' })).structuredContent).toMatchObject({
      count: 0,
    });

    answer = 'accept';
    const accepted = await client.callTool('import_notes', { content }, { task: true });
    expect(resultText(await accepted.result())).toBe('Imported 1 note(s)');
    expect(asked).toEqual(['Import 1 note(s)?', 'Import 1 note(s)?']);
    expect((await client.callTool('search_notes', { query: 'elsewhere' })).structuredContent).toMatchObject({
      count: 1,
      notes: [{ title: 'Imported', tags: ['moved'] }],
    });
    // Only as a task: called directly it is refused.
    await expect(client.callTool('import_notes', { content })).rejects.toThrow(/only as a task/);
  });

  it('a cancelled export stops', async () => {
    const { client } = await notes(era, () => ({ action: 'decline' }));
    for (const title of ['a', 'b', 'c']) await createNote(client, title);
    const task = await client.callTool('export_notes', { format: 'markdown' }, { task: true });
    const outcome = task.result().catch((error: unknown) => error);
    await task.cancel();
    expect(await outcome).toBeInstanceOf(RequestCancelledError);
    expect((await task.status())?.status).toBe('cancelled');
  });
});
