import { InvalidParamsError, type ListToolsResult, Method } from '@gantry/protocol';
import type { Registry } from '../registry/registry';
import type { MethodHandler } from './method-table';
import { pageResult } from './page-result';

/** `tools/list` and `tools/call`. */
export function toolHandlers(registry: Registry, pageSize: number): [string, MethodHandler][] {
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
    return tool.handler.run(args, inbound, session);
  };

  return [
    [Method.ToolsList, list],
    [Method.ToolsCall, call],
  ];
}
