import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileLock, type FileLockOptions, type HeldLock, LockTimeoutError } from './file-lock';

/** Where a {@link JsonFileStore} keeps its document, and how it names itself in errors. */
export interface JsonFileStoreOptions<T> {
  /** The JSON file. Its directory is created on the first write. */
  path: string;
  /** The document to start from when the file does not exist yet. */
  empty: () => T;
  /** How error messages name the store, e.g. "notes store". Default "store". */
  name?: string;
  /** How long to wait for another process's lock, and when a lock counts as abandoned. */
  lock?: FileLockOptions;
}

/**
 * A failure of the store, worded for whoever called the tool: what went wrong, never where on
 * the server's disk (the path and the original error are in `cause`, for the server's logs).
 */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** A version of the file as read, with a handle that keeps its inode from being reused. */
interface Snapshot<T> {
  readonly handle: FileHandle;
  readonly stats: BigIntStats;
  readonly document: T;
}

/**
 * A JSON document on disk, shared safely by any number of processes.
 *
 * - Writes are read-modify-write under a cross-process lock ({@link FileLock}): the file is
 *   re-read under the lock, changed and written back, so no process overwrites what another
 *   wrote since it last looked.
 * - Each write goes to a temporary file in the same directory that is renamed over the old
 *   one, so a reader or a crash never sees half a file. A process killed before its rename
 *   leaves that temporary file; {@link removeStaleTempFiles} clears them.
 * - Reads take no lock (a rename is atomic) and are served from memory while the file is the
 *   one last read: same inode, size, mtime and ctime. The snapshot's file stays open so its
 *   inode number cannot be given to a newer file, which makes "same inode" mean "same file"
 *   (files are only ever replaced, never written in place). Checking costs one `stat`, about
 *   20–40 µs, where re-reading a 1 MiB file costs about 4 ms.
 */
export class JsonFileStore<T> {
  readonly path: string;
  private readonly directory: string;
  private readonly empty: () => T;
  private readonly name: string;
  private readonly lock: FileLock;
  private readonly tempName: RegExp;
  private snapshot?: Snapshot<T>;

  constructor(options: JsonFileStoreOptions<T>) {
    this.path = options.path;
    this.directory = dirname(options.path);
    this.empty = options.empty;
    this.name = options.name ?? 'store';
    this.lock = new FileLock(options.path, options.lock);
    this.tempName = new RegExp(`^\\.${escapeRegExp(basename(options.path))}\\.\\d+\\.[0-9a-f]{12}\\.tmp$`);
  }

  /**
   * The stored document as it is now (a fresh empty one while the file does not exist). It is
   * shared with later reads until the file changes: do not modify it, use {@link update}.
   */
  async read(): Promise<T> {
    const stats = await this.statFile('read');
    if (stats === undefined) {
      this.install(undefined);
      return this.empty();
    }
    const current = this.snapshot;
    if (current && sameVersion(current.stats, stats)) return current.document;
    const loaded = await this.load();
    this.install(loaded);
    return loaded?.document ?? this.empty();
  }

  /**
   * Changes the document: `change` gets the latest version, read under the lock, modifies it
   * in place and returns whether to write it (false leaves the file as it is). Resolves once
   * the new file is in place.
   */
  async update(change: (document: T) => boolean): Promise<void> {
    try {
      await mkdir(this.directory, { recursive: true });
      await this.lock.run(async (held) => {
        const base = await this.load();
        let written = false;
        try {
          const document = base?.document ?? this.empty();
          if (!change(document)) return;
          await this.replace(document, base, held);
          written = true;
        } finally {
          if (written || !base) await base?.handle.close();
          else this.install(base);
        }
      });
    } catch (error) {
      throw this.failure('written', error);
    }
  }

  /**
   * Removes the temporary files of writers that died before their rename (`kill -9`, power
   * loss), and returns how many there were. Only this store's own files are touched
   * (`.<file name>.<pid>.<random>.tmp`), and only while holding the lock: every cooperating
   * process writes its temporary file under the lock, so none is in the middle of a write then.
   */
  async removeStaleTempFiles(): Promise<number> {
    try {
      if ((await this.tempFiles()).length === 0) return 0;
      return await this.lock.run(async () => {
        const names = await this.tempFiles();
        await Promise.all(names.map((name) => rm(join(this.directory, name), { force: true })));
        return names.length;
      });
    } catch (error) {
      throw this.failure('cleaned', error);
    }
  }

  /** Closes the file kept open for the cached version. */
  async close(): Promise<void> {
    this.install(undefined);
  }

  private async tempFiles(): Promise<string[]> {
    try {
      return (await readdir(this.directory)).filter((name) => this.tempName.test(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Writes `document` next to the file and renames it over the file, if the file is still `base`. */
  private async replace(document: T, base: Snapshot<T> | undefined, held: HeldLock): Promise<void> {
    const suffix = `${process.pid}.${randomBytes(6).toString('hex')}`;
    const temp = join(this.directory, `.${basename(this.path)}.${suffix}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(document, null, 2)}\n`, 'utf8');
      // Under the lock nobody else replaces the file. Check anyway, just before the rename:
      // proper-lockfile can let two processes take over the same stale lock (its issue #121),
      // and a holder whose refresh failed has lost the lock.
      held.assertHeld();
      const now = await this.statFile('read');
      if (!(now === undefined ? base === undefined : base !== undefined && sameVersion(base.stats, now))) {
        throw new StoreError(`The ${this.name} was changed by another process during this write; try again`);
      }
      await rename(temp, this.path);
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    // Written: what follows only fills the cache and must not report a failure.
    try {
      this.install({ handle, stats: await handle.stat({ bigint: true }), document });
    } catch {
      await handle.close().catch(() => undefined);
    }
  }

  /** Reads and parses the file; undefined when it does not exist. */
  private async load(): Promise<Snapshot<T> | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.failure('read', error);
    }
    try {
      const stats = await handle.stat({ bigint: true });
      const text = await handle.readFile('utf8');
      return { handle, stats, document: JSON.parse(text) as T };
    } catch (error) {
      await handle.close();
      throw this.failure('read', error);
    }
  }

  private async statFile(action: string): Promise<BigIntStats | undefined> {
    try {
      return await stat(this.path, { bigint: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.failure(action, error);
    }
  }

  /** Makes `next` the cached version, closing the file of the one it replaces. */
  private install(next: Snapshot<T> | undefined): void {
    const previous = this.snapshot;
    this.snapshot = next;
    if (previous && previous.handle !== next?.handle) previous.handle.close().catch(() => undefined);
  }

  private failure(action: string, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    const cause = { cause: error };
    if (error instanceof LockTimeoutError)
      return new StoreError(`The ${this.name} is busy: ${error.message}`, cause);
    if (error instanceof SyntaxError) {
      return new StoreError(`The ${this.name} cannot be read: its file is not valid JSON`, cause);
    }
    const code = (error as NodeJS.ErrnoException).code;
    return new StoreError(`The ${this.name} cannot be ${action}${code ? ` (${code})` : ''}`, cause);
  }
}

function sameVersion(a: BigIntStats, b: BigIntStats): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
