import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package's own manifest: `dist/` and `src/` both sit beside it. */
const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
  version: string;
};

/** The command's name, also sent as `clientInfo.name`. */
export const CLI_NAME = 'gantry';

/** The version of `@gantry/cli`, printed by `gantry --version` and sent as `clientInfo.version`. */
export const CLI_VERSION: string = manifest.version;
