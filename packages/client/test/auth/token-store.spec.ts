import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthRecord,
  defaultAuthDir,
  fileTokenStore,
  memoryTokenStore,
  storeKeyFor,
} from '@gantry/client';

const KEY = 'https://example.com/mcp';
const RECORD: AuthRecord = {
  tokens: { accessToken: 'at-1', tokenType: 'Bearer', refreshToken: 'rt-1', expiresAt: 1_900_000_000_000 },
  client: { issuer: 'https://auth.example.com', clientId: 'gantry-cli' },
};
const fileName = (key: string) => `${createHash('sha256').update(key).digest('hex')}.json`;
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'gantry-token-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('storeKeyFor', () => {
  it.each([
    ['HTTPS://Example.COM:443/mcp/', 'https://example.com/mcp'],
    ['http://localhost:80/mcp?session=1#frag', 'http://localhost/mcp'],
    ['http://127.0.0.1:3000/mcp', 'http://127.0.0.1:3000/mcp'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com//', 'https://example.com/'],
    ['https://user:secret@example.com/a/b/', 'https://example.com/a/b'],
    ['wss://example.com:443/mcp', 'wss://example.com/mcp'],
    ['http://[::1]:8080/mcp', 'http://[::1]:8080/mcp'],
  ])('%s → %s', (input, key) => {
    expect(storeKeyFor(input)).toBe(key);
    expect(storeKeyFor(new URL(input))).toBe(key);
  });

  it('keeps the case of the path, which is significant', () => {
    expect(storeKeyFor('https://example.com/MCP')).toBe('https://example.com/MCP');
  });

  it('refuses what is not an absolute http(s) or ws(s) URL', () => {
    expect(() => storeKeyFor('example.com/mcp')).toThrow(/"example.com\/mcp" is not an absolute URL/);
    expect(() => storeKeyFor('file:///tmp/x')).toThrow(/has scheme file:/);
  });
});

