import { GantryError, LocalErrorCode } from '@gantry/protocol';
import type { ExtensionDefinition } from '../extensions/extension-scanner';
import type { Registry } from '../registry/registry';
import { toolViewProblem, usesUi } from './tool-views';
import { UI_EXTENSION_ID } from './ui-constants';

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
  const tools = registry.tools.definitions();
  const problem = toolViewProblem(tools, (uri) => registry.resolve(uri));
  if (problem) throw new GantryError(LocalErrorCode.Bootstrap, problem);
  const resources = [...registry.resources.definitions(), ...registry.templates.definitions()];
  if (!usesUi(tools, resources) || extensions.some((extension) => extension.id === UI_EXTENSION_ID)) {
    return extensions;
  }
  return [...extensions, { id: UI_EXTENSION_ID, settings: {}, methods: new Map(), owner: 'MCP Apps views' }];
}
