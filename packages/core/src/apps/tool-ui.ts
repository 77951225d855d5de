// A tool's link to its MCP App view (MCP Apps 2026-01-26 › Tool Metadata): `_meta.ui`
// `{ resourceUri, visibility? }`, plus the deprecated flat `_meta["ui/resourceUri"]` that hosts
// still read.
import type { CallToolResult, Meta } from '@gantry/protocol';
import { decoratorError } from '../decorators/decorator-error';
import { UI_RESOURCE_URI_META_KEY } from './ui-constants';

/** Who may call a UI tool (MCP Apps 2026-01-26): the model (agent), the view (app), or both. */
export type UiVisibility = 'model' | 'app';

/** `@Tool({ ui })`: the view that shows this tool's results. */
export interface ToolUiOptions {
  /** The `ui://` URI of the view, served by a `@UiResource` of this server. */
  resource: string;
  /**
   * Who may call the tool; default (absent) `['model', 'app']`. `['app']` makes an app-only
   * tool (e.g. a view's "refresh" button): Gantry still lists it in `tools/list`, because the
   * spec has the **host** keep tools without `'model'` out of the agent's tool list and reject
   * view calls to tools without `'app'`.
   */
  visibility?: UiVisibility[];
  /**
   * The text `content` for clients that cannot show the view (no `io.modelcontextprotocol/ui`
   * with `text/html;profile=mcp-app` on this request): renders the tool's `structuredContent`
   * for a person reading the chat. Needs `output`. Hosts that show the view keep the default
   * text (the JSON of `structuredContent`), which goes to the model.
   */
  fallback?: (structuredContent: Record<string, unknown>) => string;
}

const UI_KEYS = new Set(['resource', 'visibility', 'fallback']);
const VISIBILITY = new Set<string>(['model', 'app']);

/** A `ui://` URI with something after the scheme (MCP Apps 2026-01-26 › UI Resource). */
export function isUiUri(uri: unknown): uri is string {
  return typeof uri === 'string' && /^ui:\/\/[^\s]+$/.test(uri);
}

/** Checks `@Tool({ ui })` when the method is decorated; throws naming the option to change. */
export function checkToolUi(where: string, ui: unknown, meta: Meta | undefined, hasOutput: boolean): void {
  if (ui === undefined) return;
  const at = `@Tool() on ${where}: ui`;
  if (typeof ui !== 'object' || ui === null || Array.isArray(ui)) {
    throw decoratorError(`${at} must be an object such as { resource: 'ui://app/view' }`);
  }
  for (const key of Object.keys(ui)) {
    if (!UI_KEYS.has(key)) {
      throw decoratorError(`${at}: unknown option '${key}'; known options are ${[...UI_KEYS].join(', ')}`);
    }
  }
  const { resource, visibility, fallback } = ui as ToolUiOptions;
  if (!isUiUri(resource)) {
    throw decoratorError(
      `${at}.resource must be a ui:// URI naming a @UiResource (e.g. 'ui://notes/board'), got ${JSON.stringify(resource)}`,
    );
  }
  if (visibility !== undefined) {
    if (!Array.isArray(visibility) || visibility.length === 0) {
      throw decoratorError(
        `${at}.visibility must be a non-empty array of 'model' and 'app' (leave it out for both)`,
      );
    }
    for (const value of visibility) {
      if (!VISIBILITY.has(value as string)) {
        throw decoratorError(
          `${at}.visibility has ${JSON.stringify(value)}; the values are 'model' (the agent may call it) and 'app' (its view may)`,
        );
      }
    }
    if (new Set(visibility).size !== visibility.length) {
      throw decoratorError(`${at}.visibility lists a value twice`);
    }
  }
  if (fallback !== undefined) {
    if (typeof fallback !== 'function') {
      throw decoratorError(`${at}.fallback must be a function (structuredContent) => string`);
    }
    if (!hasOutput) {
      throw decoratorError(
        `${at}.fallback renders the structured output for plain hosts; declare it with @Tool({ output })`,
      );
    }
  }
  if (meta !== undefined && (meta.ui !== undefined || meta[UI_RESOURCE_URI_META_KEY] !== undefined)) {
    throw decoratorError(
      `@Tool() on ${where}: set the view with the ui option only; _meta.ui and _meta["${UI_RESOURCE_URI_META_KEY}"] are written from it`,
    );
  }
}

/** The tool `_meta` with the view: nested `ui` (current) and the flat deprecated key. */
export function toolUiMeta(ui: ToolUiOptions, meta: Meta | undefined): Meta {
  const nested: Record<string, unknown> = { resourceUri: ui.resource };
  if (ui.visibility !== undefined) nested.visibility = [...ui.visibility];
  return { ...structuredClone(meta ?? {}), ui: nested, [UI_RESOURCE_URI_META_KEY]: ui.resource };
}

/**
 * The result a client that cannot show the view receives: the text `content` becomes the
 * tool's `fallback` rendering of `structuredContent` (MCP Apps 2026-01-26: tools MUST always
 * return a meaningful `content`). Error results and results without structured content are
 * left as they are.
 */
export function withFallbackContent(
  result: CallToolResult,
  fallback: (structuredContent: Record<string, unknown>) => string,
): CallToolResult {
  if (result.isError || result.structuredContent === undefined) return result;
  const text = fallback(result.structuredContent as Record<string, unknown>);
  if (typeof text !== 'string') {
    throw new TypeError(`a ui.fallback returned ${typeof text}; it must return the text to show`);
  }
  return { ...result, content: [{ type: 'text', text }] };
}
