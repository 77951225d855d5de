import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  GantryError,
  InternalError,
  InvalidParamsError,
  LocalErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
} from '@gantry/protocol';
import type { Logger } from '../logger';
import type { Registry } from '../registry/registry';
import { codeSkillContent, skillOptionsOf } from './skill.decorator';
import { readSkillDirectory, utf8Lossless } from './skill-files';
import {
  buildSnapshot,
  canonicalUri,
  InvalidCursor,
  type PlacedSkill,
  paginate,
  type SkillSnapshot,
} from './skill-snapshot';
import type { DirectoryChild, SkillEntry, SkillsModuleOptions } from './skill-types';

/** What `SkillsCatalog.reload()` changed, by `SKILL.md` URI. */
export interface SkillsReload {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Skills whose frontmatter or files changed. */
  readonly changed: readonly string[];
}

/** A resource of `resources/list`: each skill's SKILL.md. */
export interface ListedSkillResource {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  size: number;
}

function prefixSegments(prefix: string | undefined): string[] {
  if (prefix === undefined) return [];
  const segments = prefix.split('/');
  if (typeof prefix !== 'string' || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new GantryError(
      LocalErrorCode.Bootstrap,
      `SkillsModule prefix ${JSON.stringify(prefix)} must be path segments such as "acme/billing" (no leading or trailing "/", no "..")`,
    );
  }
  return segments;
}

/**
 * The skills this server serves (SEP-2640): loaded from the skills folder and the `@Skill`
 * classes, kept as one snapshot that `reload()` replaces. Inject it to reload after the folder
 * changes; clients are told with `notifications/resources/list_changed`.
 */
export class SkillsCatalog {
  private snapshot: SkillSnapshot = buildSnapshot([]);
  private queue: Promise<unknown> = Promise.resolve();
  private readonly prefix: string[];
  readonly pageSize: number;

