// MCP Apps (io.modelcontextprotocol/ui), spec 2026-01-26 (SEP-1865): the identifiers a server
// uses, and what a client declares to say it can show views.
import type { McpContext } from '../context/mcp-context';

/** The extension id of MCP Apps (SEP-1865), advertised as `capabilities.extensions[UI_EXTENSION_ID]`. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** The MIME type of an MCP App view: an HTML5 document (MCP Apps 2026-01-26 › UI Resource). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The flat tool `_meta` key that older hosts read for the view's URI. Deprecated by MCP Apps
 * 2026-01-26 in favour of `_meta.ui.resourceUri`; Gantry sends both.
 */
export const UI_RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** What a client (host) declares for MCP Apps: `extensions["io.modelcontextprotocol/ui"]`. */
export interface UiClientCapability {
  /** The view MIME types the host renders, e.g. `["text/html;profile=mcp-app"]` (required by the spec). */
  mimeTypes?: string[];
  [setting: string]: unknown;
}

/**
 * The client's MCP Apps settings for this request (2026-07-28: this request's `_meta`; session
 * era: `initialize`), or undefined when it did not declare the extension.
 */
export function uiCapability(ctx: McpContext): UiClientCapability | undefined {
  return ctx.extensions.get<UiClientCapability>(UI_EXTENSION_ID);
}

/**
 * True when the client of this request can show MCP App views: it declared the extension with
 * `mimeTypes` including `text/html;profile=mcp-app` (the check MCP Apps 2026-01-26 recommends).
 */
export function supportsUi(ctx: McpContext): boolean {
  return acceptsUiMimeType(uiCapability(ctx));
}

/** @internal */
export function acceptsUiMimeType(capability: UiClientCapability | undefined): boolean {
  const types = capability?.mimeTypes;
  return Array.isArray(types) && types.includes(UI_MIME_TYPE);
}
