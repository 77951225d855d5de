import { lstat, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Moves the finished project from `temp` to `target` (both on one filesystem, so every move
 * is a rename). A missing target is replaced in one rename. An existing one (empty, holding
 * only `.git`, or anything with `--force`) receives the project entry by entry: it is not
 * replaced itself, so a shell whose working directory it is (`gantry new .`) stays in it. A
 * file with the same name is replaced, a folder is merged, everything else is left alone.
 */
export async function moveIntoPlace(temp: string, target: string): Promise<void> {
  const exists = await lstat(target).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  if (!exists) return rename(temp, target);
  await merge(temp, target);
  await rm(temp, { recursive: true, force: true });
}

async function merge(from: string, to: string): Promise<void> {
  for (const name of await readdir(from)) {
    const source = join(from, name);
    const destination = join(to, name);
    const present = await lstat(destination).catch(() => undefined);
    if (present?.isDirectory() && (await lstat(source)).isDirectory()) {
      await merge(source, destination);
      continue;
    }
    if (present) await rm(destination, { recursive: true, force: true });
    await rename(source, destination);
  }
}
