import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * A JSON document on disk, written atomically: each save goes to a temporary file in the same
 * directory and is renamed over the old one, so a crash never leaves half a file. Saves are
 * serialized, so concurrent tool calls cannot interleave their writes.
 */
export class JsonFileStore<T> {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly empty: () => T,
  ) {}

  /** The stored document, or a fresh empty one when the file does not exist yet. */
  async load(): Promise<T> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.empty();
      throw new Error(`Cannot read the notes file ${this.path}: ${(error as Error).message}`);
    }
  }

  /** Replaces the document on disk. */
  save(document: T): Promise<void> {
    const next = this.writing.then(() => this.writeAtomically(document));
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async writeAtomically(document: T): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temp = join(dirname(this.path), `.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(temp, `${JSON.stringify(document, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
      await rename(temp, this.path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
}
