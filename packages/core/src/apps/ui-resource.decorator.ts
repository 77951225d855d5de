// `@UiResource`: an MCP App view (MCP Apps 2026-01-26 › UI Resource), served by resources/read
// as `text/html;profile=mcp-app` with the content item's `_meta.ui`.
import { GantryError, LocalErrorCode, type ReadResourceResult } from '@gantry/protocol';
import { decoratorError, memberName } from '../decorators/decorator-error';
import { type ResourceServing, resourceDecorator } from '../decorators/resource.decorator';
import type { CacheHint } from '../stateless/cache-hint';
import { isUiUri } from './tool-ui';
import { UI_MIME_TYPE } from './ui-constants';
import { type UiPresentation, uiResourceMeta } from './ui-resource-meta';
import { loadHtmlDirectory, loadHtmlFile, looksLikeHtmlDocument } from './view-html';

/** `@UiResource(options)`. */
export interface UiResourceOptions extends UiPresentation {
  /** The view's `ui://` URI, the one tools name in `@Tool({ ui: { resource } })`. */
  uri: string;
  /** Programmatic name; default the method name (or the URI, on a class). */
  name?: string;
  title?: string;
  description?: string;
  /** The HTML document itself (on a class). */
  html?: string;
  /** An .html file read once at bootstrap (on a class); relative to the working directory. */
  file?: string;
  /**
   * A build output directory (on a class): its index.html, read at bootstrap, with the local
   * `<script src>` and `<link rel="stylesheet" href>` files inlined.
   */
  directory?: string;
  /** Stateless-era caching hints for its reads, as for `@Resource`. */
  cache?: CacheHint;
}

const KEYS = new Set([
  'uri',
  'name',
  'title',
  'description',
  'html',
  'file',
  'directory',
  'cache',
  'csp',
  'permissions',
  'prefersBorder',
  'domain',
]);
const SOURCES = ['html', 'file', 'directory'] as const;

function checked(where: string, options: UiResourceOptions): Record<string, unknown> {
  if (typeof options !== 'object' || options === null) {
    throw decoratorError(`${where}: options must be an object with a ui:// uri`);
  }
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) {
      throw decoratorError(`${where}: unknown option '${key}'; known options are ${[...KEYS].join(', ')}`);
    }
  }
  if (!isUiUri(options.uri)) {
    throw decoratorError(
      `${where}: uri must be a ui:// URI such as 'ui://notes/board' (MCP Apps views use the ui scheme), got ${JSON.stringify(options.uri)}`,
    );
  }
  for (const key of ['name', 'title', 'description', ...SOURCES] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') {
      throw decoratorError(`${where}: '${key}' must be a string`);
    }
  }
  try {
    return uiResourceMeta(where, options);
  } catch (error) {
    throw decoratorError((error as Error).message);
  }
}

/** Puts `_meta.ui` on every content item and makes its MIME type the view's. */
function finisher(meta: Record<string, unknown>): (result: ReadResourceResult) => ReadResourceResult {
  const hasMeta = Object.keys(meta).length > 0;
  return (result) => ({
    ...result,
    contents: result.contents.map((item) => {
      const content = { ...item, mimeType: UI_MIME_TYPE };
      if (hasMeta) content._meta = { ...item._meta, ui: structuredClone(meta) };
      return content;
    }),
  });
}

function resourceOptions(options: UiResourceOptions, meta: Record<string, unknown>, name?: string) {
  return {
    uri: options.uri,
    mimeType: UI_MIME_TYPE,
    ...((options.name ?? name) ? { name: options.name ?? name } : {}),
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    // Hosts read `_meta.ui` from the read content, with the listed resource as fallback.
    ...(Object.keys(meta).length > 0 ? { _meta: { ui: meta } } : {}),
  };
}

/** Loads the HTML named by `html`, `file` or `directory`, once, at bootstrap. */
function loader(options: UiResourceOptions): (where: string) => ResourceServing {
  return (where) => {
    const meta = uiResourceMeta(where, options);
    let html: string;
    try {
      if (options.html !== undefined) html = options.html;
      else if (options.file !== undefined) html = loadHtmlFile(options.file);
      else html = loadHtmlDirectory(options.directory as string);
    } catch (error) {
      const which = options.file !== undefined ? 'file' : 'directory';
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `${where}: @UiResource '${which}': ${(error as Error).message}`,
      );
    }
    if (!looksLikeHtmlDocument(html)) {
      const which = SOURCES.find((key) => options[key] !== undefined);
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `${where}: the '${which}' of @UiResource is not an HTML document; a view must be one (start it with <!doctype html>)`,
      );
    }
    return { fixed: html, finish: finisher(meta) };
  };
}

/**
 * Declares an MCP App view (a `ui://` resource read with `resources/read`, MIME type
 * `text/html;profile=mcp-app`, with `_meta.ui` { csp, permissions, prefersBorder, domain } on
 * the content). The server advertises the `io.modelcontextprotocol/ui` extension.
 *
 * - On a **method**, the method returns the HTML (a string, or a promise of one) on each read.
 * - On a **class** (stackable), `html`, `file` or `directory` gives the HTML, loaded once at
 *   bootstrap; a `directory` is a build whose index.html gets its local scripts and
 *   stylesheets inlined.
 *
 * @example
 * ```ts
 * @Injectable()
 * @UiResource({ uri: 'ui://notes/board', file: 'dist/board.html', csp: { connectDomains: ['https://api.example.com'] } })
 * class Views {
 *   @UiResource({ uri: 'ui://notes/hello', prefersBorder: true })
 *   hello() { return '<!doctype html><p>hello</p>'; }
 * }
 * ```
 */
export function UiResource(options: UiResourceOptions): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor) => {
    const where = `@UiResource() on ${memberName(target, propertyKey)}`;
    const meta = checked(where, options);
    const sources = SOURCES.filter((key) => options[key] !== undefined);
    if (propertyKey === undefined) {
      if (sources.length !== 1) {
        throw decoratorError(
          `${where}: on a class, give the HTML with exactly one of html, file or directory${sources.length > 1 ? ` (got ${sources.join(' and ')})` : ''}; or put @UiResource on a method that returns it`,
        );
      }
      // The class serves the view through a method of its own, so the view goes through the
      // same pipeline (guards, interceptors, caching hints) as any resource.
      const proto = (target as Function).prototype as object;
      const key = `uiResource:${options.uri}`;
      if (Object.hasOwn(proto, key)) {
        throw decoratorError(`${where}: ${options.uri} is declared twice on this class`);
      }
      Object.defineProperty(proto, key, { value: () => undefined, configurable: true, writable: true });
      resourceDecorator(resourceOptions(options, meta, options.uri), loader(options))(
        proto,
        key,
        Object.getOwnPropertyDescriptor(proto, key) as PropertyDescriptor,
      );
      return;
    }
    if (sources.length > 0) {
      throw decoratorError(
        `${where}: a method returns its view's HTML, so '${sources[0]}' belongs on the class: @UiResource({ uri, ${sources[0]} }) class …`,
      );
    }
    const prepare = (at: string): ResourceServing => ({ finish: finisher(uiResourceMeta(at, options)) });
    resourceDecorator(resourceOptions(options, meta), prepare)(
      target,
      propertyKey,
      descriptor as PropertyDescriptor,
    );
  }) as ClassDecorator & MethodDecorator;
}
