import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { checkTarget, createProject, type NewProjectOptions } from '../scaffold/create-project';
import { chooseSource } from '../scaffold/gantry-source';
import { gitLine, nextSteps, shownPath } from '../scaffold/next-steps';
import { packageNameProblem, toPackageName } from '../scaffold/package-name';
import type { ProjectTransport } from '../scaffold/project-manifest';
import { clackReporter, plainReporter, type Reporter } from '../scaffold/reporter';

type Clack = typeof import('@clack/prompts');

/** `gantry new`'s flags as commander parses them. */
export interface NewFlags {
  name?: string;
  transport?: string;
  packageManager?: string;
  install: boolean;
  git: boolean;
  force?: boolean;
  /** A checkout path (`--link <path>`), false (`--no-link`), or undefined. */
  link?: string | boolean;
}

const TRANSPORTS: readonly ProjectTransport[] = ['stdio', 'http'];

function checkName(name: string, origin: string): string {
  const problem = packageNameProblem(name);
  if (problem) {
    const suggestion = toPackageName(name);
    throw new CliError(
      `invalid project name "${name}"${origin}: ${problem}; pass a valid name with --name, e.g. --name ${suggestion}`,
      ExitCode.Usage,
    );
  }
  return name;
}

function checkTransport(transport: string): ProjectTransport {
  if (!(TRANSPORTS as readonly string[]).includes(transport)) {
    throw new CliError(`--transport ${transport}: choose stdio or http`, ExitCode.Usage);
  }
  return transport as ProjectTransport;
}

/** Stops on Ctrl+C / Esc in a prompt. */
function answered<T>(clack: Clack, value: T | symbol): T {
  if (clack.isCancel(value)) {
    clack.cancel('Nothing was created.');
    throw new CliError('cancelled', ExitCode.Usage);
  }
  return value as T;
}

/**
 * Resolves flags, prompts (with `clack`, on a terminal) and defaults into what
 * `createProject` needs. Without a terminal nothing is asked: the name defaults to the
 * directory's name and the transport to stdio.
 */
export async function resolveNewOptions(
  dir: string,
  flags: NewFlags,
  clack?: Clack,
): Promise<NewProjectOptions> {
  if (flags.packageManager !== undefined && flags.packageManager !== 'npm') {
    throw new CliError(
      `--package-manager ${flags.packageManager}: only npm is supported for now`,
      ExitCode.Usage,
    );
  }
  const directory = resolve(dir);
  // Before any question: a directory that cannot be used is refused at once.
  await checkTarget(directory, flags.force === true);
  let name: string;
  if (flags.name !== undefined) name = checkName(flags.name, '');
  else if (clack) {
    const fromDir = basename(directory);
    name = answered<string>(
      clack,
      await clack.text({
        message: 'Package name',
        initialValue: packageNameProblem(fromDir) ? toPackageName(fromDir) : fromDir,
        validate: (value) => packageNameProblem(value ?? ''),
      }),
    );
  } else name = checkName(basename(directory), ' (taken from the directory name)');

  let transport: ProjectTransport;
  if (flags.transport !== undefined) transport = checkTransport(flags.transport);
  else if (clack) {
    transport = answered<ProjectTransport>(
      clack,
      await clack.select<ProjectTransport>({
        message: 'Transport',
        options: [
          {
            value: 'stdio',
            label: 'stdio',
            hint: 'the client starts the server (Claude Code, Claude Desktop)',
          },
          {
            value: 'http',
            label: 'Streamable HTTP',
            hint: 'the server runs on its own, clients connect to a URL',
          },
        ],
        initialValue: 'stdio',
      }),
    );
  } else transport = 'stdio';

  return {
    directory,
    name,
    transport,
    install: flags.install,
    git: flags.git,
    force: flags.force === true,
    source: chooseSource(flags.link),
  };
}

/** Runs `gantry new` once its options are known; prints progress and the next steps. */
export async function runNew(
  options: NewProjectOptions,
  reporter: Reporter,
  cwd = process.cwd(),
): Promise<string[]> {
  const shown = shownPath(options.directory, cwd);
  const from =
    options.source.kind === 'checkout'
      ? `@gantry/* packed from the checkout at ${options.source.root}`
      : `@gantry/* ${options.source.range} from the npm registry`;
  reporter.line(`Creating ${options.name} in ${shown} (${options.transport} transport, ${from})`);
  const result = await createProject(options, reporter);
  if (options.git) reporter.line(gitLine(result.git));
  reporter.line(`Created ${options.name} in ${shown}: ${result.files.length} files`);
  return nextSteps({
    shown,
    transport: options.transport,
    installed: result.installed,
    values: result.values,
  });
}

/** `gantry new <dir>`. */
export function registerNewCommand(program: Command): void {
  program
    .command('new')
    .description('Create a Gantry MCP server project that builds, tests and runs as it is')
    .argument('<dir>', 'the directory to create (it must not exist, or be empty)')
    .option('--name <name>', 'the npm package name (default: the name of <dir>)')
    .option('--transport <transport>', 'stdio or http (default: stdio; asked on a terminal)')
    .option('--package-manager <name>', 'the package manager; only npm for now')
    .option('--no-install', 'do not run npm install')
    .option('--no-git', 'do not make a git repository')
    .option('--force', 'write into a non-empty directory (files with the same names are replaced)')
    .option('--link <path>', 'depend on @gantry/* packed from the Gantry checkout at <path>')
    .option('--no-link', 'depend on the published @gantry/*, even when gantry runs from a checkout')
    .addHelpText(
      'after',
      `
The project has an example tool, resource and prompt with their tests, and a README with the
configuration for Claude Code, Claude Desktop and the MCP Inspector. It is written in a
temporary directory beside <dir> and moved into place at the end: a failure leaves nothing.

@gantry/* comes from the npm registry, unless gantry runs from a Gantry checkout or --link
names one: then every @gantry/* package is packed into <dir>/vendor (committed with the
project, so a clone installs, and "gantry add http|ws" finds its transport there). Nothing is
published yet: from the registry, gantry new stops before writing and says how to use a checkout.

Examples:
  $ gantry new weather
  $ gantry new weather --transport http --no-git
  $ gantry new ./servers/weather --name @acme/weather --no-install`,
    )
    .action(async (dir: string, flags: NewFlags) => {
      const clack: Clack | undefined = process.stdin.isTTY ? await import('@clack/prompts') : undefined;
      clack?.intro('gantry new');
      const options = await resolveNewOptions(dir, flags, clack);
      const reporter = clack
        ? clackReporter(clack)
        : plainReporter((text) => {
            process.stdout.write(text);
          });
      const steps = await runNew(options, reporter);
      if (clack) {
        clack.note(steps.join('\n'), 'Next steps');
        clack.outro('Done.');
      } else {
        process.stdout.write(`\nNext steps:\n${steps.join('\n')}\n`);
      }
    });
}
