import { GantryError, LocalErrorCode } from '@gantry/protocol';
import { Module } from '../decorators/module.decorator';
import type { DynamicModule, Provider } from '../di/tokens';
import { Registry } from '../registry/registry';
import { cacheHintProblem } from '../stateless/cache-hint';
import { skillOptionsOf } from './skill.decorator';
import { skillFilesResourceClass } from './skill-files.resource';
import type { SkillsModuleOptions } from './skill-types';
import { SkillsExtension } from './skills.extension';
import { SkillsCatalog } from './skills-catalog';

const OPTION_KEYS = ['dir', 'skills', 'prefix', 'pageSize', 'directoryRead', 'cache'];

function problemOf(options: SkillsModuleOptions): string | undefined {
  if (typeof options !== 'object' || options === null)
    return 'takes an options object, e.g. { dir: "skills" }';
  const unknown = Object.keys(options).find((key) => !OPTION_KEYS.includes(key));
  if (unknown) return `unknown option '${unknown}'; known options are ${OPTION_KEYS.join(', ')}`;
  if (options.dir !== undefined && (typeof options.dir !== 'string' || options.dir === '')) {
    return 'dir must be a folder path such as "skills"';
  }
  if (options.directoryRead !== undefined && typeof options.directoryRead !== 'boolean') {
    return 'directoryRead must be true or false';
  }
  if (options.prefix !== undefined && typeof options.prefix !== 'string')
    return 'prefix must be a string such as "acme/billing"';
  if (options.skills !== undefined && !Array.isArray(options.skills))
    return 'skills must be an array of @Skill classes';
  const stray = options.skills?.find((cls) => typeof cls !== 'function' || !skillOptionsOf(cls.prototype));
  if (stray)
    return `skills lists ${typeof stray === 'function' ? stray.name : String(stray)}, which has no @Skill(...)`;
  if (options.dir === undefined && (options.skills ?? []).length === 0) {
    return 'needs dir (a folder of skills) or skills (@Skill classes), or both';
  }
  if (options.cache !== undefined) {
    const problem = cacheHintProblem(options.cache);
    if (problem) return `cache ${problem}`;
  }
  return undefined;
}

/**
 * Serves Agent Skills over MCP: the `io.modelcontextprotocol/skills` extension (SEP-2640).
 * Each `<dir>/<name>/SKILL.md` (and every file beside it) and each `@Skill` class becomes a
 * skill at `skill://[<prefix>/]<name>/SKILL.md`, listed by `skills/list`, fetched by
 * `skills/get`, and read with `resources/read`. Inject `SkillsCatalog` to `reload()`.
 *
 * @example
 * ```ts
 * @Module({ imports: [SkillsModule.forRoot({ dir: 'skills', directoryRead: true })] })
 * class AppModule {}
 * ```
 */
@Module({})
export class SkillsModule {
  /** The module, configured; import it once per app (one skills extension per server). */
  static forRoot(options: SkillsModuleOptions): DynamicModule {
    const problem = problemOf(options);
    if (problem) throw new GantryError(LocalErrorCode.Bootstrap, `SkillsModule.forRoot() ${problem}`);
    const skills = [...(options.skills ?? [])];
    const SkillFiles = skillFilesResourceClass(options.cache);
    const providers: Provider[] = [
      ...skills,
      {
        provide: SkillsCatalog,
        useFactory: async (registry: Registry, ...instances: object[]) => {
          const catalog = new SkillsCatalog(options, instances, registry);
          await catalog.load();
          return catalog;
        },
        inject: [Registry, ...skills],
      },
      {
        provide: SkillsExtension,
        useFactory: (catalog: SkillsCatalog) =>
          new SkillsExtension(catalog, options.directoryRead === true, options.cache),
        inject: [SkillsCatalog],
      },
      {
        provide: SkillFiles,
        useFactory: (catalog: SkillsCatalog) => new SkillFiles(catalog),
        inject: [SkillsCatalog],
      },
    ];
    return { module: SkillsModule, providers, exports: [SkillsCatalog] };
  }
}
