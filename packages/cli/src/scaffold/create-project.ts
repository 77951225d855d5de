import { rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { templatesRoot } from './cli-package';
import { DOCKERIGNORE, dockerfile } from './dockerfile';
import { gantryOnRegistry, isNotFound, unpublishedError } from './gantry-registry';
import { type GantrySource, ownCheckout, PACKAGES_FOLDER, packCheckout } from './gantry-source';
import { type GitOutcome, initGit } from './git-init';
import { moveIntoPlace } from './move-into-place';
import {
  type GantrySpecs,
  type ProjectTransport,
  projectManifest,
  VENDORED_PACKAGES,
} from './project-manifest';
import type { Reporter } from './reporter';
import { outputTail, type RunCommand, runCommand } from './run-command';
import { copyTemplate, type TemplateValues } from './template-files';
import { projectTemplateValues } from './template-values';

/** What `gantry new` was asked for, resolved (flags, prompts and defaults applied). */
export interface NewProjectOptions {
  /** Absolute path of the project's directory. */
  directory: string;
  /** The npm package name, already validated. */
  name: string;
  transport: ProjectTransport;
  install: boolean;
  git: boolean;
  /** Write into a non-empty directory. */
  force: boolean;
  source: GantrySource;
}

/** What was done, for the closing message. */
export interface NewProjectResult {
  files: string[];
  installed: boolean;
  git: GitOutcome;
  values: TemplateValues;
}

/** npm's flags for the install: no audit or funding report, which cost time and say nothing yet. */
export const NPM_INSTALL_ARGS = ['install', '--no-audit', '--no-fund'] as const;

/** Entries of a directory that do not make it "non-empty" for `gantry new`. */
const IGNORED_ENTRIES = new Set(['.git', '.DS_Store']);

/**
 * Refuses a directory that exists and is not empty (unless `force`), or that is a file. Returns
 * whether the directory already is a git repository, which `gantry new` then leaves alone.
 */
export async function checkTarget(directory: string, force: boolean): Promise<{ hasGit: boolean }> {
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { hasGit: false };
    if (code === 'ENOTDIR') throw new CliError(`${directory} exists and is not a directory`, ExitCode.Usage);
    throw error;
  }
  const occupied = entries.filter((entry) => !IGNORED_ENTRIES.has(entry));
  if (occupied.length > 0 && !force) {
    const shown = occupied.slice(0, 3).join(', ') + (occupied.length > 3 ? ', …' : '');
    throw new CliError(
      `${directory} is not empty (${shown}); choose a new directory, or pass --force to write the ` +
        'project into it (files with the same names are replaced, other files are kept)',
      ExitCode.Usage,
    );
  }
  return { hasGit: entries.includes('.git') };
}

/**
 * Writes a new project. Everything happens in a temporary directory beside the target (same
 * filesystem), which is renamed into place at the end; on any failure, or Ctrl+C, the
 * temporary directory is removed and the target is left as it was.
 */
export async function createProject(
  options: NewProjectOptions,
  reporter: Reporter,
  run: RunCommand = runCommand,
): Promise<NewProjectResult> {
  const { directory } = options;
  const { hasGit } = await checkTarget(directory, options.force);
  await mkdir(dirname(directory), { recursive: true });
  const { source } = options;
  const unpublished = () =>
    unpublishedError(source.kind === 'registry' ? source.range : '', {
      directory,
      name: options.name,
      transport: options.transport,
      checkout: ownCheckout(),
    });
  // Before anything is written: from the registry, a project whose @gantry/* is not there could
  // never install, and npm would only say "404 Not Found".
  if (source.kind === 'registry' && options.install) {
    if ((await gantryOnRegistry(source.range, dirname(directory), run)) === 'unpublished')
      throw unpublished();
  }
  const temp = await mkdtemp(join(dirname(directory), `.${basename(directory)}.gantry-`));
  // mkdtemp makes a private (0700) directory; the project gets the mode mkdir would give it.
  await chmod(temp, 0o777 & ~process.umask());
  const onInterrupt = () => {
    rmSync(temp, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    const values = projectTemplateValues(options.name, directory);
    const templates = templatesRoot();
    const files = [
      ...(await copyTemplate(join(templates, 'project'), temp, values)),
      ...(await copyTemplate(join(templates, options.transport), temp, values)),
    ];

    let specs: GantrySpecs;
    if (source.kind === 'checkout') {
      const root = source.root;
      const tarballs = await reporter.task(
        `Packing @gantry/* from the checkout at ${root}`,
        () =>
          packCheckout(root, VENDORED_PACKAGES, join(temp, PACKAGES_FOLDER), run, (message) =>
            reporter.line(message),
          ),
        (packed) => `Packed ${packed.size} packages into ${PACKAGES_FOLDER}/`,
      );
      specs = { kind: 'tarballs', files: tarballs };
      for (const file of tarballs.values()) files.push(`${PACKAGES_FOLDER}/${file}`);
    } else {
      specs = { kind: 'registry', range: source.range };
    }
    await writeFile(
      join(temp, 'package.json'),
      `${JSON.stringify(projectManifest(options.name, options.transport, specs), null, 2)}\n`,
    );
    files.push('package.json');
    if (options.transport === 'http') {
      await writeFile(join(temp, 'Dockerfile'), dockerfile({ vendor: source.kind === 'checkout' }));
      await writeFile(join(temp, '.dockerignore'), DOCKERIGNORE);
      files.push('Dockerfile', '.dockerignore');
    }
    files.sort();

    if (options.install) {
      await reporter.task(
        'Installing dependencies (npm install)',
        async () => {
          const installed = await run('npm', NPM_INSTALL_ARGS, { cwd: temp }).catch((error: Error) => {
            throw new CliError(`could not run npm: ${error.message}`, ExitCode.ToolError);
          });
          if (installed.code !== 0) {
            if (
              source.kind === 'registry' &&
              isNotFound(installed.output) &&
              installed.output.includes('@gantry')
            )
              throw unpublished();
            // --no-install only helps a project that can install later: one with its packages in vendor/.
            const hint =
              source.kind === 'checkout'
                ? `Fix the cause, or pass --no-install to write the project (its @gantry/* is in ${PACKAGES_FOLDER}/) and install later.`
                : 'Fix the cause and run gantry new again.';
            throw new CliError(
              `npm install failed (exit code ${installed.code}); nothing was written. ` +
                `Its output ends with:\n${outputTail(installed.output)}\n${hint}`,
              ExitCode.ToolError,
            );
          }
        },
        () => 'Installed dependencies',
      );
    }

    let git: GitOutcome = { kind: 'skipped', reason: '--no-git' };
    if (options.git && hasGit) git = { kind: 'skipped', reason: `${directory} is a git repository already` };
    else if (options.git) git = await initGit(temp, run);

    await moveIntoPlace(temp, directory);
    return { files, installed: options.install, git, values };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}
