// Token stores: where an auth strategy keeps tokens and client registrations between runs
// (the TokenStore seam of ./types). Tokens are bearer credentials (RFC 6750 §5.3: keep them
// from disclosure), so the file store is owner-only: a 0700 directory of 0600 files, written
// atomically so a crash mid-write never leaves half a token behind.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import type { AuthRecord, TokenStore } from './types';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const RECORD_FILE = /^[0-9a-f]{64}\.json$/;

/**
 * A store that lives as long as the process: for tests, and for clients that must not write
 * tokens to disk. Records are copied in and out, so callers cannot change what is held.
 */
export function memoryTokenStore(): TokenStore {
  const records = new Map<string, AuthRecord>();
  return {
    async load(key) {
      const record = records.get(key);
      return record === undefined ? undefined : structuredClone(record);
    },
    async save(key, record) {
      checkKey(key);
      records.set(key, structuredClone(record));
    },
    async delete(key) {
      records.delete(key);
    },
    async keys() {
      return [...records.keys()];
    },
  };
}

/** Options of {@link fileTokenStore}. */
export interface FileTokenStoreOptions {
  /** Where the records live; default {@link defaultAuthDir}. */
  readonly dir?: string;
  /**
   * Hears a record that could not be read (corrupt JSON, wrong shape, unreadable file). The
   * store then acts as if the record were absent, so a damaged file costs a sign-in, not a crash.
   */
  readonly onError?: (error: Error) => void;
}

/**
 * Where `fileTokenStore` keeps records by default: `$XDG_CONFIG_HOME/gantry/auth` when that
 * is set to an absolute path (XDG Base Directory spec: relative values are ignored), else
 * `%APPDATA%\gantry\auth` on Windows and `~/.config/gantry/auth` elsewhere.
 */
export function defaultAuthDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const path = platform === 'win32' ? win32 : posix;
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'gantry', 'auth');
  if (platform === 'win32') {
    return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'gantry', 'auth');
  }
  return posix.join(home, '.config', 'gantry', 'auth');
}

/**
 * A store of one JSON file per key under `dir`, named by the SHA-256 of the key (hex) so any
 * key makes a safe file name; each file holds `{ key, record }`. The directory is created
 * 0700 and files 0600; existing ones with wider permissions are narrowed when touched.
 *
 * @example
 * ```ts
 * const store = fileTokenStore({ onError: (error) => console.warn(error.message) });
 * await store.save(storeKeyFor('https://example.com/mcp'), { tokens });
 * ```
 */
export function fileTokenStore(options: FileTokenStoreOptions = {}): TokenStore {
  const dir = options.dir ?? defaultAuthDir();
  const report = (error: Error) => options.onError?.(error);
  const fileOf = (key: string) => join(dir, `${hashKey(key)}.json`);

  return {
    async load(key) {
      const file = fileOf(key);
      const text = await readRecordFile(file, report);
      if (text === undefined) return undefined;
      const entry = parseEntry(text, file, report);
      if (entry === undefined) return undefined;
      if (entry.key !== key) {
        report(
          new Error(`Token store file ${file} holds the key "${entry.key}", not "${key}"; delete the file`),
        );
        return undefined;
      }
      return entry.record;
    },

    async save(key, record) {
      checkKey(key);
      await secureDir(dir);
      const file = fileOf(key);
      // Same directory, so the rename is atomic (POSIX rename(2); Node replaces on Windows too).
      const temp = join(dir, `.${hashKey(key)}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temp, 'wx', FILE_MODE);
      try {
        await handle.writeFile(`${JSON.stringify({ key, record }, null, 2)}\n`);
        await handle.sync();
      } catch (error) {
        await handle.close();
        await unlink(temp).catch(() => {});
        throw error;
      }
      await handle.close();
      try {
        await rename(temp, file);
      } catch (error) {
        await unlink(temp).catch(() => {});
        throw error;
      }
    },

    async delete(key) {
      await unlink(fileOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },

    async keys() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const keys: string[] = [];
      for (const name of names.filter((n) => RECORD_FILE.test(n)).sort()) {
        const file = join(dir, name);
        const text = await readRecordFile(file, report);
        const entry = text === undefined ? undefined : parseEntry(text, file, report);
        if (entry === undefined) continue;
        if (`${hashKey(entry.key)}.json` !== name) {
          report(
            new Error(
              `Token store file ${file} holds the key "${entry.key}" under another key's name; delete the file`,
            ),
          );
          continue;
        }
        keys.push(entry.key);
      }
      return keys;
    },
  };
}

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function checkKey(key: string): void {
  if (typeof key !== 'string' || key === '') {
    throw new TypeError('TokenStore.save: the key must be a non-empty string (see storeKeyFor)');
  }
}

/** Creates `dir` owner-only, or narrows it when it exists with group or other bits set. */
async function secureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  await narrow(dir, DIR_MODE);
}

/** chmods `path` to `mode` when it grants anything beyond it (no-op on Windows, which has no mode bits). */
async function narrow(path: string, mode: number): Promise<void> {
  if (process.platform === 'win32') return;
  const { mode: current } = await stat(path);
  if ((current & 0o777 & ~mode) !== 0) await chmod(path, mode);
}

/** The file's text, undefined when absent; unreadable files are reported and read as absent. */
async function readRecordFile(file: string, report: (error: Error) => void): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    report(
      new Error(`Token store file ${file} cannot be read: ${(error as Error).message}`, { cause: error }),
    );
    return undefined;
  }
  // A file left readable by others is narrowed, not refused: refusing would not unexpose it.
  await narrow(file, FILE_MODE).catch((error: Error) =>
    report(
      new Error(`Token store file ${file} is readable by others and cannot be chmod 600: ${error.message}`),
    ),
  );
  return text;
}

interface Entry {
  readonly key: string;
  readonly record: AuthRecord;
}

function parseEntry(text: string, file: string, report: (error: Error) => void): Entry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    report(
      new Error(`Token store file ${file} is not valid JSON; delete it to sign in again`, { cause: error }),
    );
    return undefined;
  }
  const problem = entryProblem(value);
  if (problem !== undefined) {
    report(new Error(`Token store file ${file} is corrupt (${problem}); delete it to sign in again`));
    return undefined;
  }
  return value as Entry;
}

/** What is wrong with a parsed file, or undefined when it has the `{ key, record }` shape. */
function entryProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (typeof value.key !== 'string' || value.key === '') return '"key" is not a non-empty string';
  const record = value.record;
  if (!isObject(record)) return '"record" is not an object';
  const { tokens, client } = record;
  if (tokens !== undefined) {
    if (!isObject(tokens)) return '"record.tokens" is not an object';
    if (typeof tokens.accessToken !== 'string') return '"record.tokens.accessToken" is not a string';
    if (typeof tokens.tokenType !== 'string') return '"record.tokens.tokenType" is not a string';
  }
  if (client !== undefined) {
    if (!isObject(client)) return '"record.client" is not an object';
    if (typeof client.issuer !== 'string') return '"record.client.issuer" is not a string';
    if (typeof client.clientId !== 'string') return '"record.client.clientId" is not a string';
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
