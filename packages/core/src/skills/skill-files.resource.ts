// Every skill file is an ordinary resource (SEP-2640 §Resources): one `skill://{+path}` template
// (RFC 6570 reserved expansion, so the path keeps its slashes) reads it, and `resources/list`
// lists each skill's SKILL.md with its frontmatter name and description.
import { Injectable } from '../decorators/injectable.decorator';
import { Uri } from '../decorators/params.decorator';
import { Resource } from '../decorators/resource.decorator';
import { ResourceList } from '../decorators/resource-list.decorator';
import type { SkillsCacheOptions } from './skill-types';
import type { SkillsCatalog } from './skills-catalog';

/** The URI template skill files are read through. */
export const SKILL_URI_TEMPLATE = 'skill://{+path}';

/** A provider class serving the catalog's files, with the reads' caching hint baked in. */
export function skillFilesResourceClass(
  cache: SkillsCacheOptions | undefined,
): new (
  catalog: SkillsCatalog,
) => object {
  @Injectable()
  class SkillFiles {
    constructor(private readonly catalog: SkillsCatalog) {}

    @Resource({
      uri: SKILL_URI_TEMPLATE,
      name: 'skills',
      description: 'The files of the skills this server serves (io.modelcontextprotocol/skills)',
      cache: { ttlMs: cache?.ttlMs ?? 0, scope: cache?.scope ?? 'private' },
    })
    read(@Uri() uri: string) {
      return this.catalog.read(uri);
    }

    @ResourceList(SKILL_URI_TEMPLATE)
    list() {
      return this.catalog.listedResources();
    }
  }
  return SkillFiles;
}
