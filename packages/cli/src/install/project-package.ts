import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';

/** What `gantry install` takes from the project's package.json when options leave it out. */
export interface ProjectPackage {
  readonly name?: string;
  /** `main`: the built entry the server starts from (`dist/main.js` in a `gantry new` project). */
  readonly main?: string;
}

/**
 * Reads `package.json` in `projectDir`. `needed` names what it is read for, so a missing or
 * broken file gives a message saying which option makes it unnecessary.
 */
export async function readProjectPackage(projectDir: string, needed: string): Promise<ProjectPackage> {
  const file = join(projectDir, 'package.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        `no package.json in ${projectDir} to take ${needed} from; run gantry install in the project, point --project at it, or give ${needed === 'the server name' ? '--name' : '--entry'}`,
        ExitCode.Usage,
      );
    }
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`, ExitCode.Usage);
  }
  const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  return {
    name: typeof record.name === 'string' && record.name !== '' ? record.name : undefined,
    main: typeof record.main === 'string' && record.main !== '' ? record.main : undefined,
  };
}
