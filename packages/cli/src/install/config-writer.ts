import { constants } from 'node:fs';
import {
  chmod,
  copyFile,
  mkdir,
  readFile,
  realpath,
  rename,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createTwoFilesPatch } from 'diff';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { ConfigSyntax } from './client-format';
import { setJsonEntry } from './json-config-edit';
import { setYamlEntry } from './yaml-config-edit';

/** What installing one entry into one file comes to, before anything is written. */
export interface InstallPlan {
  /** The configuration file, as named to the user. */
  readonly file: string;
  /** The file actually written: `file` with symbolic links resolved (a dotfiles link stays a link). */
  readonly target: string;
  /** The current text, or undefined when the file does not exist yet. */
  readonly before: string | undefined;
  readonly after: string;
  /** `unchanged`: an identical entry is there already, and nothing needs writing. */
  readonly outcome: 'added' | 'replaced' | 'unchanged';
}

/**
 * Reads `file` and works out its new text with `entry` under `name`, merged with what is
 * there. A different entry of the same name is refused unless `force`; an identical one
 * makes the plan `unchanged`, so running the same install twice is harmless.
 */
export async function planInstall(options: {
  file: string;
  syntax: ConfigSyntax;
  serversKey: readonly string[];
  name: string;
  entry: Record<string, unknown>;
  force: boolean;
  /** Names the place in the refusal: "Claude Code (user scope)". */
  where: string;
}): Promise<InstallPlan> {
  const { file, syntax, serversKey, name, entry, force, where } = options;
  const target = await resolveLinks(file);
  const before = await readIfPresent(target, file);
  const edit = (syntax === 'yaml' ? setYamlEntry : setJsonEntry)({
    text: before,
    file,
    serversKey,
    name,
    entry,
  });
  if (edit.existing === undefined) return { file, target, before, after: edit.text, outcome: 'added' };
  if (isDeepStrictEqual(edit.existing, entry))
    return { file, target, before, after: before!, outcome: 'unchanged' };
  if (!force) {
    throw new CliError(
      `${where} already has a server named "${name}" in ${file}, with other settings; ` +
        'pass --force to replace it (the old file is backed up), or --name to add this one under another name',
      ExitCode.Usage,
    );
  }
  return { file, target, before, after: edit.text, outcome: 'replaced' };
}

/**
 * Writes a plan: the old file is first copied to `<file>.<UTC time>.bak` (never over an
 * earlier backup), then the new text is written to a temporary file beside it and renamed
 * over it, so a crash leaves the old file or the new one, never half of one. The file keeps
 * its permission bits (`~/.claude.json` is private to its user). A file that no longer holds
 * the text the plan was made from (a client rewrites its own file while it runs) is left as it
 * is, with no backup: renaming over it would lose what the other program wrote. Resolves with
 * the backup's path.
 */
export async function writePlan(plan: InstallPlan, now = new Date()): Promise<{ backup?: string }> {
  if (plan.outcome === 'unchanged') return {};
  try {
    await mkdir(dirname(plan.target), { recursive: true });
    const mode = plan.before === undefined ? undefined : (await stat(plan.target)).mode & 0o777;
    const temporary = `${plan.target}.gantry-${process.pid}.tmp`;
    let backup: string | undefined;
    try {
      await writeFile(temporary, plan.after, { flag: 'wx', mode: mode ?? 0o666 });
      if (mode !== undefined) await chmod(temporary, mode);
      if (plan.before !== undefined) backup = await backUp(plan.file, plan.target, now);
      // Checked last, so the time in which another writer goes unseen is one rename long.
      if ((await readIfPresent(plan.target, plan.file)) !== plan.before) {
        if (backup !== undefined) await unlink(backup).catch(() => undefined);
        throw new Error(
          'it changed after gantry install read it (another program, perhaps the client, wrote it); nothing was written, run gantry install again',
        );
      }
      await rename(temporary, plan.target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    return { backup };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new Error(`cannot write ${plan.file}: ${(error as Error).message}`, { cause: error });
  }
}

/** What `--dry-run` prints: the file and a unified diff of the change. */
export function describePlan(plan: InstallPlan): string {
  if (plan.outcome === 'unchanged') return `${plan.file} already has this entry; nothing would change.\n`;
  const header =
    plan.before === undefined
      ? `${plan.file} would be created:`
      : `${plan.file} would change (a backup is made first):`;
  const patch = createTwoFilesPatch(
    plan.file,
    plan.file,
    plan.before ?? '',
    plan.after,
    'current',
    'after install',
  );
  // The patch opens with "Index: <file>" and a row of "=", which repeat what the header says.
  return `${header}\n${patch.replace(/^(?:Index: .*\n)?=+\n/, '')}`;
}

async function backUp(file: string, target: string, now: Date): Promise<string> {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  for (let attempt = 1; ; attempt++) {
    const backup = `${file}.${stamp}${attempt === 1 ? '' : `-${attempt}`}.bak`;
    try {
      // COPYFILE_EXCL: two installs in the same second never overwrite each other's backup.
      await copyFile(target, backup, constants.COPYFILE_EXCL);
      return backup;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

async function resolveLinks(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    return file;
  }
}

async function readIfPresent(target: string, file: string): Promise<string | undefined> {
  try {
    return await readFile(target, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR')
      throw new CliError(`${file} is a directory, not a configuration file`, ExitCode.Usage);
    throw new Error(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}
