import type { CallToolResult, InboundRequest, Tool } from '@gantry/protocol';
import type { SessionInfo } from '../context/mcp-context';

/** Runs one tool call: validation, the method, result mapping. Compiled once per tool. */
export type ToolExecutor = (
  args: unknown,
  inbound: InboundRequest,
  session: SessionInfo,
) => CallToolResult | Promise<CallToolResult>;

/** A tool as the registry holds it: frozen, with its wire descriptor and compiled executor. */
export interface ToolDefinition {
  /** The wire name. */
  readonly name: string;
  /** The `Tool` object served by `tools/list`, frozen. */
  readonly descriptor: Readonly<Tool>;
  /** `ClassName.method`, for messages. */
  readonly source: string;
  readonly execute: ToolExecutor;
}
