import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, parse as parsePath, resolve, sep } from 'node:path';
import { type ParseError, parse } from 'jsonc-parser';

/** What `gantry dev` watches: directories, so that a file replaced by a rename is still seen. */
export interface WatchRoots {
  /** Directories watched recursively. */
  readonly directories: readonly string[];
  /** The tsconfig.json they came from, if one was found. */
  readonly tsconfig?: string;
}

/**
 * The directories to watch for an entry: the entry's own directory (src/ in a scaffolded
 * project), and the static part of every `include` (or `files`) pattern of the nearest
 * tsconfig.json above it, since those are the project's sources. A tsconfig without either
 * covers its whole directory, as `tsc` does. Nested directories are folded into their parent.
 */
export function findWatchRoots(entry: string): WatchRoots {
  const entryDir = dirname(resolve(entry));
  const tsconfig = findUp(entryDir, 'tsconfig.json');
  const directories = [entryDir];
  if (tsconfig) {
    const base = dirname(tsconfig);
    const config = readTsconfig(tsconfig);
    const include = stringList(config.include);
    const files = stringList(config.files);
    if (include === undefined && files === undefined) directories.push(base);
    for (const pattern of include ?? []) {
      const directory = staticDirectory(base, pattern);
      if (directory) directories.push(directory);
    }
    for (const file of files ?? []) directories.push(dirname(resolve(base, file)));
  }
  return { directories: foldNested(directories.filter(isDirectory)), tsconfig };
}

function findUp(from: string, name: string): string | undefined {
  let current = from;
  for (;;) {
    const candidate = join(current, name);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(current);
    if (parent === current || current === parsePath(current).root) return undefined;
    current = parent;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/**
 * `src/**\/*.ts` → `<base>/src`; `*.ts` → `<base>`; `lib` → `<base>/lib` (tsc reads a bare name
 * as a directory); `src/main.ts` → `<base>/src`; a name that does not exist → undefined.
 */
function staticDirectory(base: string, pattern: string): string | undefined {
  const parts = pattern.split(/[\\/]/);
  const fixed: string[] = [];
  for (const part of parts) {
    if (/[*?[{]/.test(part)) break;
    fixed.push(part);
  }
  const path = fixed.join(sep);
  const absolute = isAbsolute(pattern) ? path || sep : resolve(base, path);
  if (fixed.length < parts.length || isDirectory(absolute)) return absolute;
  // A pattern naming a file (`src/main.ts`) watches its directory.
  return existsSync(absolute) ? dirname(absolute) : undefined;
}

/** Drops directories inside another one of the list (chokidar watches recursively). */
function foldNested(directories: string[]): string[] {
  const unique = [...new Set(directories.map((dir) => resolve(dir)))].sort();
  return unique.filter(
    (dir) =>
      !unique.some(
        (other) => other !== dir && (dir + sep).startsWith(other.endsWith(sep) ? other : other + sep),
      ),
  );
}

/**
 * Reads a tsconfig.json, which is JSON with comments and trailing commas (jsonc-parser, as VS
 * Code reads it). Returns {} for a file that does not parse: watching the entry's directory is
 * still right.
 */
export function readTsconfig(file: string): Record<string, unknown> {
  try {
    const errors: ParseError[] = [];
    const parsed: unknown = parse(readFileSync(file, 'utf8'), errors, { allowTrailingComma: true });
    if (errors.length > 0) return {};
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
