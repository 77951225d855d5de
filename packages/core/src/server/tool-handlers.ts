import { type CallToolResult, InvalidParamsError, type ListToolsResult, Method } from '@gantry/protocol';
import { withFallbackContent } from '../apps/tool-ui';
import { acceptsUiMimeType, UI_EXTENSION_ID, type UiClientCapability } from '../apps/ui-constants';
import { McpContext } from '../context/mcp-context';
import type { Logger } from '../logger';
import type { Registry } from '../registry/registry';
import type { TaskService } from '../tasks/task-service';
import type { MethodHandler } from './method-table';
import { pageResult } from './page-result';

/** `tools/list` and `tools/call`. */
export function toolHandlers(
  registry: Registry,
  pageSize: number,
  logger: Logger,
  tasks?: TaskService,
): [string, MethodHandler][] {
  const tools = registry.tools;
  const list: MethodHandler = (params, inbound, session) =>
    pageResult<ListToolsResult>('tools', tools.page(inbound, session, params?.cursor, pageSize));

  const call: MethodHandler = (params, inbound, session) => {
    const name = params?.name;
    if (typeof name !== 'string') {
      throw new InvalidParamsError('Invalid params: tools/call needs "name", the tool to call, as a string');
    }
    const args = params?.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new InvalidParamsError(
        `Invalid params: the "arguments" of tools/call must be an object (tool '${name}')`,
      );
    }
    const tool = tools.get(name);
    // 2025-11-25 tools: an unknown tool is a protocol error, −32602.
    if (!tool) throw new InvalidParamsError(`Unknown tool: ${name}`, { name });
    if (tasks && (tool.task !== undefined || params?.task !== undefined)) {
      const started = tasks.call(tool, params, args as Record<string, unknown> | undefined, inbound, session);
      if (started) return started;
    }
    const fallback = tool.ui?.fallback;
    if (!fallback) return tool.handler.run(args, inbound, session);
    // MCP Apps 2026-01-26: a client that cannot show the view reads `content`; it gets the
    // tool's text rendering. Decided per request: in 2026-07-28 capabilities come with each one.
    const capability = new McpContext(inbound, session).extensions.get<UiClientCapability>(UI_EXTENSION_ID);
    if (acceptsUiMimeType(capability)) return tool.handler.run(args, inbound, session);
    return Promise.resolve(tool.handler.run(args, inbound, session)).then((result: CallToolResult) => {
      try {
        return withFallbackContent(result, fallback);
      } catch (error) {
        logger.error(
          `The ui.fallback of tool '${name}' (${tool.source}) failed; sending the JSON text:`,
          error,
        );
        return result;
      }
    });
  };

  return [
    [Method.ToolsList, list],
    [Method.ToolsCall, call],
  ];
}
