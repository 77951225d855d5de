import { UI_MIME_TYPE } from './ui-constants';

/** What serves a URI, as far as the view check needs to know. */
interface Served {
  readonly definition: { readonly source: string; readonly descriptor: { readonly mimeType?: string } };
}

/** The tool fields the view check reads. */
interface ToolWithView {
  readonly name: string;
  readonly source: string;
  readonly ui?: { readonly resource: string };
}

/** True for a resource served as an MCP App view. */
export function isViewMimeType(mimeType: string | undefined): boolean {
  return mimeType === UI_MIME_TYPE;
}

/**
 * Why a tool's view cannot be shown, or undefined: the host MUST be able to `resources/read`
 * the `ui://` resource a tool names, as `text/html;profile=mcp-app` (MCP Apps 2026-01-26 ›
 * Tool Metadata). Checked at bootstrap and when `registry.add` adds tools.
 */
export function toolViewProblem(
  tools: readonly ToolWithView[],
  resolve: (uri: string) => Served | undefined,
): string | undefined {
  for (const tool of tools) {
    const uri = tool.ui?.resource;
    if (uri === undefined) continue;
    const served = resolve(uri);
    if (!served) {
      return `Tool '${tool.name}' (${tool.source}) shows the view ${uri}, but no resource serves it; declare it with @UiResource({ uri: '${uri}', … })`;
    }
    const mimeType = served.definition.descriptor.mimeType;
    if (!isViewMimeType(mimeType)) {
      return `Tool '${tool.name}' (${tool.source}) shows ${uri}, which ${served.definition.source} serves as ${mimeType ?? 'no MIME type'}; a view is ${UI_MIME_TYPE}: declare it with @UiResource`;
    }
  }
  return undefined;
}

/** True when any of these tools or resources is part of an MCP App. */
export function usesUi(
  tools: readonly ToolWithView[],
  resources: readonly { readonly descriptor: { readonly mimeType?: string } }[],
): boolean {
  return (
    tools.some((tool) => tool.ui !== undefined) ||
    resources.some((r) => isViewMimeType(r.descriptor.mimeType))
  );
}
