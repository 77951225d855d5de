import { join } from 'node:path';
import { unscopedName } from './package-name';
import type { TemplateValues } from './template-files';

/** A path as one shell word: left alone when it is safe, quoted otherwise. */
export function shellWord(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  if (process.platform === 'win32') return `"${text}"`;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The placeholders of the project templates (listed in templates/README.md):
 *
 * - `{{name}}`: the npm package name (`@acme/weather`);
 * - `{{serverName}}`: the name without its scope (`weather`): the server's `serverInfo.name`
 *   and its key in client configurations;
 * - `{{entryArg}}`: the absolute path of the built server, `dist/main.js`, as one shell word;
 * - `{{entryJson}}`: the same path as a JSON string, quotes included.
 *
 * Paths use `/` on every platform: Node and the MCP hosts accept it on Windows too.
 */
export function projectTemplateValues(name: string, directory: string): TemplateValues {
  const entry = join(directory, 'dist', 'main.js').split('\\').join('/');
  return {
    name,
    serverName: unscopedName(name),
    entryArg: shellWord(entry),
    entryJson: JSON.stringify(entry),
  };
}
