import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';
import { JsonFileStore, StoreError } from '../src/json-file-store';

interface Doc {
  items: string[];
}

let dir: string;
let path: string;
let store: JsonFileStore<Doc>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-json-store-'));
  path = join(dir, 'doc.json');
  store = new JsonFileStore<Doc>({
    path,
    empty: () => ({ items: [] }),
    name: 'test store',
    lock: { timeoutMs: 300 },
  });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const add = (item: string) =>
  store.update((doc) => {
    doc.items.push(item);
    return true;
  });

describe('JsonFileStore', () => {
  it('sees a file another writer replaced, even with one of the same size', async () => {
    await add('aaaa');
    expect(await store.read()).toEqual({ items: ['aaaa'] });
    // Another process's atomic replace: temp file, then rename over the file.
    const temp = join(dir, 'elsewhere.tmp');
    writeFileSync(temp, readFileSync(path, 'utf8').replace('aaaa', 'bbbb'));
    renameSync(temp, path);
    expect(await store.read()).toEqual({ items: ['bbbb'] });
    await add('cccc');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ items: ['bbbb', 'cccc'] });
  });

  it('refuses a write when the file was replaced between its read and its rename', async () => {
    await add('first');
    // A writer that does not take the lock (or took over the same stale lock at the same time).
    const intruder = () => {
      const temp = join(dir, 'intruder.tmp');
      writeFileSync(temp, JSON.stringify({ items: ['first', 'theirs'] }));
      renameSync(temp, path);
    };
    const error = await store
      .update((doc) => {
        intruder();
        doc.items.push('ours');
        return true;
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe(
      'The test store was changed by another process during this write; try again',
    );
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ items: ['first', 'theirs'] });
    expect(readdirSync(dir).sort()).toEqual(['doc.json']);
  });

  it('writes nothing when the change says so', async () => {
    await store.update(() => false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails a write with "busy" while another holder keeps the lock fresh, and writes once it is released', async () => {
    await add('first');
    const release = await lock(path, { realpath: false });
    try {
      const error = await add('second').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toBe(
        'The test store is busy: another process has held the lock for more than 0.3 s',
      );
      expect((error as Error).message).not.toContain(dir);
    } finally {
      await release();
    }
    await add('second');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ items: ['first', 'second'] });
  });

  it('removes only its own temporary files', async () => {
    await add('kept');
    const own = ['.doc.json.4242.0123456789ab.tmp', '.doc.json.1.ffffffffffff.tmp'];
    const foreign = ['.other.json.4242.0123456789ab.tmp', '.0123456789ab.tmp', 'doc.json.tmp', 'notes.txt'];
    for (const name of [...own, ...foreign]) writeFileSync(join(dir, name), '{"half":');
    expect(await store.removeStaleTempFiles()).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['doc.json', ...foreign].sort());
    expect(await store.read()).toEqual({ items: ['kept'] });
  });

  it('reports an unreadable file without its path', async () => {
    writeFileSync(path, '{"items": [');
    const error = await store.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe('The test store cannot be read: its file is not valid JSON');
    const writing = await add('x').catch((e: unknown) => e);
    expect((writing as Error).message).toBe('The test store cannot be read: its file is not valid JSON');
    expect(readFileSync(path, 'utf8')).toBe('{"items": [');
  });
});
