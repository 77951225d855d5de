// The files of one skill, from a directory on disk or from code, with the sha256 digest and the
// size a `skills/list` entry carries (SEP-2640 §Listing; SDK 2.4 wire form) and within the
// limits a host must accept (`SKILL_LIMITS`).
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { SKILL_LIMITS } from './skill-types';

/** One file of a skill. */
export interface SkillFile {
  /** Relative to the skill's directory, `/`-separated (`SKILL.md`, `references/forms.md`). */
  readonly path: string;
  readonly size: number;
  /** `sha256:<64 lowercase hex>` of the raw bytes. */
  readonly digest: string;
  readonly mimeType: string;
  /** The bytes as they are now (a file on disk is read again). */
  read(): Promise<Uint8Array>;
}

/** A skill's files and directories, before its SKILL.md is parsed. */
export interface SkillContent {
  /** Where it came from, for messages (a directory, or `@Skill on Class`). */
  readonly origin: string;
  /** `SKILL.md` first. */
  readonly files: readonly SkillFile[];
  /** Its subdirectories, relative (`references`, `scripts/lib`). */
  readonly dirs: readonly string[];
  /** SKILL.md's text. */
  readonly manifest: string;
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  csv: 'text/csv',
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'application/x-sh',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** `sha256:` and the lowercase hex SHA-256 of `bytes`. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The text of `bytes` when UTF-8 decoding loses nothing (a BOM is kept), else undefined. */
export function utf8Lossless(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The MIME type of a file by its extension; text without a known one is `text/plain`. */
export function mimeTypeOf(path: string, bytes: Uint8Array): string {
  const dot = path.lastIndexOf('.');
  const known = dot > path.lastIndexOf('/') ? MIME_TYPES[path.slice(dot + 1).toLowerCase()] : undefined;
  return known ?? (utf8Lossless(bytes) === undefined ? 'application/octet-stream' : 'text/plain');
}

function tooBig(origin: string, path: string, problem: string): GantryError {
  return new GantryError(LocalErrorCode.Bootstrap, `Skill ${origin}: ${path} ${problem}`);
}

/** Counts files and bytes against `SKILL_LIMITS`, naming the file that crosses one. */
class Budget {
  private files = 0;
  private bytes = 0;
  constructor(private readonly origin: string) {}

  add(path: string, size: number): void {
    this.files += 1;
    this.bytes += size;
    if (this.files > SKILL_LIMITS.files) {
      throw tooBig(
        this.origin,
        path,
        `is file number ${this.files}: a skill may hold at most ${SKILL_LIMITS.files} files; split the skill`,
      );
    }
    if (this.bytes > SKILL_LIMITS.bytes) {
      throw tooBig(
        this.origin,
        path,
        `brings the skill to ${this.bytes} bytes: a skill may hold at most ${SKILL_LIMITS.bytes} bytes (16 MiB); move large files elsewhere`,
      );
    }
  }
}

/** A file held in memory. */
export function memoryFile(path: string, bytes: Uint8Array): SkillFile {
  const copy = Uint8Array.from(bytes);
  return {
    path,
    size: copy.byteLength,
    digest: sha256Digest(copy),
    mimeType: mimeTypeOf(path, copy),
    read: async () => copy,
  };
}

/** A file on disk, read now for its digest and re-read (and checked) on each `read()`. */
function diskFile(path: string, absolute: string, bytes: Uint8Array): SkillFile {
  const size = bytes.byteLength;
  const digest = sha256Digest(bytes);
  return {
    path,
    size,
    digest,
    mimeType: mimeTypeOf(path, bytes),
    read: async () => {
      const now = await readFile(absolute);
      if (now.byteLength !== size || sha256Digest(now) !== digest) {
        throw new Error(
          `${absolute} changed since the skills catalog was loaded; call SkillsCatalog.reload()`,
        );
      }
      return now;
    },
  };
}

/**
 * Reads the skill directory `root`: every regular file below it (dot-files and dot-directories
 * are skipped, symbolic links are refused), `SKILL.md` first.
 */
export async function readSkillDirectory(root: string): Promise<SkillContent> {
  const origin = root;
  const budget = new Budget(origin);
  const files: SkillFile[] = [];
  const dirs: string[] = [];
  let manifest: string | undefined;
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const absolute = join(dir, entry.name);
      const path = relative(root, absolute).split(sep).join('/');
      const stat = await lstat(absolute);
      if (stat.isSymbolicLink()) {
        throw tooBig(origin, path, 'is a symbolic link: skills serve regular files only; copy the file in');
      }
      if (stat.isDirectory()) {
        dirs.push(path);
        await walk(absolute);
      } else if (stat.isFile()) {
        budget.add(path, stat.size);
        const bytes = await readFile(absolute);
        const file = diskFile(path, absolute, bytes);
        if (path === 'SKILL.md') {
          manifest = utf8Lossless(bytes);
          if (manifest === undefined) throw tooBig(origin, path, 'is not valid UTF-8 text');
          files.unshift(file);
        } else files.push(file);
      }
    }
  };
  await walk(root);
  if (manifest === undefined) {
    throw new GantryError(
      LocalErrorCode.Bootstrap,
      `Skill ${origin}: no SKILL.md in the directory; each skill is a directory with a SKILL.md (frontmatter name and description)`,
    );
  }
  return { origin, files, dirs, manifest };
}

/** A code-defined skill's content: SKILL.md's text plus supporting files by relative path. */
export function memorySkill(
  origin: string,
  manifest: string,
  supporting: Readonly<Record<string, string | Uint8Array>>,
): SkillContent {
  const budget = new Budget(origin);
  const encoder = new TextEncoder();
  const manifestBytes = encoder.encode(manifest);
  budget.add('SKILL.md', manifestBytes.byteLength);
  const files = [memoryFile('SKILL.md', manifestBytes)];
  const dirs = new Set<string>();
  for (const [raw, content] of Object.entries(supporting)) {
    const segments = raw.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..') || raw === 'SKILL.md') {
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `Skill ${origin}: files key ${JSON.stringify(raw)} must be a relative path such as "references/guide.md" (no "..", no empty segment, not SKILL.md)`,
      );
    }
    for (let i = 1; i < segments.length; i++) dirs.add(segments.slice(0, i).join('/'));
    const bytes = typeof content === 'string' ? encoder.encode(content) : content;
    budget.add(raw, bytes.byteLength);
    files.push(memoryFile(raw, bytes));
  }
  files.sort((a, b) => (a.path === 'SKILL.md' ? -1 : b.path === 'SKILL.md' ? 1 : a.path < b.path ? -1 : 1));
  return { origin, files, dirs: [...dirs].sort(), manifest };
}
