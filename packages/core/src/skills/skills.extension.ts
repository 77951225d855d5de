// The methods the Skills extension adds (SEP-2640 §Protocol): `skills/list`, `skills/get`, and
// (when `directoryRead` is on) `resources/directory/read`. Results carry 2026-07-28 caching
// hints (`ttlMs`/`cacheScope` of the MCP 2026-07-28 schema's `CacheableResult`) only in that era, as SDK 2.4.
import { InvalidParamsError, MethodNotFoundError, type RequestParams } from '@gantry/protocol';
import type { McpContext } from '../context/mcp-context';
import { Extension, ExtensionMethod } from '../extensions/extension.decorator';
import { SKILLS_EXTENSION_ID, type SkillsCacheOptions } from './skill-types';
import type { SkillsCatalog } from './skills-catalog';

function uriParam(params: RequestParams | undefined, method: string): string {
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== 'string' || uri === '') {
    throw new InvalidParamsError(
      `Invalid params: ${method} needs "uri", a string such as "skill://git-workflow/SKILL.md"`,
    );
  }
  return uri;
}

/** The provider that declares `io.modelcontextprotocol/skills` and serves its methods. */
@Extension({ id: SKILLS_EXTENSION_ID, settings: (instance) => (instance as SkillsExtension).settings() })
export class SkillsExtension {
  private readonly hint: { ttlMs: number; cacheScope: 'public' | 'private' };

  constructor(
    private readonly catalog: SkillsCatalog,
    private readonly directoryRead: boolean,
    cache: SkillsCacheOptions | undefined,
  ) {
    this.hint = { ttlMs: cache?.ttlMs ?? 0, cacheScope: cache?.scope ?? 'private' };
  }

  /** `capabilities.extensions["io.modelcontextprotocol/skills"]`. */
  settings(): Record<string, unknown> {
    return this.directoryRead ? { directoryRead: true } : {};
  }

  @ExtensionMethod('skills/list')
  list(params: RequestParams | undefined, ctx: McpContext) {
    return this.hinted(this.catalog.list((params as { cursor?: unknown } | undefined)?.cursor), ctx);
  }

  @ExtensionMethod('skills/get')
  get(params: RequestParams | undefined, ctx: McpContext) {
    const uri = uriParam(params, 'skills/get');
    const skill = this.catalog.get(uri);
    if (!skill) throw new InvalidParamsError(`Invalid params: no skill is served at ${uri}`, { uri });
    return this.hinted({ skill }, ctx);
  }

  @ExtensionMethod('resources/directory/read')
  readDirectory(params: RequestParams | undefined, ctx: McpContext) {
    // SEP-2640: clients MUST NOT call it unless directoryRead is true; without it, unknown.
    if (!this.directoryRead) {
      throw new MethodNotFoundError('Method not found: resources/directory/read (directoryRead is off)', {
        method: 'resources/directory/read',
      });
    }
    const uri = uriParam(params, 'resources/directory/read');
    return this.hinted(this.catalog.readDirectory(uri, (params as { cursor?: unknown }).cursor), ctx);
  }

  private hinted<T extends object>(result: T, ctx: McpContext): T {
    return ctx.era === 'stateless' ? { ...result, ...this.hint } : result;
  }
}
