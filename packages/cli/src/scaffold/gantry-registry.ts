import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { RunCommand } from './run-command';
import { shellWord } from './template-values';

/** What the npm registry says about `@gantry/core` at a range. */
export type RegistryAnswer =
  /** A version matches: npm install can get it. */
  | 'published'
  /** E404: no such package, or no version in the range. npm install would fail the same way. */
  | 'unpublished'
  /** No answer (offline, a proxy, an auth error): npm install is left to say what is wrong. */
  | 'unknown';

/** The package whose absence stands for all of `@gantry/*` (everything depends on it). */
const PROBE = '@gantry/core';

/** Whether npm's output is its "not found" error (`npm error code E404`, or `"code": "E404"` with --json). */
export function isNotFound(output: string): boolean {
  return /\bcode"?:?\s+"?E404\b/.test(output);
}

/**
 * Asks the registry npm is configured with (`npm view @gantry/core@<range> version`) whether
 * `@gantry/*` can be installed at `range`, before an install that would otherwise end in npm's
 * bare 404.
 */
export async function gantryOnRegistry(range: string, cwd: string, run: RunCommand): Promise<RegistryAnswer> {
  const viewed = await run('npm', ['view', `${PROBE}@${range}`, 'version', '--json'], { cwd }).catch(
    () => undefined,
  );
  if (!viewed) return 'unknown';
  if (viewed.code === 0) return viewed.stdout.trim() === '' ? 'unpublished' : 'published';
  return isNotFound(viewed.output) ? 'unpublished' : 'unknown';
}

/** What the user asked `gantry new` for, to repeat in the commands that work. */
export interface NewRequest {
  directory: string;
  name: string;
  transport: string;
  /** The checkout this gantry runs from, when it runs from one (with `--no-link`). */
  checkout?: string;
}

/**
 * The error for a project whose `@gantry/*` cannot come from the registry: says so, and gives
 * the commands that create the same project from a checkout (which packs the packages into it).
 */
export function unpublishedError(range: string, request: NewRequest): CliError {
  const again = `new ${shellWord(request.directory)} --name ${shellWord(request.name)} --transport ${request.transport}`;
  const steps = request.checkout
    ? [
        `This gantry runs from the checkout at ${request.checkout}; run it there without --no-link:`,
        `  cd ${shellWord(request.checkout)} && npm run build && npm run gantry -- ${again}`,
      ]
    : [
        'Create the project from a Gantry checkout, which packs them into the project (vendor/):',
        '  git clone <the Gantry repository> gantry',
        '  cd gantry && npm ci && npm run build',
        `  npm run gantry -- ${again}`,
      ];
  return new CliError(
    [
      `@gantry/* is not published on the npm registry yet (npm view ${PROBE}@${range}: E404), ` +
        'so a project that gets it from there cannot install. Nothing was written.',
      ...steps,
    ].join('\n'),
    ExitCode.Usage,
  );
}
