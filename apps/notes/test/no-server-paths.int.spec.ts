import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNote, resultText, startNotesProcess } from './support/notes-processes';

// Log notifications and tool errors reach every client: they must say nothing about the
// server's file system (NOTES_DIR is an absolute path on the server's disk).

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-notes-paths-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('what notes processes tell their clients', () => {
  it('sends log notifications that say nothing about the server file system', async () => {
    const notes = await startNotesProcess(dir);
    const messages: unknown[] = [];
    notes.client.onNotification('notifications/message', (notification) => {
      messages.push(notification.params);
    });
    try {
      const id = await createNote(notes.client, 'Logged');
      expect(resultText(await notes.client.callTool('delete_note', { id }))).toBe(`Deleted note ${id}`);
      // A ping answered after the calls: every notification sent before it has arrived.
      await notes.client.ping();
      expect(messages).toEqual([
        { level: 'info', logger: 'notes', data: { event: `created note ${id}` } },
        { level: 'info', logger: 'notes', data: { event: `deleted note ${id}` } },
      ]);
      for (const message of messages) expect(JSON.stringify(message)).not.toContain(dir);
    } finally {
      await notes.close();
    }
  });

  it('answers a call on an unreadable store without naming its path', async () => {
    const notes = await startNotesProcess(dir);
    try {
      await createNote(notes.client, 'Soon broken');
      // Another program (or a person) leaves the file half-written.
      writeFileSync(join(dir, 'notes.json'), '{"version":1,"notes":[');
      const result = await notes.client.callTool('search_notes', { query: '' });
      expect(result.isError).toBe(true);
      const text = resultText(result);
      expect(text).toBe('The notes store cannot be read: its file is not valid JSON');
      expect(text).not.toContain(dir);
    } finally {
      await notes.close();
    }
  });
});
