import type { InboundRequest, RequestParams, Result } from '@gantry/protocol';
import type { ContextSession } from '../context/mcp-context';

/**
 * Handles one MCP method: for an initialized session (a `ServerSession`), or for one
 * stateless-era request (a `StatelessCall`).
 */
export type MethodHandler = (
  params: RequestParams | undefined,
  inbound: InboundRequest,
  session: ContextSession,
) => Result | Promise<Result>;

/** Method name → handler, built once per server: dispatch is one `Map` lookup. */
export type MethodTable = ReadonlyMap<string, MethodHandler>;
