import type { ToolRegistry } from './tool-registry';

/**
 * Everything an application serves, changeable while serving: `app.registry.tools.disable(name)`
 * hides a tool and tells connected clients (`notifications/tools/list_changed`).
 */
export class Registry {
  constructor(readonly tools: ToolRegistry) {}
}
