import type { CallToolResult, Tool } from '@gantry/protocol';
import type { ToolUiOptions } from '../apps/tool-ui';
import type { CacheHint } from '../stateless/cache-hint';
import type { HeaderParam } from '../stateless/mcp-header';
import type { CompiledHandler } from './compiled-handler';

/** A tool as the registry holds it: frozen, with its wire descriptor and compiled pipeline. */
export interface ToolDefinition {
  /** The wire name. */
  readonly name: string;
  /** The `Tool` object served by `tools/list`, frozen. */
  readonly descriptor: Readonly<Tool>;
  /** `ClassName.method`, for messages. */
  readonly source: string;
  /** Stateless-era caching hints from the decorator. */
  readonly cache?: CacheHint;
  readonly handler: CompiledHandler<CallToolResult>;
  /** Arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`), checked at bootstrap. */
  readonly headers?: readonly HeaderParam[];
  /** Whether the tool runs as a task (`@Tool({ task })`); undefined: never. */
  readonly task?: 'optional' | 'required';
  /** `@Tool({ deferTask })`: a 2026-07-28 call becomes a task at `ctx.runAsTask()`. */
  readonly deferTask?: boolean;
  /** The MCP Apps view of the tool (`@Tool({ ui })`). */
  readonly ui?: Readonly<ToolUiOptions>;
}