describe('defaultAuthDir', () => {
  it('prefers an absolute $XDG_CONFIG_HOME', () => {
    expect(defaultAuthDir({ XDG_CONFIG_HOME: '/x/config' }, 'linux', '/home/u')).toBe(
      '/x/config/gantry/auth',
    );
  });
  it('ignores a relative $XDG_CONFIG_HOME, as the XDG spec says', () => {
    expect(defaultAuthDir({ XDG_CONFIG_HOME: 'rel' }, 'linux', '/home/u')).toBe(
      '/home/u/.config/gantry/auth',
    );
  });
  it('uses ~/.config on Linux and macOS', () => {
    expect(defaultAuthDir({}, 'linux', '/home/u')).toBe('/home/u/.config/gantry/auth');
    expect(defaultAuthDir({}, 'darwin', '/Users/u')).toBe('/Users/u/.config/gantry/auth');
  });
  it('uses %APPDATA% on Windows', () => {
    expect(defaultAuthDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\gantry\\auth',
    );
    expect(defaultAuthDir({}, 'win32', 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Roaming\\gantry\\auth');
  });
});

describe('memoryTokenStore', () => {
  it('saves, loads, lists and deletes', async () => {
    const store = memoryTokenStore();
    expect(await store.load(KEY)).toBeUndefined();
    await store.save(KEY, RECORD);
    expect(await store.load(KEY)).toEqual(RECORD);
    expect(await store.keys()).toEqual([KEY]);
    await store.delete(KEY);
    expect(await store.load(KEY)).toBeUndefined();
    expect(await store.keys()).toEqual([]);
  });

  it('hands out copies, so a caller cannot change what is held', async () => {
    const store = memoryTokenStore();
    const record = { tokens: { accessToken: 'a', tokenType: 'Bearer' } };
    await store.save(KEY, record);
    record.tokens.accessToken = 'changed';
    const loaded = (await store.load(KEY)) as { tokens: { accessToken: string } };
    expect(loaded.tokens.accessToken).toBe('a');
    loaded.tokens.accessToken = 'changed again';
    expect((await store.load(KEY))?.tokens?.accessToken).toBe('a');
  });
});

describe('fileTokenStore', () => {
  it('writes { key, record } to <sha256(key)>.json in a 0700 directory, as a 0600 file', async () => {
    const dir = join(root, 'nested', 'auth');
    const store = fileTokenStore({ dir });
    await store.save(KEY, RECORD);
    expect(await readdir(dir)).toEqual([fileName(KEY)]);
    expect(JSON.parse(await readFile(join(dir, fileName(KEY)), 'utf8'))).toEqual({
      key: KEY,
      record: RECORD,
    });
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(join(dir, fileName(KEY)))).toBe(0o600);
    expect(await store.load(KEY)).toEqual(RECORD);
  });

  it('round-trips through a second store on the same directory (another run)', async () => {
    await fileTokenStore({ dir: root }).save(KEY, RECORD);
    expect(await fileTokenStore({ dir: root }).load(KEY)).toEqual(RECORD);
  });

  it('replaces a record and leaves no temp file behind', async () => {
    const store = fileTokenStore({ dir: root });
    await store.save(KEY, RECORD);
    const next = { tokens: { accessToken: 'at-2', tokenType: 'Bearer' } };
    await store.save(KEY, next);
    expect(await store.load(KEY)).toEqual(next);
    expect(await readdir(root)).toEqual([fileName(KEY)]);
  });

  it('narrows an existing directory and files that are wider than owner-only', async () => {
    const dir = join(root, 'auth');
    await mkdir(dir);
    await chmod(dir, 0o755);
    const other = 'https://other.example/mcp';
    await writeFile(join(dir, fileName(other)), JSON.stringify({ key: other, record: RECORD }));
    await chmod(join(dir, fileName(other)), 0o644);
    const store = fileTokenStore({ dir });

    await store.save(KEY, RECORD);
    expect(await modeOf(dir)).toBe(0o700);
    expect(await store.load(other)).toEqual(RECORD);
    expect(await modeOf(join(dir, fileName(other)))).toBe(0o600);
  });

  it('reads as undefined and lists nothing when the directory does not exist yet', async () => {
    const store = fileTokenStore({ dir: join(root, 'absent') });
    expect(await store.load(KEY)).toBeUndefined();
    expect(await store.keys()).toEqual([]);
    await store.delete(KEY);
  });

  it('lists the keys held, skipping files that are not records', async () => {
    const store = fileTokenStore({ dir: root });
    await store.save('https://b.example/mcp', RECORD);
    await store.save('https://a.example/mcp', RECORD);
    await writeFile(join(root, 'notes.txt'), 'not a record');
    expect((await store.keys()).sort()).toEqual(['https://a.example/mcp', 'https://b.example/mcp']);
  });

  it('deletes one record, and deleting an absent one is no error', async () => {
    const store = fileTokenStore({ dir: root });
    await store.save(KEY, RECORD);
    await store.save('https://other.example/mcp', RECORD);
    await store.delete(KEY);
    await store.delete(KEY);
    expect(await store.load(KEY)).toBeUndefined();
    expect(await store.keys()).toEqual(['https://other.example/mcp']);
  });

  describe('a corrupt file', () => {
    it.each([
      ['not JSON', '{"key": ', /is not valid JSON; delete it/],
      ['not an object', '[1, 2]', /is corrupt \(not an object\)/],
      [
        'a record of the wrong shape',
        JSON.stringify({ key: KEY, record: { tokens: { tokenType: 'Bearer' } } }),
        /"record.tokens.accessToken" is not a string/,
      ],
      [
        'another key',
        JSON.stringify({ key: 'https://elsewhere/mcp', record: RECORD }),
        /holds the key "https:\/\/elsewhere\/mcp", not "https:\/\/example.com\/mcp"/,
      ],
    ])('(%s) reads as undefined and is reported through onError', async (_what, content, message) => {
      await writeFile(join(root, fileName(KEY)), content, { mode: 0o600 });
      const errors: Error[] = [];
      const store = fileTokenStore({ dir: root, onError: (error) => errors.push(error) });
      expect(await store.load(KEY)).toBeUndefined();
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toMatch(message);
      expect(errors[0]!.message).toContain(join(root, fileName(KEY)));
    });

    it('is skipped by keys(), reported, and does not throw without onError', async () => {
      const errors: Error[] = [];
      await fileTokenStore({ dir: root }).save(KEY, RECORD);
      await writeFile(join(root, fileName('https://broken/mcp')), 'garbage');
      expect(await fileTokenStore({ dir: root, onError: (e) => errors.push(e) }).keys()).toEqual([KEY]);
      expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/is not valid JSON/)]);
      expect(await fileTokenStore({ dir: root }).load('https://broken/mcp')).toBeUndefined();
    });

    it('is replaced by the next save', async () => {
      await writeFile(join(root, fileName(KEY)), 'garbage');
      const store = fileTokenStore({ dir: root, onError: () => {} });
      await store.save(KEY, RECORD);
      expect(await store.load(KEY)).toEqual(RECORD);
    });
  });

  it('refuses an empty key', async () => {
    await expect(fileTokenStore({ dir: root }).save('', RECORD)).rejects.toThrow(/non-empty string/);
    expect(await readdir(root)).toEqual([]);
  });
});
