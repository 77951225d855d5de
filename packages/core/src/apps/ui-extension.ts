import { GantryError, LocalErrorCode } from '@gantry/protocol';
import type { ExtensionDefinition } from '../extensions/extension-scanner';
import type { Registry } from '../registry/registry';
import { UI_EXTENSION_ID, UI_MIME_TYPE } from './ui-constants';

/**
 * The extensions to advertise once the handlers are scanned: when any tool names a view
 * (`@Tool({ ui })`) or any resource is a view (`@UiResource`), `io.modelcontextprotocol/ui`
 * with `{}` (MCP Apps 2026-01-26 › Capability Negotiation), unless a provider declares that id
 * itself with `@Extension` (its settings win).
 *
 * Why here, and not a built-in `@Extension` provider: whether the server speaks MCP Apps
 * follows from what its handlers declare, which only the scan knows. Adding a definition to
 * the scanned extensions keeps one path (GantryServer's) advertising every extension in both
 * eras. It also checks that every view a tool names is served: a host MUST be able to
 * `resources/read` it.
 */
export function withUiExtension(
  registry: Registry,
  extensions: readonly ExtensionDefinition[],
): readonly ExtensionDefinition[] {
  const isView = (mimeType: string | undefined) => mimeType === UI_MIME_TYPE;
  const uiTools = registry.tools.definitions().filter((tool) => tool.ui !== undefined);
  for (const tool of uiTools) {
    const uri = tool.ui?.resource as string;
    const served = registry.resolve(uri);
    if (!served) {
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `Tool '${tool.name}' (${tool.source}) shows the view ${uri}, but no resource serves it; declare it with @UiResource({ uri: '${uri}', … })`,
      );
    }
    if (!isView(served.definition.descriptor.mimeType)) {
      throw new GantryError(
        LocalErrorCode.Bootstrap,
        `Tool '${tool.name}' (${tool.source}) shows ${uri}, which ${served.definition.source} serves as ${served.definition.descriptor.mimeType ?? 'no MIME type'}; a view is ${UI_MIME_TYPE}: declare it with @UiResource`,
      );
    }
  }
  const usesUi =
    uiTools.length > 0 ||
    registry.resources.definitions().some((resource) => isView(resource.descriptor.mimeType)) ||
    registry.templates.definitions().some((template) => isView(template.descriptor.mimeType));
  if (!usesUi || extensions.some((extension) => extension.id === UI_EXTENSION_ID)) return extensions;
  return [...extensions, { id: UI_EXTENSION_ID, settings: {}, methods: new Map(), owner: 'MCP Apps views' }];
}
