import {
  existsSync,
  type FSWatcher,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  watch,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createNote,
  noteIdsSeenByFreshProcess,
  resultText,
  runConcurrentWriters,
  startNotesProcess,
  storedNoteIds,
} from './support/notes-processes';

// These tests run the built server (dist) as separate processes sharing one NOTES_DIR.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-notes-safety-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const sorted = (ids: string[]) => [...ids].sort();
const tempFiles = () => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

/**
 * A process killed while writing still holds the store's lock. Instead of waiting out the stale
 * time (10 s), make the lock look that old, as a dead holder's lock does by then.
 */
function ageLockAsIfStale(): void {
  const lock = join(dir, 'notes.json.lock');
  if (!existsSync(lock)) return;
  const longAgo = new Date(Date.now() - 60_000);
  utimesSync(lock, longAgo, longAgo);
}

describe('several notes processes on one NOTES_DIR', () => {
  it('keeps every acknowledged note when 4 processes create 50 notes each at once', async () => {
    const { acknowledged, failures } = await runConcurrentWriters({ dir, processes: 4, opsPerProcess: 50 });
    expect(failures).toEqual([]);
    expect(acknowledged).toHaveLength(200);
    expect(sorted(storedNoteIds(dir))).toEqual(sorted(acknowledged));
    expect(sorted(await noteIdsSeenByFreshProcess(dir))).toEqual(sorted(acknowledged));
    expect(tempFiles()).toEqual([]);
  }, 120_000);

  it('lets a process read, search and delete notes another process created after its own first read', async () => {
    const reader = await startNotesProcess(dir);
    const writer = await startNotesProcess(dir);
    try {
      const before = await reader.client.callTool('search_notes', { query: '' });
      expect(JSON.parse(resultText(before)).count).toBe(0);

      const id = await createNote(writer.client, 'Written elsewhere', 'by the other process');

      const got = await reader.client.callTool('get_note', { id });
      expect(got.isError).toBeFalsy();
      expect(JSON.parse(resultText(got))).toMatchObject({ id, title: 'Written elsewhere' });
      const found = await reader.client.callTool('search_notes', { query: 'elsewhere' });
      expect(JSON.parse(resultText(found)).notes.map((n: { id: string }) => n.id)).toEqual([id]);

      // A delete in the reader must not resurrect or drop anything the writer added meanwhile.
      const second = await createNote(writer.client, 'Second');
      expect(resultText(await reader.client.callTool('delete_note', { id }))).toBe(`Deleted note ${id}`);
      expect(storedNoteIds(dir)).toEqual([second]);
    } finally {
      await Promise.all([reader.close(), writer.close()]);
    }
  });

  it('takes over a lock left by a holder that was killed (a lock older than the stale time)', async () => {
    mkdirSync(join(dir, 'notes.json.lock'));
    ageLockAsIfStale();

    const notes = await startNotesProcess(dir);
    try {
      const id = await createNote(notes.client, 'After a crash');
      expect(storedNoteIds(dir)).toEqual([id]);
    } finally {
      await notes.close();
    }
    expect(readdirSync(dir)).toEqual(['notes.json']);
  });
});

describe('a notes process killed with SIGKILL in the middle of a write', () => {
  it('leaves the last complete file, and the next start removes the temporary file', async () => {
    // Big notes make each save take long enough to be caught: the process is frozen (SIGSTOP)
    // the moment a temporary file appears, and killed; if the rename won the race, again.
    const body = 'x'.repeat(100_000);
    const acknowledged: string[] = [];
    let leftover: string[] = [];
    for (let attempt = 0; attempt < 10 && leftover.length === 0; attempt++) {
      const victim = await startNotesProcess(dir);
      const pid = victim.transport.pid as number;
      // A complete file to fall back to, before the watch is armed.
      if (attempt === 0) acknowledged.push(await createNote(victim.client, 'before the crash', body));
      let watcher: FSWatcher | undefined;
      const frozen = new Promise<void>((resolve) => {
        watcher = watch(dir, (_event, name) => {
          if (!name?.endsWith('.tmp')) return;
          watcher?.close();
          process.kill(pid, 'SIGSTOP');
          resolve();
        });
      });
      // Writes keep coming until the process is frozen; each acknowledged one must survive.
      let stop = false;
      const writing = (async () => {
        for (let n = 0; n < 30 && !stop; n++) {
          acknowledged.push(await createNote(victim.client, `attempt ${attempt} note ${n}`, body));
        }
      })().catch(() => undefined);
      await Promise.race([frozen, writing]);
      stop = true;
      watcher?.close();
      leftover = tempFiles();
      process.kill(pid, 'SIGKILL');
      await victim.close().catch(() => undefined);
      await writing;
      ageLockAsIfStale();
    }
    expect(leftover).toHaveLength(1);
    expect(tempFiles()).toEqual(leftover);

    const next = await startNotesProcess(dir);
    try {
      expect(tempFiles()).toEqual([]);
      for (const id of acknowledged.slice(-3)) {
        const got = await next.client.callTool('get_note', { id });
        expect(got.isError).toBeFalsy();
      }
    } finally {
      await next.close();
    }
    expect(sorted(storedNoteIds(dir))).toEqual(expect.arrayContaining(sorted(acknowledged)));
  }, 120_000);
});
