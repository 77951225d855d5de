// The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640, Extensions Track, draft):
// its identifiers, its wire shapes as the official SDK 2.4 sends them, and the module's options.
import type { CacheScope } from '@gantry/protocol';

/** The extension identifier (SEP-2640). */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
/** The URI scheme skill files are served under: `skill://<skill-path>/<file-path>`. */
export const SKILL_SCHEME = 'skill://';
/** The MIME type of a directory resource (`resources/directory/read`, SEP-2640). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';
/**
 * What one skill may hold: hosts must accept skills up to these limits and servers should not
 * publish beyond them (the SDK 2.4 `SKILL_LIMITS`, from SEP-2640's later revision).
 */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** The SKILL.md frontmatter, verbatim as JSON: at least `name` and `description`. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

/** One file of a skill in a `skills/list` entry. */
export interface SkillResourceEntry {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits, over the file's raw bytes. */
  digest: string;
  /** Bytes. */
  size: number;
}

/** One `skills/list` entry (and the `skill` of `skills/get`). */
export interface SkillEntry {
  /** `skill://<skill-path>/SKILL.md`: the skill's identity. */
  uri: string;
  frontmatter: SkillFrontmatter;
  /** Every file of the skill, `SKILL.md` included, each once. */
  resources: SkillResourceEntry[];
}

/** One child in a `resources/directory/read` result. */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

/** Caching hints of the extension's 2026-07-28 results (and of skill file reads). */
export interface SkillsCacheOptions {
  /** Default 0: stale at once. */
  ttlMs?: number;
  /** Default `private`, as the SDK. */
  scope?: CacheScope;
}

/** Options of `SkillsModule.forRoot()`. */
export interface SkillsModuleOptions {
  /**
   * The folder holding one directory per skill (`<dir>/<name>/SKILL.md`), resolved against the
   * working directory. Omit it to serve only code-defined skills.
   */
  dir?: string;
  /** Classes with `@Skill(...)`: code-defined skills (they are providers and may inject others). */
  skills?: readonly (new (
    ...args: any[]
  ) => object)[];
  /** Organisational path before each skill's name, e.g. `acme/billing` → `skill://acme/billing/<name>/SKILL.md`. */
  prefix?: string;
  /** Entries per `skills/list` page (and children per directory page); default 100. */
  pageSize?: number;
  /** Serve `resources/directory/read` and advertise `directoryRead: true`; default false. */
  directoryRead?: boolean;
  /** Caching hints in 2026-07-28; default `{ ttlMs: 0, scope: 'private' }`. */
  cache?: SkillsCacheOptions;
}
