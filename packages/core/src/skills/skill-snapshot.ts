// One immutable view of the catalog: the entries in URI order, and every file and directory by
// its canonical URI. `SkillsCatalog` swaps the whole snapshot on reload.
import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { parseFrontmatter } from './frontmatter';
import type { SkillContent, SkillFile } from './skill-files';
import { DIRECTORY_MIME_TYPE, type DirectoryChild, SKILL_SCHEME, type SkillEntry } from './skill-types';

/** A skill and where it lives. */
export interface PlacedSkill {
  /** Its path segments: the prefix's, then its name. */
  readonly segments: readonly string[];
  readonly content: SkillContent;
}

export interface SkillSnapshot {
  readonly ordered: readonly SkillEntry[];
  readonly skills: ReadonlyMap<string, SkillEntry>;
  readonly files: ReadonlyMap<string, SkillFile>;
  readonly dirs: ReadonlyMap<string, readonly DirectoryChild[]>;
}

/** The URI's canonical form (WHATWG URL serialisation), or undefined when it does not parse. */
export function canonicalUri(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

/** Code-unit order: the one order of entries, children and cursors. */
export const compareUris = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `skill://seg/seg/…`, each segment percent-encoded. */
export function skillUri(segments: readonly string[]): string {
  return SKILL_SCHEME + segments.map(encodeURIComponent).join('/');
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) freeze(item);
  }
  return value;
}

/** Parses each skill's SKILL.md and indexes everything; a duplicate skill URI is a bootstrap error. */
export function buildSnapshot(placed: readonly PlacedSkill[]): SkillSnapshot {
  const skills = new Map<string, SkillEntry>();
  const origins = new Map<string, string>();
  const files = new Map<string, SkillFile>();
  const dirs = new Map<string, DirectoryChild[]>();
  for (const { segments, content } of placed) {
    const name = segments[segments.length - 1];
    const frontmatter = parseFrontmatter(content.manifest, name, `${content.origin}/SKILL.md`);
    const root = skillUri(segments);
    const uriOf = (path: string) =>
      canonicalUri(`${root}/${path.split('/').map(encodeURIComponent).join('/')}`);
    const uri = uriOf('SKILL.md') as string;
    const other = origins.get(uri);
    if (other) {
      throw new GantryError(
        LocalErrorCode.DuplicateName,
        `Two skills are served at ${uri}: ${other} and ${content.origin}; rename one or give a prefix`,
      );
    }
    origins.set(uri, content.origin);
    const resources = content.files.map((file) => {
      const fileUri = uriOf(file.path) as string;
      files.set(fileUri, file);
      return { uri: fileUri, digest: file.digest, size: file.size };
    });
    skills.set(uri, freeze({ uri, frontmatter, resources }));
    // Directories: the skill root and each subdirectory, with their direct children.
    const children = new Map<string, DirectoryChild[]>([['', []]]);
    for (const dir of content.dirs) children.set(dir, []);
    for (const dir of content.dirs) {
      children
        .get(parentOf(dir))
        ?.push({ uri: uriOf(dir) as string, name: baseName(dir), mimeType: DIRECTORY_MIME_TYPE });
    }
    for (const file of content.files) {
      children.get(parentOf(file.path))?.push({
        uri: uriOf(file.path) as string,
        name: baseName(file.path),
        mimeType: file.mimeType,
        size: file.size,
      });
    }
    for (const [dir, list] of children) {
      list.sort((a, b) => compareUris(a.uri, b.uri));
      dirs.set((dir === '' ? canonicalUri(root) : uriOf(dir)) as string, freeze(list));
    }
  }
  const ordered = Object.freeze([...skills.values()].sort((a, b) => compareUris(a.uri, b.uri)));
  return { ordered, skills, files, dirs };
}

/** One page of `items` (ordered by `key`) after the item named by `cursor`. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
  key: (item: T) => string,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const after = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
    if (after === undefined) {
      throw new InvalidCursor(
        `Invalid params: cursor ${JSON.stringify(cursor)} was not given by this server`,
      );
    }
    start = items.findIndex((item) => compareUris(key(item), after) > 0);
    if (start === -1) start = items.length;
  }
  const page = items.slice(start, start + pageSize);
  const more = start + pageSize < items.length;
  return more ? { items: page, nextCursor: encodeCursor(key(page[page.length - 1])) } : { items: page };
}

/** Thrown for a cursor this server did not give; the caller answers −32602. */
export class InvalidCursor extends Error {}

const CURSOR_PREFIX = 'after:';

function encodeCursor(uri: string): string {
  return Buffer.from(CURSOR_PREFIX + uri, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  return text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : undefined;
}
