import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';

/** Values for a template's `{{placeholders}}`. */
export type TemplateValues = Readonly<Record<string, string>>;

const PLACEHOLDER = /\{\{(\w+)\}\}/g;

/**
 * Replaces each `{{key}}` in `text` with `values[key]`. A placeholder without a value is a
 * bug in the template or its caller, so it throws rather than leave `{{key}}` in a user's file.
 */
export function fillPlaceholders(text: string, values: TemplateValues, source: string): string {
  return text.replace(PLACEHOLDER, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template ${source} uses {{${key}}}, which has no value`);
    return value;
  });
}

/**
 * The name a template file is written under: a `.tpl` suffix is dropped (it keeps files that
 * are not yet valid TypeScript, or that Jest would run, out of the repository's tools), and a
 * leading `_` becomes `.` (npm leaves `.gitignore` out of packages, so `_gitignore` ships instead).
 */
export function outputName(templateName: string): string {
  const name = templateName.endsWith('.tpl') ? templateName.slice(0, -'.tpl'.length) : templateName;
  return name.startsWith('_') ? `.${name.slice(1)}` : name;
}

/** Every file under `dir`, as paths relative to it with `/` separators, sorted. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** Reads one template file and fills its placeholders. */
export async function renderTemplate(file: string, values: TemplateValues): Promise<string> {
  return fillPlaceholders(await readFile(file, 'utf8'), values, file);
}

/**
 * Copies the template folder `from` into `to`, renaming files with {@link outputName} and
 * filling placeholders. Returns the written paths, relative to `to`.
 */
export async function copyTemplate(from: string, to: string, values: TemplateValues): Promise<string[]> {
  const written: string[] = [];
  for (const file of await listFiles(from)) {
    const target = join(dirname(file), outputName(basename(file)))
      .split('\\')
      .join('/');
    await mkdir(join(to, dirname(target)), { recursive: true });
    await writeFile(join(to, target), await renderTemplate(join(from, file), values));
    written.push(target);
  }
  return written;
}
