import { stringify } from 'yaml';
import { decoratorError } from '../decorators/decorator-error';
import { memorySkill, type SkillContent } from './skill-files';

export const SKILL_METADATA = Symbol('gantry:skill');

/** Options of `@Skill`: a skill defined in code. */
export interface SkillOptions {
  /** 1-64 lowercase letters, digits and single hyphens; the last segment of its URI. */
  name: string;
  /** What the skill does and when to use it (1-1024 characters). */
  description: string;
  /** SKILL.md's markdown body; without it the class's `body()` method gives it. */
  body?: string;
  /** Further frontmatter fields, e.g. `{ license: 'MIT', metadata: { author: 'me' } }`. */
  frontmatter?: Record<string, unknown>;
  /** Supporting files by relative path: `{ 'references/guide.md': '...' }` (text or bytes). */
  files?: Record<string, string | Uint8Array>;
}

/** A `@Skill` class may give its body from code (it can inject what it needs). */
export interface SkillBody {
  body(): string | Promise<string>;
}

/**
 * Defines a skill in code (SEP-2640): the class becomes a provider whose SKILL.md is built
 * from `name`, `description` and `frontmatter` (as YAML) and the body (`body` or the class's
 * `body()` method, called at load and on each `SkillsCatalog.reload()`). List the class in
 * `SkillsModule.forRoot({ skills: [...] })`.
 *
 * @example
 * ```ts
 * @Skill({ name: 'release-notes', description: 'Writes release notes from merged PRs' })
 * class ReleaseNotesSkill {
 *   body() { return '# Release notes\n\n1. List the merged PRs…'; }
 * }
 * ```
 */
export function Skill(options: SkillOptions): ClassDecorator {
  return (target) => {
    const where = `@Skill on ${target.name}`;
    if (typeof options !== 'object' || options === null)
      throw decoratorError(`${where}: options are required`);
    for (const key of Object.keys(options)) {
      if (!['name', 'description', 'body', 'frontmatter', 'files'].includes(key)) {
        throw decoratorError(
          `${where}: unknown option '${key}'; known options are name, description, body, frontmatter, files`,
        );
      }
    }
    if (typeof options.name !== 'string' || typeof options.description !== 'string') {
      throw decoratorError(`${where}: name and description must be strings`);
    }
    if (options.body !== undefined && typeof options.body !== 'string') {
      throw decoratorError(`${where}: body must be a string (or define a body() method)`);
    }
    if (options.body === undefined && typeof target.prototype.body !== 'function') {
      throw decoratorError(`${where}: give the SKILL.md body as the body option or a body() method`);
    }
    Reflect.defineMetadata(SKILL_METADATA, options, target);
  };
}

/** The `@Skill` options of `instance`'s class, or undefined. */
export function skillOptionsOf(instance: object): SkillOptions | undefined {
  return Reflect.getMetadata(SKILL_METADATA, instance.constructor) as SkillOptions | undefined;
}

/** The content of a code-defined skill, with its SKILL.md built now. */
export async function codeSkillContent(instance: object): Promise<SkillContent> {
  const options = skillOptionsOf(instance);
  const origin = `@Skill on ${instance.constructor.name}`;
  if (!options) {
    throw decoratorError(
      `${instance.constructor.name} is listed in SkillsModule skills but has no @Skill(...)`,
    );
  }
  const body = options.body ?? (await (instance as SkillBody).body());
  if (typeof body !== 'string') throw decoratorError(`${origin}: body() must return a string`);
  const { name: _name, description: _description, ...extra } = options.frontmatter ?? {};
  const yaml = stringify(
    { name: options.name, description: options.description, ...extra },
    { lineWidth: 0 },
  );
  return memorySkill(origin, `---\n${yaml}---\n\n${body}`, options.files ?? {});
}