  constructor(
    private readonly options: SkillsModuleOptions,
    private readonly codeSkills: readonly object[],
    private readonly registry: Registry,
    private readonly logger?: Logger,
  ) {
    this.prefix = prefixSegments(options.prefix);
    const pageSize = options.pageSize ?? 100;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `SkillsModule pageSize must be a positive integer, got ${String(options.pageSize)}`,
      );
    }
    this.pageSize = pageSize;
  }

  /** Every entry, in URI order. */
  get entries(): readonly SkillEntry[] {
    return this.snapshot.ordered;
  }

  /** Loads the catalog for the first time (bootstrap); errors name the file. */
  async load(): Promise<void> {
    this.snapshot = buildSnapshot(await this.gather());
  }

  /**
   * Reads the folder and the `@Skill` classes again and swaps the catalog. When a skill was
   * added, removed or changed, clients get `notifications/resources/list_changed`, and those
   * subscribed to a changed file `notifications/resources/updated`. A bad skill rejects with
   * the error naming it and leaves the catalog as it was. Calls run one after another.
   */
  reload(): Promise<SkillsReload> {
    const run = this.queue.then(async () => {
      const before = this.snapshot;
      const after = buildSnapshot(await this.gather());
      this.snapshot = after;
      return this.announce(before, after);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One `skills/list` page. */
  list(cursor: unknown): { skills: SkillEntry[]; nextCursor?: string } {
    const page = this.page(this.snapshot.ordered, cursor, (skill) => skill.uri);
    return page.nextCursor === undefined
      ? { skills: page.items }
      : { skills: page.items, nextCursor: page.nextCursor };
  }

  /** The entry of the skill whose SKILL.md is `uri`. */
  get(uri: string): SkillEntry | undefined {
    const canonical = canonicalUri(uri);
    return canonical === undefined ? undefined : this.snapshot.skills.get(canonical);
  }

  /** One page of the direct children of the directory `uri`; −32602 when it is none. */
  readDirectory(uri: string, cursor: unknown): { resources: DirectoryChild[]; nextCursor?: string } {
    const canonical = canonicalUri(uri);
    const children = canonical === undefined ? undefined : this.snapshot.dirs.get(canonical);
    if (!children) {
      const what =
        canonical !== undefined && this.snapshot.files.has(canonical)
          ? 'is a file, not a directory'
          : 'is no directory this server serves';
      throw new InvalidParamsError(`Invalid params: ${uri} ${what}`, { uri });
    }
    const page = this.page(children, cursor, (child) => child.uri);
    return page.nextCursor === undefined
      ? { resources: page.items }
      : { resources: page.items, nextCursor: page.nextCursor };
  }

  /** `resources/read` of a skill file: text when its bytes are UTF-8, else a base64 blob. */
  async read(uri: string): Promise<ReadResourceResult> {
    const canonical = canonicalUri(uri);
    const file = canonical === undefined ? undefined : this.snapshot.files.get(canonical);
    if (!file) {
      if (canonical !== undefined && this.snapshot.dirs.has(canonical)) {
        throw new ResourceNotFoundError(`${uri} is a directory; use resources/directory/read`, { uri });
      }
      throw new ResourceNotFoundError(`Resource not found: ${uri}`, { uri });
    }
    let bytes: Uint8Array;
    try {
      bytes = await file.read();
    } catch (error) {
      this.logger?.warn(`Skill file ${uri}:`, error instanceof Error ? error.message : error);
      throw new InternalError(`${uri} could not be read (it changed since the skills catalog was loaded)`);
    }
    const text = utf8Lossless(bytes);
    const content =
      text === undefined
        ? { uri: canonical as string, mimeType: file.mimeType, blob: Buffer.from(bytes).toString('base64') }
        : { uri: canonical as string, mimeType: file.mimeType, text };
    return { contents: [content] };
  }

  /** Each skill's SKILL.md, for `resources/list`. */
  listedResources(): ListedSkillResource[] {
    return this.snapshot.ordered.map((skill) => ({
      uri: skill.uri,
      name: skill.frontmatter.name,
      description: skill.frontmatter.description,
      mimeType: 'text/markdown',
      size: skill.resources[0].size,
    }));
  }

  private page<T>(items: readonly T[], cursor: unknown, key: (item: T) => string) {
    try {
      return paginate(items, cursor, this.pageSize, key);
    } catch (error) {
      if (error instanceof InvalidCursor) throw new InvalidParamsError(error.message);
      throw error;
    }
  }

  private async gather(): Promise<PlacedSkill[]> {
    const placed: PlacedSkill[] = [];
    if (this.options.dir !== undefined) {
      const dir = resolve(this.options.dir);
      let names: string[];
      try {
        const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith('.'));
        const link = entries.find((entry) => entry.isSymbolicLink());
        if (link) {
          throw new GantryError(
            LocalErrorCode.Bootstrap,
            `Skill ${join(dir, link.name)}: is a symbolic link: skills serve regular directories only; move the skill in`,
          );
        }
        names = entries
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name)
          .sort();
      } catch (error) {
        if (error instanceof GantryError) throw error;
        throw new GantryError(
          LocalErrorCode.Bootstrap,
          `SkillsModule dir ${dir} cannot be read (${(error as Error).message}); create it or fix the dir option`,
        );
      }
      for (const name of names) {
        placed.push({ segments: [...this.prefix, name], content: await readSkillDirectory(join(dir, name)) });
      }
    }
    for (const instance of this.codeSkills) {
      const content = await codeSkillContent(instance);
      placed.push({ segments: [...this.prefix, skillOptionsOf(instance)?.name ?? ''], content });
    }
    return placed;
  }

  private announce(before: SkillSnapshot, after: SkillSnapshot): SkillsReload {
    const added = [...after.skills.keys()].filter((uri) => !before.skills.has(uri));
    const removed = [...before.skills.keys()].filter((uri) => !after.skills.has(uri));
    const changed = [...after.skills.keys()].filter(
      (uri) =>
        before.skills.has(uri) &&
        JSON.stringify(before.skills.get(uri)) !== JSON.stringify(after.skills.get(uri)),
    );
    if (added.length + removed.length + changed.length > 0) this.registry.resourceListChanged();
    for (const [uri, file] of after.files) {
      const old = before.files.get(uri);
      if (old && old.digest !== file.digest) {
        this.registry.resourceUpdated(uri).catch(() => undefined);
      }
    }
    return { added, removed, changed };
  }
}
