import type { RunCommand } from './run-command';

/** What `gantry new` did about git. */
export type GitOutcome =
  | { kind: 'committed' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'initialized'; reason: string };

function firstLine(text: string): string {
  return text.trim().split(/\r?\n/)[0] ?? '';
}

/**
 * `git init` and a first commit in `directory`. Never fails the scaffold: without git, inside
 * another repository, or without a git identity for the commit, it says what it did not do.
 */
export async function initGit(directory: string, run: RunCommand): Promise<GitOutcome> {
  let inside: Awaited<ReturnType<RunCommand>>;
  try {
    inside = await run('git', ['rev-parse', '--is-inside-work-tree'], { cwd: directory });
  } catch {
    return { kind: 'skipped', reason: 'git is not installed' };
  }
  if (inside.code === 0 && inside.stdout.trim() === 'true') {
    return { kind: 'skipped', reason: 'the directory is inside a git repository already' };
  }
  const init = await run('git', ['init', '-q'], { cwd: directory });
  if (init.code !== 0) return { kind: 'skipped', reason: `git init failed: ${firstLine(init.output)}` };
  const add = await run('git', ['add', '-A'], { cwd: directory });
  const commit =
    add.code === 0
      ? await run('git', ['commit', '-q', '-m', 'Initial commit from gantry new'], { cwd: directory })
      : add;
  if (commit.code !== 0) {
    return { kind: 'initialized', reason: `no first commit: ${firstLine(commit.output)}` };
  }
  return { kind: 'committed' };
}
